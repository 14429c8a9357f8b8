"""Seed 000, Table IV: which set-up choice moves the Drop Tail drop rates of the router's links.

Table III gives the AQM experiment's queues but neither the TCP windows nor the start times of
the seven downloads; `aqm.toml` takes Table II's cwndMAX (64 KB) and starts every download at
0 s. This script runs Drop Tail on both router links with those two choices changed, one at a
time and together, and prints the drop rate of each link (drops / offered, %, mean of the runs):

    python table4_ablation.py [--runs 4]

docs/seed-000.md ("Table IV's absolute rates") quotes its output.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import celltcp

AQM = Path(__file__).with_name("aqm.toml")
FLOWS = ["ue_ref", "ue_s1", "ue_s2", "ue_s3", "ue_t1", "ue_t2", "ue_t3"]
DROP_TAIL = '{ kind = "droptail", limit = "90p" }'
LINKS = ("s1u_source", "s1u_target")

VARIANTS: dict[str, list[str]] = {
    "aqm.toml (64 KB windows, all start at 0 s)": [],
    "windows not limited (1 MB)": [f"flows.{f}.tcp.rcv_buf=1MB" for f in FLOWS],
    "starts staggered (source UEs 0.5 s apart, target UEs 0.25 s after)": [
        f"flows.ue_s{i}.start={0.5 * i}s" for i in (1, 2, 3)
    ]
    + [f"flows.ue_t{i}.start={0.5 * i + 0.25}s" for i in (1, 2, 3)],
}
VARIANTS["both"] = (
    VARIANTS["windows not limited (1 MB)"]
    + VARIANTS["starts staggered (source UEs 0.5 s apart, target UEs 0.25 s after)"]
)


def drop_rates(overrides: list[str], runs: int) -> np.ndarray:
    """Mean drop rate (%) of the router → source and router → target queues."""
    rows = []
    for run in range(runs):
        res = celltcp.run(
            AQM, run=run, set=[f"links.{link}.queue={DROP_TAIL}" for link in LINKS] + overrides
        )
        rate = []
        for link in LINKS:
            d = res.summary["links"][link]["a_to_b"]
            drops = sum(n for n in d["drops"].values() if isinstance(n, int))
            rate.append(100.0 * drops / (d["packets_sent"] + drops))
        rows.append(rate)
    return np.asarray(np.mean(rows, axis=0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    print("| variant | source % | target % |\n|---|---|---|")
    print("| seed's Table IV (Drop Tail) | 2.2 | 3.9 |")
    for name, overrides in VARIANTS.items():
        source, target = drop_rates(overrides, args.runs)
        print(f"| {name} | {source:.2f} | {target:.2f} |")


if __name__ == "__main__":
    main()
