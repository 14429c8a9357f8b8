#!/usr/bin/env python3
"""ns-3 LENA benchmark: TCP bulk downloads to UEs in one or more LTE cells over the EPC.

    remote --100 Mb/s, 20 ms-- PGW --(S5)-- SGW --S1-U 1 Gb/s, 3 ms-- eNB c ))) UE 1..N of c

The wired part mirrors experiment 5-1 of the seed study 003 (and celltcp's wired chain):
the remote host reaches the P-GW over 100 Mb/s with 20 ms, every eNB reaches the S-GW over an
S1-U link of its own of 1 Gb/s with 3 ms. Each cell (LteHelper with a PointToPointEpcHelper):

  * one eNB, 10 MHz: 50 resource blocks in downlink and uplink (3GPP TS 36.101 Table 5.6-1),
    EARFCN 100 / 18100 (band 1), transmission mode 1 (SISO), ns-3's default powers (eNB 30 dBm,
    UE 10 dBm) and Friis path loss, no fading;
  * proportional fair MAC scheduler (PfFfMacScheduler);
  * every EPS bearer on RLC AM (3GPP TS 36.322 §5.1.3), RLC AM transmission buffer 1 MiB per
    bearer (``--rlc-buffer``; ns-3's default of 10 KiB is less than one bandwidth-delay
    product of this cell, so it would drop most of TCP's window at the eNB);
  * ideal RRC (ns-3's default), SRS periodicity 40 ms, or 80 ms above 40 UEs (ns-3 has 40 SRS
    configuration indices at 40 ms).

UE i (0-based, of N per cell) stands still at distance 500·sqrt((i + 0.5) / N) m from its
cell's eNB, at angle i·137.5° (a "sunflower" layout: uniform density over a 500 m disc, with no
random numbers); eNBs stand 30 m high, UEs 1.5 m.

``--cells C`` (1 to 3) builds C such cells, each with ``--ues`` UEs (so C × N UEs in all), as
in python/celltcp/examples/lte-bench-3cells.toml: the eNBs stand at (0, 0), (1000, 0) and (500, 866) m, a
triangle with 1 km sides, all on the same carrier; every UE is attached to its own cell's eNB
and stays there (no X2, ns-3's default no-op handover algorithm). The cells interfere with each
other through the shared spectrum channel as LENA simulates it: a cell's downlink sees what the
other eNBs actually send in each subframe (their control region over the whole band, data on
the resource blocks their schedulers allocated), its uplink the other cells' UEs. With one cell
the script builds exactly what it built before the option existed.

One BulkSend per UE on the remote host to a PacketSink on the UE, TCP NewReno with celltcp's
default settings (see tcp_bulk.py); the senders start at 0.1 s, once the ideal RRC has attached
every UE and set up its default bearer, and run to the end.

Defaults: 1 cell, 1 UE, 100 s. The cell-load case of the comparison is
``--ues 50 --duration 5``, the three-cell case ``--cells 3 --ues 5 --duration 5``.
Prints the median wall time of Simulator.Run() over the runs, the wall time per simulated
second, the peak resident memory of a run, and the goodput summed over the UEs (bytes delivered
to the sinks, times 8, divided by the time the senders were on); with more than one cell also
the goodput of each cell.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gap_probe
import harness
from tcp_bulk import RECOVERY, bulk_download, configure_tcp

START_S = 0.1
CELL_RADIUS_M = 500.0
# eNB sites (x, y) of python/celltcp/examples/lte-bench-3cells.toml, metres: a triangle with 1 km sides. The
# first is the single cell's eNB.
ENB_SITES_M = ((0.0, 0.0), (1000.0, 0.0), (500.0, 866.0))
ENB_HEIGHT_M = 30.0
UE_HEIGHT_M = 1.5
GOLDEN_ANGLE_RAD = math.pi * (3.0 - math.sqrt(5.0))  # 137.5°
# 3GPP TS 36.213 Table 8.2-1: the SRS periodicities ns-3 accepts, ms.
SRS_PERIODICITIES_MS = (2, 5, 10, 20, 40, 80, 160, 320)


def srs_periodicity_ms(ues: int) -> int:
    """Smallest SRS periodicity of at least ns-3's default (40 ms) that has an index per UE."""
    for p in SRS_PERIODICITIES_MS:
        if p >= 40 and p >= ues:
            return p
    raise ValueError(f"--ues: {ues} UEs exceed the {SRS_PERIODICITIES_MS[-1]} SRS indices")


