"""Seed 000's scenario files: one handover of the reference UE per run, its message timeline for
each data-path policy, the prediction's early path switch, the RTT growth of forwarding, and the
per-count scenarios generated from ``python/celltcp/examples/000/forwarding.toml``."""

from __future__ import annotations

import math
import sys

import pytest

import celltcp
from celltcp.reproduce import ReproductionError
from celltcp.reproduce.seed000 import target_cell_scenario
from celltcp.scenario import Scenario
from celltcp.sweep import load_spec, resolve_points
from conftest import EXAMPLES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

FORWARDING = EXAMPLES / "000" / "forwarding.toml"
AQM = EXAMPLES / "000" / "aqm.toml"
#: One-way latencies of the files (the scenario defaults but detach_sync 30 ms, random access 0).
X2, ADMISSION, RRC, S1, S11, DETACH = 0.005, 0.002, 0.005, 0.005, 0.002, 0.030
US = 1e-6


def _ref_row(result: celltcp.RunResult):
    rows = result.handovers
    assert len(rows) == 1, rows  # one handover, and the UE has one TCP flow
    row = rows.iloc[0]
    assert (row["ue"], row["flow"], row["result"]) == ("ue_ref", "ue_ref", "completed")
    return row


@pytest.fixture(scope="module")
def by_policy() -> dict[str, celltcp.RunResult]:
    return {
        policy: celltcp.run(FORWARDING, set={"ran.handover.policy": policy})
        for policy in ("forward", "fast_path_switch", "predicted", "discard")
    }


@pytest.mark.parametrize("policy", ["forward", "fast_path_switch", "predicted", "discard"])
def test_each_policy_gives_one_handover_with_its_timeline(by_policy, policy):
    result = by_policy[policy]
    row = _ref_row(result)
    assert row["policy"] == policy
    assert row["decision_s"] == pytest.approx(2.3, abs=US)
    # The request ack arrives after the X2 request, admission control and the X2 answer.
    ack = 2.3 + X2 + ADMISSION + X2
    held = 0.130 if policy == "predicted" else 0.0
    assert row["command_s"] == pytest.approx(ack + RRC + held, abs=US)
    assert row["attach_s"] - row["command_s"] == pytest.approx(DETACH, abs=US)
    assert row["interruption_s"] == pytest.approx(DETACH, abs=US)
    if policy in ("forward", "discard"):
        # Standard procedure: the target asks for the path switch at the handover confirm.
        assert row["path_switch_s"] == pytest.approx(row["attach_s"] + S1 + S11, abs=US)
    else:
        # Fast path switch and prediction: requested at the request ack, before the UE leaves.
        assert row["path_switch_s"] == pytest.approx(ack + S1 + S11, abs=US)
        assert row["path_switch_s"] < row["attach_s"]
    assert row["completion_s"] >= max(row["attach_s"], row["path_switch_s"])
    events = result.handover_events
    assert list(events["time_s"]) == sorted(events["time_s"])
    messages = list(events["message"])
    for message in (
        "handover_request",
        "handover_request_ack",
        "handover_command",
        "handover_confirm",
        "path_switch_request",
        "end_marker",
    ):
        assert messages.count(message) == 1, message


def test_standard_procedure_forwards_and_raises_the_rtt(by_policy):
    row = _ref_row(by_policy["forward"])
    # The source's buffer (about the 44-segment window less the source link's pipe) crosses X2;
    # the procedure loses nothing, the congested router does (the seed's double queueing).
    assert row["forwarded"] >= 20
    assert row["dropped_source"] == row["dropped_target"] == row["dropped_source_egress"] == 0
    assert row["dropped"] == row["dropped_transport"] == row["dropped_queue_full"] > 0
    # Forwarded packets queue a second time in the router: the RTT after the command exceeds
    # the RTT before it.
    assert row["rtt_peak_s"] > row["rtt_before_s"] > 0


def test_discard_drops_what_forward_would_forward(by_policy):
    forward, discard = _ref_row(by_policy["forward"]), _ref_row(by_policy["discard"])
    assert discard["forwarded"] == 0 and discard["dropped"] > 0
    assert abs(int(discard["dropped"]) - int(forward["forwarded"])) <= 15


