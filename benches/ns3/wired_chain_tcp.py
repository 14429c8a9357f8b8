#!/usr/bin/env python3
"""ns-3 counterpart of python/celltcp/examples/wired-chain-tcp.toml: a TCP NewReno bulk download.

    remote --100 Mb/s, 20 ms-- gateway --1 Gb/s, 3 ms-- enb --25 Mb/s, 5 ms-- ue

BulkSend on the remote host to a PacketSink on the UE, 30 s simulated, packet loss probability
1e-4 on the access link toward the UE. TCP settings: celltcp's defaults (see tcp_bulk.py);
``--recovery prr`` selects ns-3's default loss recovery (PRR) instead of the classic one.

Prints the median wall time of Simulator.Run() over 3 runs (each in its own process) and the
goodput: bytes delivered to the sink's application, times 8, divided by the simulated time.
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness
from tcp_bulk import RECOVERY, bulk_download, configure_tcp
from wired_chain import access_queue_stats, build_chain

# [links.access.a_to_b] loss = { kind = "bernoulli", p = 1e-4 }
ACCESS_LOSS = 1e-4


def build(ns: Any, args: Any) -> harness.Collect:
    configure_tcp(ns, args.recovery)
    chain = build_chain(ns, access_loss=ACCESS_LOSS)
    sink = bulk_download(ns, chain.remote, chain.ue, chain.ue_address, args.duration)

    def collect() -> dict:
        rx_bytes = int(sink.GetTotalRx())
        return {
            "goodput_mbps": rx_bytes * 8 / args.duration / 1e6,
            "bytes_delivered": rx_bytes,
            **access_queue_stats(ns, chain),
        }

    return collect


if __name__ == "__main__":
    parser = harness.make_parser(__doc__, duration_s=30.0)
    parser.add_argument(
        "--recovery",
        choices=sorted(RECOVERY),
        default="classic",
        help="ns-3 loss-recovery class (default classic, the closest to RFC 6675)",
    )
    sys.exit(
        harness.main(
            parser,
            build,
            __file__,
            headline=["goodput_mbps", "access_packets_enqueued", "access_queue_drops"],
        )
    )