def ue_positions(n: int, enb_x: float = 0.0, enb_y: float = 0.0) -> list[tuple]:
    """(x, y, z) in metres of the n UEs around the eNB at (enb_x, enb_y) (see the module doc)."""
    out = []
    for i in range(n):
        r = CELL_RADIUS_M * math.sqrt((i + 0.5) / n)
        a = i * GOLDEN_ANGLE_RAD
        out.append((enb_x + r * math.cos(a), enb_y + r * math.sin(a), UE_HEIGHT_M))
    return out


def configure_lte(ns: Any, args: Any) -> None:
    d = ns.Config.SetDefault
    d("ns3::LteEnbRrc::EpsBearerToRlcMapping", ns.StringValue("RlcAmAlways"))
    d("ns3::LteEnbRrc::SrsPeriodicity", ns.UintegerValue(srs_periodicity_ms(args.ues)))
    d("ns3::LteRlcAm::MaxTxBufferSize", ns.UintegerValue(args.rlc_buffer))
    d("ns3::PointToPointEpcHelper::S1uLinkDataRate", ns.DataRateValue(ns.DataRate("1Gbps")))
    d("ns3::PointToPointEpcHelper::S1uLinkDelay", ns.TimeValue(ns.MilliSeconds(3)))


def build(ns: Any, args: Any) -> harness.Collect:
    configure_tcp(ns, args.recovery)
    configure_lte(ns, args)

    lte = ns.CreateObject[ns.LteHelper]()
    epc = ns.CreateObject[ns.PointToPointEpcHelper]()
    lte.SetEpcHelper(epc)
    lte.SetSchedulerType("ns3::PfFfMacScheduler")
    lte.SetEnbDeviceAttribute("DlBandwidth", ns.UintegerValue(50))
    lte.SetEnbDeviceAttribute("UlBandwidth", ns.UintegerValue(50))

    # The remote host and its link to the P-GW.
    pgw = epc.GetPgwNode()
    remote_nodes = ns.NodeContainer()
    remote_nodes.Create(1)
    remote = remote_nodes.Get(0)
    stack = ns.InternetStackHelper()
    stack.Install(remote_nodes)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("100Mbps"))
    p2p.SetDeviceAttribute("Mtu", ns.UintegerValue(1500))
    p2p.SetChannelAttribute("Delay", ns.StringValue("20ms"))
    internet_devs = p2p.Install(pgw, remote)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("1.0.0.0"), ns.Ipv4Mask("255.0.0.0"))
    addr.Assign(internet_devs)
    routing = ns.Ipv4StaticRoutingHelper()
    remote_routes = routing.GetStaticRouting(remote.GetObject[ns.Ipv4]())
    # The EPC helper numbers UEs in 7.0.0.0/8; interface 1 is the link to the P-GW.
    remote_routes.AddNetworkRouteTo(ns.Ipv4Address("7.0.0.0"), ns.Ipv4Mask("255.0.0.0"), 1)

    # Cell c is eNB c with UEs c·N .. c·N + N − 1. The allocator hands out the eNB positions
    # first (the eNBs are installed first), then the UEs'.
    sites = ENB_SITES_M[: args.cells]
    n_ues = args.cells * args.ues
    enb_nodes = ns.NodeContainer()
    enb_nodes.Create(args.cells)
    ue_nodes = ns.NodeContainer()
    ue_nodes.Create(n_ues)
    positions = ns.ListPositionAllocator()
    for ex, ey in sites:
        positions.Add(ns.Vector(ex, ey, ENB_HEIGHT_M))
    for ex, ey in sites:
        for x, y, z in ue_positions(args.ues, ex, ey):
            positions.Add(ns.Vector(x, y, z))
    mobility = ns.MobilityHelper()
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mobility.SetPositionAllocator(positions)
    mobility.Install(enb_nodes)
    mobility.Install(ue_nodes)

    enb_devs = lte.InstallEnbDevice(enb_nodes)
    ue_devs = lte.InstallUeDevice(ue_nodes)
    stack.Install(ue_nodes)
    ue_ifaces = epc.AssignUeIpv4Address(ns.NetDeviceContainer(ue_devs))
    gateway = epc.GetUeDefaultGatewayAddress()
    for i in range(n_ues):
        ue_routes = routing.GetStaticRouting(ue_nodes.Get(i).GetObject[ns.Ipv4]())
        ue_routes.SetDefaultRoute(gateway, 1)
    # Each UE to its own cell's eNB (manual attachment, no cell selection).
    for c in range(args.cells):
        cell_ues = ns.NetDeviceContainer()
        for i in range(c * args.ues, (c + 1) * args.ues):
            cell_ues.Add(ue_devs.Get(i))
        lte.Attach(cell_ues, enb_devs.Get(c))

    sinks = [
        bulk_download(ns, remote, ue_nodes.Get(i), ue_ifaces.GetAddress(i), args.duration, START_S)
        for i in range(n_ues)
    ]

    # With `gap_traces` (lte_gap.py): LENA's statistics files (DlMacStats.txt, DlRlcStats.txt,
    # DlRsrpSinrStats.txt, ...) in the working directory, and the probes of gap_probe.py on the
    # first UE's download.
    probe = None
    if getattr(args, "gap_traces", False):
        lte.EnableTraces()
        probe = gap_probe.install(sinks[0], args.duration)

    def collect() -> dict:
        on_s = args.duration - START_S
        per_ue = [int(s.GetTotalRx()) * 8 / on_s / 1e6 for s in sinks]
        out = {
            "ues": n_ues,
            "goodput_mbps": sum(per_ue),
            "goodput_mbps_min_ue": min(per_ue),
            "goodput_mbps_max_ue": max(per_ue),
        }
        if args.cells > 1:
            # Added only with several cells, so that one cell's results keep their old form.
            out["cells"] = args.cells
            out["ues_per_cell"] = args.ues
            out["goodput_mbps_per_cell"] = [
                sum(per_ue[c * args.ues : (c + 1) * args.ues]) for c in range(args.cells)
            ]
        if probe is not None:
            out["gap"] = gap_probe.collect(probe)
        return out

    # The helpers must outlive the run: disposing the EPC helper (when Python drops its last
    # reference) disposes the P-GW, S-GW and MME nodes it created, devices and all.
    collect.helpers = (lte, epc)  # type: ignore[attr-defined]
    collect.probe = probe  # type: ignore[attr-defined]
    collect.remote = remote  # type: ignore[attr-defined]
    return collect


