"""Runs experiments 5-1 and 5-2 of seed `003_…` at the seed's length (100 s) and prints the
tables of docs/seed-003.md (Markdown), each figure the median over master seeds.

    python reproduce.py            # everything, about 5 min (release)
    python reproduce.py --only 5-1 --seeds 3
    python reproduce.py --only 5-2 --errors s1u --errors ue

Figures as in ns-3's FlowMonitor, per flow: throughput = IP bytes delivered · 8 / 100 s
(Mb/s), mean one-way delay (ms), jitter = mean |D_i − D_{i−1}| over consecutive delivered
packets (ms), loss = dropped / (delivered + dropped) (%). The error rates are the seed's,
per byte as ns-3's RateErrorModel applies them; exp5-1.toml explains the conversion.
Experiment 5-2 is run with its errors on S1-U (the file's setting), at the UEs' receivers
(`downlink_loss`, where ns-3 applied them) and without errors.

This script keeps the set-up of docs/seed-003.md's "celltcp's default TCP" tables: 1448-byte
segments with timestamps (1500-byte packets) and Westwood+ as TCPW, SACK on and off in
experiment 5-1 and on in 5-2. The scenario files themselves now run ns-3.19's TCP (536-byte
segments, no SACK, the original Westwood), which `celltcp reproduce 003` measures.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np

import celltcp

HERE = Path(__file__).resolve().parent
CONTROLLERS = ("newreno", "westwood", "petra")
BASE_RATE = 5e-5
SWEEP_RATES = (7.5e-5, 9e-5, 1e-4, 2.5e-4, 5e-4)
FLOWS_5_2 = [f"f{i:02d}" for i in range(1, 16)]


def ber_for_byte_error_rate(rate: float) -> float:
    """Per-bit rate losing a packet as often as `rate` per byte: 1 − (1 − r)^(1/8)."""
    return float(1.0 - (1.0 - rate) ** (1.0 / 8.0))


def flow_figures(result: celltcp.RunResult, flow: str) -> dict[str, float]:
    """Throughput (Mb/s), delay (ms), jitter (ms) and loss (%) of one flow."""
    summary = result.summary["flows"][flow]
    packets = result.series["packets"]
    delays = packets.loc[packets["flow"] == flow, "delay_ns"].to_numpy(dtype=np.int64)
    jitter_ms = float(np.abs(np.diff(delays)).mean()) * 1e-6 if len(delays) > 1 else float("nan")
    return {
        "thr": _value(summary["throughput_bps"]) / 1e6,
        "delay": _value(summary["delay_mean_s"]) * 1e3,
        "jitter": jitter_ms,
        "loss": _value(summary["loss_ratio"]) * 100.0,
    }


def _value(figure: float | None) -> float:
    """A summary figure, NaN where the summary has none (null)."""
    return float("nan") if figure is None else figure


def medians(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def exp_5_1(cc: str, rate: float, sack: bool, seeds: int) -> dict[str, float]:
    overrides = {
        "flows.bulk.cc": cc,
        "links.access.a_to_b.loss.ber": f"{ber_for_byte_error_rate(rate):e}",
        "flows.bulk.tcp.sack": sack,
        "flows.bulk.tcp.mss": "1448B",
        "flows.bulk.tcp.timestamps": True,
    }
    runs = [
        flow_figures(celltcp.run(HERE / "exp5-1.toml", seed=s, set=overrides), "bulk")
        for s in range(1, seeds + 1)
    ]
    return medians(runs)


#: Where experiment 5-2's errors are applied: on S1-U towards each eNB (the file's setting), at
#: each UE's receiver on what its cell delivered (`downlink_loss`, where ns-3 applied them), or
#: nowhere.
ERRORS_5_2 = ("s1u", "ue", "none")


def exp_5_2(cc: str, errors: str, seeds: int) -> tuple[list[dict[str, float]], float]:
    """Per-flow medians and the median of the per-run Jain index."""
    overrides: dict[str, object] = {f"flows.{f}.cc": cc for f in FLOWS_5_2}
    overrides.update({f"flows.{f}.tcp": "{}" for f in FLOWS_5_2})  # celltcp's default TCP
    if errors != "s1u":
        overrides.update({f"links.s1u{c}.a_to_b": "{}" for c in (1, 2, 3)})
    if errors == "ue":
        ber = ber_for_byte_error_rate(BASE_RATE)
        overrides.update(
            {
                f"cells.cell{c}.downlink_loss": f'{{ kind = "ber", ber = {ber:e} }}'
                for c in (1, 2, 3)
            }
        )
    per_run: list[list[dict[str, float]]] = []
    jain: list[float] = []
    for s in range(1, seeds + 1):
        result = celltcp.run(HERE / "exp5-2.toml", seed=s, set=overrides)
        figures = [flow_figures(result, f) for f in FLOWS_5_2]
        thr = np.array([f["thr"] for f in figures])
        jain.append(float(thr.sum() ** 2 / (len(thr) * (thr**2).sum())))
        per_run.append(figures)
    per_flow = [medians([run[i] for run in per_run]) for i in range(len(FLOWS_5_2))]
    return per_flow, statistics.median(jain)


def row(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def fmt(f: dict[str, float]) -> list[str]:
    return [
        f"{f['thr']:.3f}",
        f"{f['delay']:.2f}",
        f"{f['jitter']:.3f}",
        f"{f['loss']:.2f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="master seeds 1..N (default 5)")
    parser.add_argument("--only", choices=("5-1", "5-2"), help="run one experiment")
    parser.add_argument(
        "--errors",
        choices=ERRORS_5_2,
        action="append",
        help="experiment 5-2: only these error placements (repeatable)",
    )
    args = parser.parse_args()

    if args.only in (None, "5-1"):
        print(f"## Experiment 5-1, 100 s, medians of seeds 1–{args.seeds}\n")
        print(row("error rate", "TCP", "SACK", "Mb/s", "delay ms", "jitter ms", "loss %"))
        print(row(*["---"] * 7))
        for rate in (BASE_RATE, *SWEEP_RATES):
            for sack in (True, False):
                for cc in CONTROLLERS:
                    f = exp_5_1(cc, rate, sack, args.seeds)
                    print(
                        row(f"{rate:g}", cc, "on" if sack else "off", *fmt(f)),
                        flush=True,
                    )
        print()

    if args.only in (None, "5-2"):
        seeds = min(args.seeds, 3)
        print(f"## Experiment 5-2, 100 s, medians of seeds 1–{seeds}\n")
        print(
            row(
                "errors",
                "TCP",
                "total Mb/s",
                "per flow Mb/s (min–max)",
                "delay ms",
                "jitter ms",
                "loss %",
                "Jain",
            )
        )
        print(row(*["---"] * 8))
        for errors in args.errors or ERRORS_5_2:
            for cc in CONTROLLERS:
                per_flow, jain = exp_5_2(cc, errors, seeds)
                thr = [f["thr"] for f in per_flow]
                mean = {k: statistics.fmean(f[k] for f in per_flow) for k in per_flow[0]}
                print(
                    row(
                        {"s1u": "5e-5 on S1-U", "ue": "5e-5 at the UEs", "none": "none"}[errors],
                        cc,
                        f"{sum(thr):.2f}",
                        f"{min(thr):.2f}–{max(thr):.2f}",
                        f"{mean['delay']:.2f}",
                        f"{mean['jitter']:.3f}",
                        f"{mean['loss']:.2f}",
                        f"{jain:.5f}",
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
