#!/usr/bin/env python3
"""ns-3 counterpart of python/celltcp/examples/wired-chain.toml: a 20 Mb/s constant-bit-rate UDP stream.

    remote --100 Mb/s, 20 ms-- gateway --1 Gb/s, 3 ms-- enb --25 Mb/s, 5 ms-- ue

A UdpClient on the remote host sends 1400-byte datagrams (UDP payload, as celltcp's
packet_size) every 1400·8 / 20e6 s = 560 us from t = 0 for 30 s, to a UdpServer on the UE;
no loss model. (The client's 12-byte sequence/timestamp header is part of the 1400 payload
bytes, so the packets on the wire have celltcp's sizes.)

Prints the median wall time of Simulator.Run() over 3 runs (each in its own process) and the
goodput: payload bytes received by the server, times 8, divided by the simulated time.
"""

from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness
from wired_chain import access_queue_stats, build_chain

# [flows.video] rate = "20Mbps", packet_size = "1400B", arrival = "cbr"
RATE_BPS = 20_000_000
PAYLOAD_BYTES = 1400
SERVER_PORT = 50000


def cbr_stream(ns: Any, remote: Any, ue: Any, ue_address: Any, duration_s: float) -> Any:
    """UdpClient on ``remote`` sending CBR to a UdpServer on ``ue``; returns the server."""
    server_apps = ns.UdpServerHelper(SERVER_PORT).Install(ue)
    server_apps.Start(ns.Seconds(0))

    client = ns.UdpClientHelper(ue_address.ConvertTo(), SERVER_PORT)
    # Integer nanoseconds, as celltcp's SimDuration::transmission: 1400·8·1e9 / 20e6 = 560000.
    gap_ns = PAYLOAD_BYTES * 8 * 1_000_000_000 // RATE_BPS
    client.SetAttribute("Interval", ns.TimeValue(ns.NanoSeconds(gap_ns)))
    client.SetAttribute("PacketSize", ns.UintegerValue(PAYLOAD_BYTES))
    client.SetAttribute("MaxPackets", ns.UintegerValue(0))  # 0: no limit
    client_apps = client.Install(remote)
    client_apps.Start(ns.Seconds(0))
    client_apps.Stop(ns.Seconds(duration_s))
    return ns.DynamicCast[ns.UdpServer](server_apps.Get(0))


def build(ns: Any, args: Any) -> harness.Collect:
    chain = build_chain(ns, access_loss=None)
    server = cbr_stream(ns, chain.remote, chain.ue, chain.ue_address, args.duration)

    def collect() -> dict:
        received = int(server.GetReceived())
        return {
            "goodput_mbps": received * PAYLOAD_BYTES * 8 / args.duration / 1e6,
            "packets_received": received,
            "packets_lost": int(server.GetLost()),
            **access_queue_stats(ns, chain),
        }

    return collect


if __name__ == "__main__":
    parser = harness.make_parser(__doc__, duration_s=30.0)
    sys.exit(
        harness.main(
            parser,
            build,
            __file__,
            headline=["goodput_mbps", "packets_received", "access_queue_drops"],
        )
    )
