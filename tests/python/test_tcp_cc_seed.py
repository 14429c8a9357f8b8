"""A controller's own random draws are per connection and per replication: BBR starts ProbeBW
at a random phase of its gain cycle (Linux's ``bbr_reset_probe_bw_mode``), so its replications
of the same scenario differ, as the kernel's runs do, and a run repeats exactly.

Every BBR flow once drew its phase from one fixed seed: all replications of a study, and all
BBR flows of a run, probed in lock-step. Over the validation path's 100 ms discarding handover
(docs/validation.md) that fixed phase happened to be one that fills the window into the
interruption and times out, where the kernel's three runs halved; 13 of 16 replications halve.
"""

from __future__ import annotations

from collections import Counter

import celltcp
from celltcp import examples


def _discard_handover(run: int) -> tuple[str, float]:
    flow = (
        'flows.bulk={kind="tcp", src="server", dst="ue", cc="bbr", '
        'app={kind="bulk", bytes="6000000B"}}'
    )
    handover = (
        'events=[{at="3s", link="wired", direction="a_to_b", '
        'handover={interruption="100ms", policy="discard"}}]'
    )
    r = celltcp.run(examples.path("emulation/path-10m-50ms"), run=run, set=[flow, handover])
    return r.handovers.iloc[0]["outcome"], r.summary["flows"]["bulk"]["sender"]["transfer_time_s"]


def test_bbr_replications_draw_their_own_probe_bw_phase_and_a_run_repeats():
    results = [_discard_handover(run) for run in range(8)]
    assert len({t for _, t in results}) > 1, results
    outcomes = Counter(o for o, _ in results)
    assert outcomes["halving"] >= 4, outcomes
    assert _discard_handover(3) == results[3]
