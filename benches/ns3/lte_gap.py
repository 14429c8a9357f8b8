"""Where ns-3 LENA's one-UE goodput falls short of celltcp's: one run of the one-UE scenario of
`lte_bulk.py` (python/celltcp/examples/lte-bench-1ue.toml) with LENA's statistics files and trace probes on
the download (gap_probe.py), written as JSON; docs/benchmarks.md ("LTE") reads them beside a
celltcp run of the same scenario with its cell and TCP traces.

    cd OUTDIR && /work/ns3-venv/bin/python /work/main/benches/ns3/lte_gap.py --duration 20 \\
        --out gap.json [--status-prohibit-ms 100]

Runs in one process, without `harness.py`'s children: the simulation runs to just after the
sender opened its socket (0.1 s), the probes are connected between the two Run() segments,
and LENA's files (DlMacStats.txt, DlRlcStats.txt, ...) land in the working directory.
`--status-prohibit-ms` sets LteRlcAm's t-StatusProhibit (ns-3's default 10 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gap_probe
import lte_bulk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0, help="simulated s (default 20)")
    parser.add_argument("--out", required=True, help="JSON file to write")
    parser.add_argument(
        "--status-prohibit-ms",
        type=int,
        help="LteRlcAm::StatusProhibitTimer, ms (default ns-3's 10)",
    )
    args = parser.parse_args()
    if args.duration <= lte_bulk.START_S + 0.001:
        parser.error(f"--duration must exceed {lte_bulk.START_S} s")

    from ns import ns

    simulator = ns.Simulator  # resolved (and its proxy built) before anything else
    gap_probe.compile_sinks()
    if args.status_prohibit_ms is not None:
        ns.Config.SetDefault(
            "ns3::LteRlcAm::StatusProhibitTimer",
            ns.TimeValue(ns.MilliSeconds(args.status_prohibit_ms)),
        )
    build_args = argparse.Namespace(
        cells=1,
        ues=1,
        rlc_buffer=1 << 20,
        recovery="classic",
        duration=args.duration,
        gap_traces=True,
        seed=1,
        rng_run=1,
    )
    collect = lte_bulk.build(ns, build_args)
    started = time.perf_counter()
    connect_at = lte_bulk.START_S + 0.0001
    simulator.Stop(ns.Seconds(connect_at))
    simulator.Run()
    gap_probe.connect(collect.probe, collect.remote)
    simulator.Stop(ns.Seconds(args.duration - connect_at))
    simulator.Run()
    result = collect()
    result["wall_s"] = time.perf_counter() - started
    result["status_prohibit_ms"] = args.status_prohibit_ms
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    simulator.Destroy()
    print(f"goodput {result['goodput_mbps']:.2f} Mb/s; {args.out} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
