"""The data-path policies on a drive (celltcp.studies.handover_policies; docs/handover.md):
forwarding gives no less goodput and fewer timeouts than discarding, and a predicted path switch times out no more often than
forwarding, over replications that differ (fading and shadowing); with RACK's rule for lost
retransmissions turned off (the ablation), discarding times out far more often again."""

from __future__ import annotations

import pytest

from celltcp.reproduce.verdict import Verdict, decide, fisher_test
from celltcp.studies import handover_policies as hp
from celltcp.study import Results

#: Replications per policy: 72 runs of 90 s, about 90 s on two workers. The non-inferiority
#: test has power above 0.8 at this size for equal shares (docs/handover.md).
RUNS = 24

#: The ablation: RACK's rule for lost retransmissions (RFC 8985 §6.2) off in every run.
NO_LOST_RETRANSMISSION_RULE = "flows.download.tcp.detect_lost_retransmissions=false"

#: Replications per policy of the ablation test: 6 runs (discard and forward), 18 handovers a
#: policy; about 8 s on two idle cores (2.4 CPU-seconds a run), 34 s measured on 2026-12-02
#: with a load average of 18. At the shares the 24-replication ablation measured (discard 112
#: of 139 handovers timed out, forward 14 of 139; docs/handover.md) Fisher's exact test has
#: power 0.996 at this size (exact enumeration, verdict.fisher_power), and still 0.61 for a
#: much smaller gap, 0.6 against 0.2.
ABLATION_RUNS = 3


@pytest.fixture(scope="module")
def figures() -> Results:
    return hp.run_all(RUNS, workers=2)


def test_the_replications_differ(figures: Results) -> None:
    goodputs = set(figures.values("goodput_bps", hp.policy("forward")))
    assert len(goodputs) == RUNS
    assert len(set(figures.values("handovers", hp.policy("forward")))) > 1


def test_forwarding_has_no_less_goodput_and_fewer_timeouts_than_discard(
    figures: Results,
) -> None:
    claims = hp.decide_claims(figures)
    # Measured 2026-12-03: forwarding times out at 6 of 139 handovers, discarding at 20
    # (Fisher p = 0.006, power 0.97). Since RACK's rule for lost retransmissions runs in fast
    # recovery (2026-12-02) it had been 12 against 17, not significant; the UE's PDCP status
    # report (the target no longer resends what the UE has) and go-back-N growing again after
    # a timeout (the application-limited fix) took forwarding's share down (docs/handover.md).
    assert claims.fewer_timeouts.verdict is Verdict.REPRODUCED, claims.fewer_timeouts.test
    assert claims.fewer_timeouts.test.effect < 0, claims.fewer_timeouts.test
    assert claims.no_less_goodput.verdict is Verdict.REPRODUCED, claims.no_less_goodput.test


def test_prediction_times_out_no_more_than_forwarding(figures: Results) -> None:
    d = hp.decide_claims(figures).predicted_no_more_timeouts
    assert d.verdict is Verdict.REPRODUCED, d.test.describe()
    assert d.test.power > 0.8


def test_every_drop_has_its_place(figures: Results) -> None:
    def per_run(metric: str, policy: str) -> list[float]:
        return list(figures.values(metric, hp.policy(policy)))

    # Discard loses the source's buffer at the source; forwarding loses nothing there, and the
    # source's own transport egress never overflows with forwarded data.
    discard = zip(
        per_run("dropped_source", "discard"), per_run("handovers", "discard"), strict=True
    )
    assert all(dropped > 0 for dropped, handovers in discard if handovers)
    for policy in ("forward", "predicted"):
        assert all(d == 0 for d in per_run("dropped_source", policy))
        assert all(d == 0 for d in per_run("dropped_source_egress", policy))


def test_discard_and_forward_time_out_by_different_mechanisms(
    figures: Results,
) -> None:
    # Every handover of discard's that times out has lost the source's buffer; forwarding's time
    # out after losing a few packets at the target or in its RLC buffer, never at the source.
    discard = hp.timeouts_by_place(figures, "discard")
    forward = hp.timeouts_by_place(figures, "forward")
    assert discard and all("source" in places.split("+") for places in discard)
    assert forward and not any("source" in places.split("+") for places in forward)
    assert sum(map(len, discard.values())) == figures.values("timeouts", hp.policy("discard")).sum()


def test_rto_expirations_per_run_are_secondary(figures: Results) -> None:
    # The per-run timer expirations are a descriptive figure: forward does not have fewer of
    # them than discard on this drive (2.33 against 2.04 a run at 24 replications), and the
    # registered claim 1 (per-handover shares) is decided without them.
    d = hp.fewer_rto_expirations(figures)
    assert d.verdict is not Verdict.REPRODUCED, d.test.describe()
    timeouts = figures.values("timeouts", hp.policy("forward"))
    expirations = figures.values("rto_expirations", hp.policy("forward"))
    assert all(e >= 1 for e, t in zip(expirations, timeouts, strict=True) if t)


def test_the_report_states_every_claim_with_its_test(figures: Results) -> None:
    text = hp.report(figures)
    claims, secondary = text.split("## Secondary, descriptive (not a registered claim)")
    secondary, tables = secondary.split("## drive: metrics per point")
    assert claims.count("**reproduced**") == 3
    assert claims.count("**not significant**") == 0
    assert "RTO expirations per run (secondary)" in tables
    assert secondary.count("**") == 2
    for phrase in ("Fisher's exact test", "one-sample t-test", "non-inferiority test"):
        assert phrase in text


def test_the_study_varies_the_policy_itself() -> None:
    with pytest.raises(ValueError, match="ran.handover.policy"):
        hp.run_all(1, workers=1, overrides=["ran.handover.policy=discard"])


def test_without_the_lost_retransmission_rule_discard_times_out_far_more() -> None:
    # The mechanism behind claim 1's change on 2026-12-02: the same replications with RACK's
    # rule off give back the timeouts of the TCP before the fix (0.81 of discard's handovers),
    # while forwarding, which loses only a few packets, is hardly affected.
    ablation = hp.run_all(
        ABLATION_RUNS,
        workers=2,
        overrides=[NO_LOST_RETRANSMISSION_RULE],
        policies=("discard", "forward"),
    )
    discard = hp.timeout_share(ablation, "discard")
    forward = hp.timeout_share(ablation, "forward")
    d = decide(fisher_test(forward, discard), "<")
    assert d.verdict is Verdict.REPRODUCED, d.test.describe()
    assert discard.value > 0.5 and forward.value < 0.25, (discard, forward)
    # Discard's timeouts lost the source's buffer and then retransmissions in the router's
    # queues; the rule off, nothing recovers those but the timer.
    places = hp.timeouts_by_place(ablation, "discard")
    assert max(places, key=lambda k: len(places[k])) == "source+transport", places
