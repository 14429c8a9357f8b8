"""Data-path policies on a drive: does forwarding the source's buffer over X2-U beat discarding
it, and does a predicted path switch add anything, for a TCP download in a car?

One UE drives at 60 km/h along four LTE cells 500 m apart
(``celltcp/examples/handover/drive-60kmh.toml``:
A3 handovers, Rayleigh fading and 8 dB shadowing, every other setting celltcp's default). Each
replication ``run`` draws its own fading and shadowing; the three policies of one replication
meet the same radio conditions (common random numbers), so goodput is compared run by run.

Claims, each decided by a stated test (:mod:`celltcp.reproduce.verdict`):

1. ``forward`` has fewer handovers that end in a retransmission timeout than ``discard``:
   Fisher's exact test on the per-handover timeout shares;
2. ``forward`` has no less goodput than ``discard``: the paired one-sample t-test of the
   per-run goodput differences (forward − discard) against 0, claiming it positive;
3. ``predicted`` has no more timeouts than ``forward``: non-inferiority of the per-handover
   timeout shares within +0.10 of probability (Newcombe interval at 90 %, one-sided 5 %).

``python -m celltcp.studies.handover_policies --runs 16`` prints the table (docs/handover.md,
"Data-path policies on a drive", gives the figures and the command's wall time).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from celltcp import examples
from celltcp.outputs import HANDOVER_DROP_PLACES
from celltcp.reproduce.verdict import (
    Decision,
    Proportion,
    Sample,
    decide,
    fisher_test,
    noninferiority,
    one_sample_test,
)

POLICIES = ("discard", "forward", "predicted")

#: Claim 3's margin: predicted may time out at most this much more often per handover than
#: forward (a tenth of discard's ~0.8) and still count as "no more".
TIMEOUT_MARGIN = 0.10

#: The drop columns of the handovers table, by place.
DROP_PLACES = tuple(f"dropped_{place}" for place in HANDOVER_DROP_PLACES)


def scenario_file() -> Path:
    """``handover/drive-60kmh.toml`` of the library shipped in the package
    (:mod:`celltcp.examples`)."""
    return examples.path("handover/drive-60kmh")


@dataclass(frozen=True)
class RunFigures:
    """One replication of one policy."""

    policy: str
    run: int
    handovers: int
    timeouts: int
    rto_retransmissions: int
    goodput_bps: float
    drops: dict[str, int] = field(default_factory=dict)


def run_one(policy: str, run: int, scenario: str | None = None) -> RunFigures:
    """Runs replication ``run`` under ``policy`` and reads its handovers and goodput."""
    import celltcp

    res = celltcp.run(
        scenario or str(scenario_file()), run=run, set=[f"ran.handover.policy={policy}"]
    )
    h = res.handovers
    return RunFigures(
        policy=policy,
        run=run,
        handovers=len(h),
        timeouts=int((h["outcome"] == "timeout").sum()),
        rto_retransmissions=int(h["rto_retransmissions"].sum()),
        goodput_bps=float(res.flows["goodput_bps"].iloc[0]),
        drops={c: int(h[c].sum()) for c in DROP_PLACES},
    )


def _run_args(args: tuple[str, int, str | None]) -> RunFigures:
    return run_one(*args)


def run_all(runs: int, workers: int = 2, scenario: str | None = None) -> list[RunFigures]:
    """Every policy × replications 0 … runs − 1, in that order (the same on any worker count)."""
    jobs = [(p, r, scenario) for p in POLICIES for r in range(runs)]
    if workers <= 1:
        return [_run_args(j) for j in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_run_args, jobs))


@dataclass(frozen=True)
class Claims:
    fewer_timeouts: Decision
    no_less_goodput: Decision
    predicted_no_more_timeouts: Decision


def _timeouts(figures: Sequence[RunFigures], policy: str) -> Proportion:
    rows = [f for f in figures if f.policy == policy]
    return Proportion(sum(f.timeouts for f in rows), sum(f.handovers for f in rows))


def _goodput(figures: Sequence[RunFigures], policy: str) -> np.ndarray:
    rows = sorted((f for f in figures if f.policy == policy), key=lambda f: f.run)
    return np.array([f.goodput_bps for f in rows])


def decide_claims(figures: Sequence[RunFigures]) -> Claims:
    """The three claims of the module documentation."""
    discard, forward = _timeouts(figures, "discard"), _timeouts(figures, "forward")
    predicted = _timeouts(figures, "predicted")
    paired = _goodput(figures, "forward") - _goodput(figures, "discard")
    return Claims(
        fewer_timeouts=decide(fisher_test(forward, discard), "<"),
        # Power for a true gain of 1 % of discard's goodput.
        no_less_goodput=decide(
            one_sample_test(
                paired, 0.0, effect=0.01 * float(np.mean(_goodput(figures, "discard")))
            ),
            ">",
        ),
        predicted_no_more_timeouts=noninferiority(predicted, forward, TIMEOUT_MARGIN),
    )


def report(figures: Sequence[RunFigures]) -> str:
    """The per-policy figures and the claims as Markdown."""
    lines = [
        "| policy | runs | handovers | timeouts per handover (95 % Wilson) | "
        "RTO retransmissions per run | goodput Mb/s (95 %) | "
        + " | ".join(p.removeprefix("dropped_") for p in DROP_PLACES)
        + " |",
        "|" + "---|" * (6 + len(DROP_PLACES)),
    ]
    for policy in POLICIES:
        rows = [f for f in figures if f.policy == policy]
        share = _timeouts(figures, policy)
        low, high = share.interval()
        g = Sample.of(_goodput(figures, policy) / 1e6)
        g_low, g_high = g.interval()
        rto = np.mean([f.rto_retransmissions for f in rows])
        drops = [np.mean([f.drops[p] for f in rows]) for p in DROP_PLACES]
        lines.append(
            f"| {policy} | {len(rows)} | {share.n} | {share.k}/{share.n} = "
            f"{share.value:.3f} [{low:.3f}, {high:.3f}] | {rto:.0f} | "
            f"{g.mean:.2f} [{g_low:.2f}, {g_high:.2f}] | "
            + " | ".join(f"{d:.1f}" for d in drops)
            + " |"
        )
    c = decide_claims(figures)
    lines += ["", "| claim | verdict | test |", "|---|---|---|"]
    for text, d in (
        ("forward: fewer timeouts than discard", c.fewer_timeouts),
        ("forward: no less goodput than discard (paired)", c.no_less_goodput),
        (
            f"predicted: no more timeouts than forward (margin {TIMEOUT_MARGIN})",
            c.predicted_no_more_timeouts,
        ),
    ):
        lines.append(f"| {text} | {d.text()} | {d.test.describe()} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m celltcp.studies.handover_policies", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--runs", type=int, default=16, help="replications per policy")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scenario", default=None, help="another drive scenario file")
    args = parser.parse_args(argv)
    started = time.monotonic()
    figures = run_all(args.runs, args.workers, args.scenario)
    print(report(figures))
    print(f"\n{len(figures)} runs in {time.monotonic() - started:.1f} s on {args.workers} workers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
