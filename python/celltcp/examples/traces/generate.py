#!/usr/bin/env python3
"""Writes the example delivery traces of this directory (Mahimahi format).

Each line of a trace is a delivery opportunity for an MTU-sized packet (1500 bytes of IP; with
Mahimahi's byte accounting, 1504 bytes shared by as many packets as fit), as an integer
millisecond timestamp; repeated timestamps are several opportunities in that millisecond. One
opportunity per millisecond is 1500 * 8 * 1000 = 12 Mb/s.

    python3 generate.py

const-12mbps.trace  one opportunity every millisecond, 1 ms ... 1000 ms (12 Mb/s, repeats each second)
drive.trace         a synthetic 10 s drive: piecewise-constant rates from 3 to 36 Mb/s and three
                    outages, each a 200 ms interval between consecutive opportunities
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent

# (first ms, last ms, opportunities per step, step ms): lines at first, first + step, ... <= last.
DRIVE = [
    (1, 2000, 2, 1),  # 24 Mb/s
    # no opportunity in 2001..2199 ms: 200 ms from 2000 to 2200
    (2200, 4000, 1, 2),  # 6 Mb/s
    (4001, 5000, 1, 1),  # 12 Mb/s
    # 200 ms from 5000 to 5200
    (5200, 7000, 3, 1),  # 36 Mb/s
    (7004, 9000, 1, 4),  # 3 Mb/s
    # 200 ms from 9000 to 9200
    (9200, 10000, 1, 1),  # 12 Mb/s
]


def lines(segments: list[tuple[int, int, int, int]]) -> list[int]:
    out: list[int] = []
    for first, last, per_step, step in segments:
        for t in range(first, last + 1, step):
            out.extend([t] * per_step)
    return out


def write(name: str, timestamps: list[int]) -> None:
    assert timestamps == sorted(timestamps) and timestamps[-1] > 0
    (HERE / name).write_text("".join(f"{t}\n" for t in timestamps))


if __name__ == "__main__":
    write("const-12mbps.trace", list(range(1, 1001)))
    write("drive.trace", lines(DRIVE))
