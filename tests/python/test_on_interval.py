"""``celltcp.run(..., on_interval=f, interval=...)``: per-interval figures that add up to the
run's summary, an early stop, and results the same as without the callback."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import celltcp

ROOT = Path(__file__).resolve().parents[2]
LTE = ROOT / "python" / "celltcp" / "examples" / "lte-single-cell.toml"
#: Two seconds; the TCP trace asks for the cwnd of one flow only, so that the rows the watch
#: adds for itself (cwnd and srtt of both flows) must be left out of the outputs.
LTE_SET = {
    "simulation.duration": "2s",
    "trace.tcp": ["cwnd"],
    "trace.tcp_flows": ["near"],
    "trace.cells": ["cell1"],
    "trace.queues": ["backhaul"],
}


@pytest.fixture(scope="module")
def watched() -> tuple[celltcp.RunResult, list[dict]]:
    seen: list[dict] = []
    result = celltcp.run(LTE, set=LTE_SET, on_interval=seen.append, interval="100ms")
    return result, seen


def test_intervals_cover_the_run(watched: tuple[celltcp.RunResult, list[dict]]) -> None:
    _, seen = watched
    assert [round(f["end_s"], 9) for f in seen] == [round(0.1 * k, 9) for k in range(1, 21)]
    assert all(math.isclose(f["end_s"] - f["start_s"], 0.1) for f in seen)
    assert set(seen[0]["flows"]) == {"near", "far"}
    assert set(seen[0]["cells"]) == {"cell1"}
    assert set(seen[0]["queues"]) == {
        f"{link}.{d}" for link in ("internet", "backhaul") for d in ("a_to_b", "b_to_a")
    }
    # A TCP sender has a window and an RTT estimate once its connection is up.
    late = seen[-1]["flows"]["near"]
    assert late["cwnd_bytes"] > 0 and 0 < late["srtt_s"] < 1
    cell = seen[-1]["cells"]["cell1"]
    assert 0 < cell["prb_utilization"] <= 1 and cell["queue_bytes"] >= 0


def test_interval_figures_add_up_to_the_summary(
    watched: tuple[celltcp.RunResult, list[dict]],
) -> None:
    result, seen = watched
    s = result.summary
    for name, flow in s["flows"].items():
        active = flow["end_s"] - flow["start_s"]
        app_bits = sum(f["flows"][name]["goodput_bps"] * (f["end_s"] - f["start_s"]) for f in seen)
        assert math.isclose(app_bits, flow["goodput_bps"] * active, rel_tol=1e-9), name
        ip_bits = sum(f["flows"][name]["throughput_bps"] * 0.1 for f in seen)
        assert math.isclose(ip_bits, flow["throughput_bps"] * active, rel_tol=1e-9), name
        retx = sum(f["flows"][name]["retransmissions"] for f in seen)
        assert retx == flow["sender"]["retransmissions"], name
    cell_bits = sum(f["cells"]["cell1"]["throughput_bps"] * 0.1 for f in seen)
    # The summary's RLC throughput is over the whole run, [0, 2 s].
    rlc_bits = sum(u["rlc_throughput_bps"] for u in s["cells"]["cell1"]["ues"].values()) * 2.0
    assert math.isclose(cell_bits, rlc_bits, rel_tol=1e-9)
    prb = sum(f["cells"]["cell1"]["prb_utilization"] for f in seen) / len(seen)
    assert math.isclose(prb, s["cells"]["cell1"]["prb_utilization"], rel_tol=1e-9)
    for link, ends in s["links"].items():
        for d in ("a_to_b", "b_to_a"):
            drops = sum(f["queues"][f"{link}.{d}"]["drops"] for f in seen)
            assert drops == sum(ends[d]["drops"].values()), (link, d)


def test_results_are_those_of_an_unwatched_run(
    watched: tuple[celltcp.RunResult, list[dict]],
) -> None:
    result, _ = watched
    plain = celltcp.run(LTE, set=LTE_SET)
    assert json.dumps(result.summary, sort_keys=True) == json.dumps(plain.summary, sort_keys=True)
    assert sorted(result.series) == sorted(plain.series)
    for name, frame in result.series.items():
        assert frame.equals(plain.series[name]), name
    # The watch's own cwnd and srtt rows are gone: only the near flow's cwnd remains.
    tcp = result.series["tcp"]
    assert set(tcp["var"]) == {"cwnd"} and set(tcp["flow"]) == {"near"}


def test_returning_false_stops_the_run() -> None:
    calls: list[float] = []

    def stop_at_third(figures: dict) -> bool:
        calls.append(figures["end_s"])
        return len(calls) < 3

    result = celltcp.run(LTE, set=LTE_SET, on_interval=stop_at_third, interval="100ms")
    assert len(calls) == 3
    assert result.summary["stop_reason"] == "stopped"
    assert math.isclose(result.summary["simulated_time_s"], 0.3)
    again = celltcp.run(LTE, set=LTE_SET, on_interval=lambda f: f["end_s"] < 0.25, interval="100ms")
    assert json.dumps(again.summary, sort_keys=True) == json.dumps(result.summary, sort_keys=True)


def test_an_exception_in_the_callback_ends_the_run_with_it() -> None:
    def boom(figures: dict) -> None:
        raise RuntimeError("seen enough")

    with pytest.raises(RuntimeError, match="seen enough"):
        celltcp.run(LTE, set=LTE_SET, on_interval=boom, interval="100ms")


@pytest.mark.parametrize("interval", ["0s", "100", "fast"])
def test_a_bad_interval_names_the_argument(interval: str) -> None:
    with pytest.raises(celltcp.ScenarioError) as e:
        celltcp.run(LTE, set=LTE_SET, on_interval=print, interval=interval)
    assert e.value.key == "interval"


def test_on_interval_without_interval_is_refused() -> None:
    with pytest.raises(celltcp.ScenarioError) as e:
        celltcp.run(LTE, set=LTE_SET, on_interval=print)
    assert e.value.key == "interval"
