"""The data-path policies on a drive (celltcp.studies.handover_policies; docs/handover.md):
forwarding beats discarding in timeouts and goodput, and a predicted path switch times out no
more often than forwarding, over replications that differ (fading and shadowing)."""

from __future__ import annotations

import pytest

from celltcp.reproduce.verdict import Verdict
from celltcp.studies import handover_policies as hp

#: Replications per policy: 72 runs of 90 s, about 90 s on two workers. The non-inferiority
#: test has power above 0.8 at this size for equal shares (docs/handover.md).
RUNS = 24


@pytest.fixture(scope="module")
def figures() -> list[hp.RunFigures]:
    return hp.run_all(RUNS, workers=2)


def test_the_replications_differ(figures: list[hp.RunFigures]) -> None:
    goodputs = {f.goodput_bps for f in figures if f.policy == "forward"}
    assert len(goodputs) == RUNS
    assert len({f.handovers for f in figures if f.policy == "forward"}) > 1


def test_forwarding_has_fewer_timeouts_and_no_less_goodput_than_discard(
    figures: list[hp.RunFigures],
) -> None:
    claims = hp.decide_claims(figures)
    assert claims.fewer_timeouts.verdict is Verdict.REPRODUCED, claims.fewer_timeouts.test
    assert claims.no_less_goodput.verdict is Verdict.REPRODUCED, claims.no_less_goodput.test


def test_prediction_times_out_no_more_than_forwarding(figures: list[hp.RunFigures]) -> None:
    d = hp.decide_claims(figures).predicted_no_more_timeouts
    assert d.verdict is Verdict.REPRODUCED, d.test.describe()
    assert d.test.power > 0.8


def test_every_drop_has_its_place(figures: list[hp.RunFigures]) -> None:
    by = {p: [f for f in figures if f.policy == p] for p in hp.POLICIES}
    # Discard loses the source's buffer at the source; forwarding loses nothing there, and the
    # source's own transport egress never overflows with forwarded data.
    assert all(f.drops["dropped_source"] > 0 for f in by["discard"] if f.handovers)
    for policy in ("forward", "predicted"):
        assert all(f.drops["dropped_source"] == 0 for f in by[policy])
        assert all(f.drops["dropped_source_egress"] == 0 for f in by[policy])


def test_the_report_states_every_claim_with_its_test(figures: list[hp.RunFigures]) -> None:
    text = hp.report(figures)
    assert text.count("**reproduced**") == 3
    for phrase in ("Fisher's exact test", "one-sample t-test", "non-inferiority test"):
        assert phrase in text
