"""TCP settings and the bulk-download application shared by the TCP benchmarks.

The TCP settings are celltcp's defaults (crates/tcp/src/config.rs, crates/scenario/src/config/
tcp.rs), set through ns-3 attributes where ns-3's defaults differ:

  MSS 1448 B (1500-byte IP packets with the 12-byte timestamps option), initial window 10
  segments (RFC 6928), SACK (RFC 2018) and timestamps (RFC 7323) on, window scaling on,
  send and receive buffers 4 MiB, delayed ACK every 2nd segment or after 40 ms (ns-3: 200 ms),
  minimum RTO 200 ms (ns-3: 1 s), initial RTO 1 s also for the SYN (RFC 6298 (2.1); ns-3's
  SYN timeout: 3 s), clock granularity 1 ms,
  limited transmit (RFC 3042) on, DupThresh 3.

Recovery: celltcp's NewReno recovers by RFC 6675 (SACK) with cwnd = ssthresh during recovery;
ns-3's closest is TcpClassicRecovery (ns-3's default is PRR, RFC 6937).

Known difference that remains: in congestion avoidance ns-3's TcpNewReno was measured to grow
cwnd by about half an MSS per RTT with delayed ACKs (MSS·MSS/cwnd per ACK, each ACK covering two
segments), while celltcp counts the bytes acknowledged (RFC 3465, L = 2): one MSS per RTT.
"""

from __future__ import annotations

from typing import Any

SINK_PORT = 50000
RECOVERY = {"classic": "ns3::TcpClassicRecovery", "prr": "ns3::TcpPrrRecovery"}


def configure_tcp(ns: Any, recovery: str) -> None:
    """Sets every TCP socket's defaults to celltcp's TcpConfig::default()."""
    d = ns.Config.SetDefault
    d("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    d("ns3::TcpL4Protocol::RecoveryType", ns.StringValue(RECOVERY[recovery]))
    d("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    d("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(10))
    d("ns3::TcpSocket::SndBufSize", ns.UintegerValue(4 << 20))
    d("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(4 << 20))
    # RFC 5681 §4.2: an ACK for at least every second full-sized segment, and within 500 ms.
    d("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    d("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.MilliSeconds(40)))
    d("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    d("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(True))
    d("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    d("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(True))
    d("ns3::TcpSocketBase::ReTxThreshold", ns.UintegerValue(3))
    # RFC 6298 (2.4) allows a lower bound below 1 s; celltcp follows Linux's 200 ms.
    d("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))
    d("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.MilliSeconds(1)))
    # RFC 6298 (2.1): RTO = 1 s before the first RTT sample, the SYN's included (ns-3: 3 s).
    d("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(1)))
    d("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(1)))


def bulk_download(
    ns: Any, remote: Any, ue: Any, ue_address: Any, duration_s: float, start_s: float = 0.0
) -> Any:
    """BulkSend (unlimited bytes) from ``remote`` to a PacketSink on ``ue``; returns the sink.

    The sender starts at ``start_s`` and stops at ``duration_s`` (seconds of simulated time).
    """
    sink_helper = ns.PacketSinkHelper(
        "ns3::TcpSocketFactory",
        ns.InetSocketAddress(ns.Ipv4Address.GetAny(), SINK_PORT).ConvertTo(),
    )
    sink_apps = sink_helper.Install(ue)
    sink_apps.Start(ns.Seconds(0))

    src = ns.BulkSendHelper(
        "ns3::TcpSocketFactory", ns.InetSocketAddress(ue_address, SINK_PORT).ConvertTo()
    )
    src.SetAttribute("MaxBytes", ns.UintegerValue(0))  # 0: no limit
    src_apps = src.Install(remote)
    src_apps.Start(ns.Seconds(start_s))
    src_apps.Stop(ns.Seconds(duration_s))
    return ns.DynamicCast[ns.PacketSink](sink_apps.Get(0))