if __name__ == "__main__":
    parser = harness.make_parser(__doc__, duration_s=100.0)
    parser.add_argument(
        "--cells",
        type=int,
        default=1,
        help=f"cells, 1 to {len(ENB_SITES_M)}, placed as in python/celltcp/examples/lte-bench-3cells.toml "
        "(default 1)",
    )
    parser.add_argument("--ues", type=int, default=1, help="UEs per cell (default 1)")
    parser.add_argument(
        "--rlc-buffer",
        type=int,
        default=1 << 20,
        help="RLC AM transmission buffer per bearer, bytes (default 1048576)",
    )
    parser.add_argument(
        "--recovery",
        choices=sorted(RECOVERY),
        default="classic",
        help="ns-3 loss-recovery class (default classic, the closest to RFC 6675)",
    )
    a = parser.parse_args()
    if not 1 <= a.cells <= len(ENB_SITES_M):
        parser.error(f"--cells must be between 1 and {len(ENB_SITES_M)}")
    if a.ues < 1:
        parser.error("--ues must be at least 1")
    try:
        srs_periodicity_ms(a.ues)
    except ValueError as e:
        parser.error(str(e))
    if a.duration <= START_S:
        parser.error(f"--duration must exceed the senders' start, {START_S} s")
    headline = ["goodput_mbps", "goodput_mbps_min_ue", "goodput_mbps_max_ue"]
    if a.cells > 1:
        headline.append("goodput_mbps_per_cell")
    sys.exit(harness.main(parser, build, __file__, headline=headline))
