"""An NR cell (``[cells.NAME] rat = "nr"``) from a TOML scenario: a TCP download over it, its
per-slot series, and the one-line errors of bad NR keys (docs/nr.md, docs/scenarios.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

import celltcp
from celltcp import Scenario, ScenarioError

NR_TOML = """
[simulation]
duration = "1s"
seed = 3

[nodes]
server = { kind = "host" }
gnb = { kind = "router" }
ue = { kind = "host" }

[links.backhaul]
a = "server"
b = "gnb"
rate = "1Gbps"
delay = "5ms"
queue = { kind = "droptail", limit = "3000p" }

[cells.g]
rat = "nr"
enb = "gnb"
carrier_ghz = 3.5
pathloss = "uma"
los = true
rlc = { mode = "am", buffer = "3000p" }
uplink = { rate = "50Mbps", grant_delay = "4ms" }

[cells.g.nr]
numerology = 1
bandwidth_mhz = 40
slot_pattern = "DDDSU"
mcs_table = "qam256"
max_layers = 2

[cells.g.ues]
ue = { position = [100.0, 0.0] }

[flows.down]
kind = "tcp"
src = "server"
dst = "ue"
cc = "cubic"
app = { kind = "bulk" }

[trace]
cells = ["g"]
"""


def _lte_variant() -> str:
    # The same scenario on a 20 MHz LTE cell: the NR cell's 40 MHz, 2 layers and 256QAM carry
    # several times more.
    text = NR_TOML.replace('rat = "nr"\n', "bandwidth_mhz = 20\n")
    head, _, tail = text.partition("[cells.g.nr]")
    return head + tail[tail.index("[cells.g.ues]") :]


@pytest.fixture(scope="module")
def nr_result() -> celltcp.RunResult:
    return celltcp.run(Scenario.from_toml(NR_TOML))


def test_tcp_download_over_an_nr_cell(nr_result: celltcp.RunResult) -> None:
    goodput = nr_result.flows.loc["down", "goodput_bps"]
    lte = celltcp.run(Scenario.from_toml(_lte_variant())).flows.loc["down", "goodput_bps"]
    # 40 MHz at 30 kHz is 106 PRBs; two layers of 256QAM in DDDSU: a few hundred Mbit/s,
    # beyond what a 20 MHz single-layer 64QAM LTE cell (at most ~75 Mbit/s) carries.
    assert goodput > 150e6, goodput
    assert goodput > 2.5 * lte, (goodput, lte)


def test_the_cell_runs_in_slots(nr_result: celltcp.RunResult) -> None:
    cell = nr_result.summary["cells"]["g"]
    # 1 s of 0.5 ms slots: more scheduling units than the 1000 TTIs an LTE cell has, at most
    # 2000; the U slots are processed too (their HARQ-ACKs) but carry no PRB, so at most 4/5
    # of the PRBs of the run can be used.
    assert 1000 < cell["ttis_processed"] <= 2000, cell["ttis_processed"]
    assert 0 < cell["prb_utilization"] <= 1.0
    ue = cell["ues"]["ue"]
    assert ue["harq_transmissions"] > 0
    series = nr_result.series["cells"]
    assert len(series) > 0


def test_the_same_scenario_is_byte_identical_twice(tmp_path: Path) -> None:
    a = celltcp.run(Scenario.from_toml(NR_TOML)).write(tmp_path / "a")
    b = celltcp.run(Scenario.from_toml(NR_TOML)).write(tmp_path / "b")
    assert (a / "summary.json").read_bytes() == (b / "summary.json").read_bytes()


BAD = {
    "numerology": ("numerology = 1", "numerology = 5", "cells.g.nr.numerology"),
    "bandwidth/SCS": ("bandwidth_mhz = 40", "bandwidth_mhz = 400", "cells.g.nr.bandwidth_mhz"),
    "pattern symbol": (
        'slot_pattern = "DDDSU"',
        'slot_pattern = "DDXSU"',
        "cells.g.nr.slot_pattern",
    ),
    "CQI table the MCS table cannot map": (
        'mcs_table = "qam256"',
        'mcs_table = "qam64"\ncqi_table = "table2"',
        "cells.g.nr.cqi_table",
    ),
    "LTE bandwidth": ('rat = "nr"', 'rat = "nr"\nbandwidth_mhz = 20', "cells.g.bandwidth_mhz"),
    "LTE CQI table": ('rat = "nr"', 'rat = "nr"\ncqi_table = "7.2.3-2"', "cells.g.cqi_table"),
    # Written at LTE's default value: refused all the same, for it is not an NR cell's key.
    "LTE bandwidth at its default": (
        'rat = "nr"',
        'rat = "nr"\nbandwidth_mhz = 10',
        "cells.g.bandwidth_mhz",
    ),
    "LTE UE category": ('rat = "nr"', 'rat = "nr"\nue_category = 3', "cells.g.ue_category"),
    "fixed MCS beyond the table": ('rat = "nr"', 'rat = "nr"\nfixed_mcs = 28', "cells.g.fixed_mcs"),
    "unknown NR key": ("max_layers = 2", "max_layer = 2", "cells.g.nr"),
    "nr table on an LTE cell": ('rat = "nr"', 'rat = "lte"', "cells.g.nr"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_nr_input_is_one_line_naming_the_key(case: str) -> None:
    old, new, key = BAD[case]
    assert old in NR_TOML
    with pytest.raises(ScenarioError) as err:
        celltcp.run(Scenario.from_toml(NR_TOML.replace(old, new, 1)))
    message = str(err.value)
    assert key in message, message
    assert "\n" not in message.strip(), message


def test_bad_nr_input_exits_2(cli, tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(NR_TOML.replace("numerology = 1", "numerology = 7"))
    res = cli("validate", path, cwd=tmp_path)
    assert res.returncode == 2, res
    assert len(res.stderr_lines) == 1 and "cells.g.nr.numerology" in res.stderr_lines[0]
