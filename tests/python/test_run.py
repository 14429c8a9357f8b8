"""celltcp.run and RunResult: tables, series, written outputs, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import celltcp
from celltcp import RunResult, Scenario, ScenarioError, SimulationError


@pytest.fixture(scope="module")
def result() -> RunResult:
    from conftest import CHAIN_TOML

    return celltcp.run(CHAIN_TOML)


def test_public_names() -> None:
    for name in ("__version__", "Scenario", "run", "RunResult", "ScenarioError", "SimulationError"):
        assert hasattr(celltcp, name)
    assert issubclass(ScenarioError, ValueError)
    assert issubclass(SimulationError, RuntimeError)
    assert celltcp.__version__ == celltcp._core.__version__


def test_models_is_imported_lazily() -> None:
    code = "import sys, celltcp; print('celltcp.models' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_flows_table(result: RunResult) -> None:
    flows = result.flows
    assert isinstance(flows, pd.DataFrame)
    assert list(flows.index) == ["video"]
    assert flows.index.name == "flow"
    video = flows.loc["video"]
    # A 5 Mb/s Poisson source through a 10 Mb/s bottleneck: most of it arrives.
    assert 3e6 < video["goodput_bps"] <= 6e6
    assert 0 <= video["loss_ratio"] <= 1
    # 15 ms of propagation on the path is a floor on the one-way delay.
    assert video["delay_mean_s"] >= 0.015
    assert video["delay_p50_s"] <= video["delay_p95_s"]
    received = video.get("packets_received", video.get("packets_delivered"))
    assert 0 < received <= video["packets_sent"]


def test_links_table(result: RunResult) -> None:
    links = result.links
    assert links.index.names == ["link", "direction"]
    assert {("access", "a_to_b"), ("core", "a_to_b")} <= set(links.index)
    assert links.loc[("access", "a_to_b"), "packets_sent"] > 0
    for column in links.columns:
        if column.startswith("drops_"):
            assert links[column].dtype == np.int64


def test_series_are_dataframes_with_seconds(result: RunResult) -> None:
    assert result.series, "the scenario traces queues and flows, so series are expected"
    for name, frame in result.series.items():
        assert isinstance(frame, pd.DataFrame), name
        assert len(frame) > 0, name
        if "time_ns" in frame:
            assert frame["time_ns"].dtype == np.uint64
            np.testing.assert_allclose(frame["time_s"], frame["time_ns"] / 1e9)
            # Rows are recorded as events happen, so time never goes backwards within a series.
            assert frame["time_ns"].is_monotonic_increasing, name
    assert result.events > 0
    assert "events=" in repr(result) and "video" in repr(result)


def test_path_text_and_object_give_the_same_run(chain_file: Path, chain_toml: str) -> None:
    by_path = celltcp.run(chain_file)
    by_str_path = celltcp.run(str(chain_file))
    by_text = celltcp.run(chain_toml)
    by_object = celltcp.run(Scenario.from_toml(chain_toml))
    for other in (by_str_path, by_text, by_object):
        assert other.summary == by_path.summary
        assert other.events == by_path.events


def test_seed_run_and_overrides_change_the_outcome(chain_toml: str) -> None:
    base = celltcp.run(chain_toml)
    assert celltcp.run(chain_toml, seed=1).summary == base.summary  # the file's seed is 1
    assert celltcp.run(chain_toml, seed=2).summary != base.summary
    assert celltcp.run(chain_toml, run=1).summary != base.summary
    slower = celltcp.run(chain_toml, set={"flows.video.rate": "1Mbps"})
    assert slower.flows.loc["video", "goodput_bps"] < 0.5 * base.flows.loc["video", "goodput_bps"]
    same = celltcp.run(chain_toml, set=["flows.video.rate=1Mbps"])
    assert same.summary == slower.summary


def test_write_contents(result: RunResult, tmp_path: Path) -> None:
    out = tmp_path / "nested" / "run"
    assert result.write(out) == out
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        [".celltcp-output", "summary.json", *(f"{n}.parquet" for n in result.series)]
    )
    assert json.loads((out / "summary.json").read_text()) == result.summary
    for name, frame in result.series.items():
        back = pd.read_parquet(out / f"{name}.parquet")
        pd.testing.assert_frame_equal(back, frame, check_categorical=False)
    # Only the final directory is left: no temporary siblings.
    assert [p.name for p in out.parent.iterdir()] == ["run"]


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"links.access.rate": "fast"}, "links.access.rate"),
        (["links.access.delay=-5ms"], "links.access.delay"),
        ({"flows.video.dst": "nobody"}, "flows.video"),
        (["novalue"], "set 'novalue'"),
        (["=1Mbps"], "set '=1Mbps'"),
    ],
)
def test_run_errors_carry_the_key(chain_toml: str, overrides: object, key: str) -> None:
    with pytest.raises(ScenarioError) as e:
        celltcp.run(chain_toml, set=overrides)
    assert e.value.key.startswith(key), e.value
    assert e.value.args == (e.value.message, e.value.key)


def test_capture_needs_a_directory(chain_toml: str) -> None:
    with pytest.raises(ScenarioError) as e:
        celltcp.run(chain_toml, capture="access")
    assert e.value.key == "capture"


def test_capture_of_unknown_link_names_it(chain_toml: str, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as e:
        celltcp.run(chain_toml, capture=["nosuchlink"], capture_dir=tmp_path)
    assert "nosuchlink" in str(e.value)


def test_capture_writes_pcap(chain_toml: str, tmp_path: Path) -> None:
    celltcp.run(chain_toml, capture="access", capture_dir=tmp_path)
    pcap = (tmp_path / "access.pcap").read_bytes()
    # pcap magic in either byte order and either time resolution.
    assert pcap[:4] in {bytes.fromhex(m) for m in ("d4c3b2a1", "a1b2c3d4", "4d3cb2a1", "a1b23c4d")}
    assert len(pcap) > 24, "packets start transmission on the access link, so some are captured"


def test_trace_paths_resolve_against_the_scenario_file(tmp_path):
    """A scenario loaded from a file finds its trace files next to it, whatever the current
    directory."""
    import os
    from pathlib import Path

    import celltcp

    example = Path(__file__).resolve().parents[2] / "python/celltcp/examples/traces/trace-link.toml"
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        sc = celltcp.Scenario.load(example)
        sc.set("simulation.duration", "1s")
        result = celltcp.run(sc)
    finally:
        os.chdir(here)
    assert result.summary["flows"]["bulk"]["goodput_bps"] > 0