def test_prediction_switches_the_path_before_the_command_and_forwards_nothing(by_policy):
    row = _ref_row(by_policy["predicted"])
    # The command is held prediction_step after the request ack (plus the RRC latency); the
    # S-GW switches after S1 + S11: the lead is prediction_step − S1 − S11 + RRC = 128 ms.
    assert row["command_s"] - row["path_switch_s"] == pytest.approx(0.130 - S1 - S11 + RRC, abs=US)
    # The source empties its buffer over the radio before the UE leaves; what the flow loses
    # is lost in the congested router, not by the procedure.
    assert row["forwarded"] <= 2
    assert row["dropped_source"] == row["dropped_target"] == row["dropped_source_egress"] == 0
    assert row["dropped"] == row["dropped_transport"]


def test_prediction_lead_follows_the_configured_latencies():
    # Not a number baked into the model: other latencies and step give another lead.
    result = celltcp.run(
        FORWARDING,
        set={
            "ran.handover.policy": "predicted",
            "ran.handover.prediction_step": "80ms",
            "ran.handover.latencies.s1": "8ms",
            "ran.handover.latencies.s11": "4ms",
            "ran.handover.latencies.rrc": "3ms",
        },
    )
    row = _ref_row(result)
    assert row["command_s"] - row["path_switch_s"] == pytest.approx(
        0.080 - 0.008 - 0.004 + 0.003, abs=US
    )


def test_aqm_example_has_one_handover_and_red_marks():
    result = celltcp.run(AQM)
    row = _ref_row(result)
    assert row["policy"] == "forward"
    links = result.summary["links"]
    # RED marks ECN-capable packets on both router links (Table III, Fig. 7).
    assert links["s1u_source"]["a_to_b"]["ecn_marks"] > 0
    assert links["s1u_target"]["a_to_b"]["ecn_marks"] > 0
    assert result.summary["epc"]["enb_target"]["ce_propagated"] > 0


def test_replications_differ():
    # Fading and HARQ make the run numbers independent samples (the seed's 50 simulations).
    peaks = {
        float(
            _ref_row(celltcp.run(FORWARDING, run=r, set={"ran.handover.policy": "predicted"}))[
                "rtt_peak_s"
            ]
        )
        for r in range(3)
    }
    assert len(peaks) > 1


# -- the per-count scenarios -------------------------------------------------------------------


def _key(scenario: Scenario) -> str:
    (point,) = resolve_points(load_spec({"scenario": scenario}))
    return point.key


def test_five_ue_scenario_is_the_example_file():
    five = target_cell_scenario(5)
    assert five.path().resolve() == FORWARDING.resolve() and not five.tables
    assert _key(five.base()) == _key(Scenario.load(FORWARDING))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_smaller_counts_drop_the_last_ues_with_their_flows(n):
    data = tomllib.loads(target_cell_scenario(n).base().to_toml())
    kept = [f"ue_t{i}" for i in range(1, n + 1)]
    assert list(data["cells"]["target"]["ues"]) == kept
    assert list(data["cells"]["source"]["ues"]) == ["ue_ref"]
    assert sorted(data["flows"]) == sorted(["ue_ref", *kept])
    assert sorted(data["mobility"]) == sorted(["ue_ref", *kept])
    assert not any(f"ue_t{i}" in data["nodes"] for i in range(n + 1, 6))
    # Everything else is the file's.
    template = tomllib.loads(FORWARDING.read_text())
    for table in ("links", "epc", "ran", "simulation"):
        assert data[table] == template[table]
    result = celltcp.run(Scenario.from_dict(data))
    assert len(result.summary["flows"]) == n + 1
    assert math.isfinite(float(_ref_row(result)["rtt_before_s"]))


@pytest.mark.parametrize("n", [0, 6, True, -1])
def test_counts_outside_the_template_are_rejected(n):
    with pytest.raises(ReproductionError, match="ues_in_target"):
        target_cell_scenario(n)
