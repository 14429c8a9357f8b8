"""The wired path of python/celltcp/examples/wired-chain.toml and python/celltcp/examples/wired-chain-tcp.toml in ns-3.

    remote --100 Mb/s, 20 ms-- gateway --1 Gb/s, 3 ms-- enb --25 Mb/s, 5 ms-- ue

Every link is a PointToPointNetDevice pair. The scenario files give every direction of every
link a DropTail queue of 100 packets at its sender; ns-3 puts two queues in that place (the
traffic-control layer's queue disc, pfifo_fast of 1000 packets by default, above the device's
own DropTailQueue), so the queue discs are removed and the device queue is set to 100 packets:
one FIFO of 100 packets per direction, as in celltcp.

Without a queue disc, the traffic-control layer discards a packet when the device queue is full
(flow control has stopped it) instead of handing it to the device; ns-3.44 counts that drop
nowhere (neither the queue's counters nor a trace), so the access queue's drops are found as the
packets the eNB forwarded toward the UE minus those its access device queue accepted. The
forwarding is counted by a small C++ trace sink compiled through cppyy, so that no Python runs
per packet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# (name, rate, one-way propagation delay) of each hop, from the remote host to the UE, as in
# the TOML files' [links.internet], [links.backhaul] and [links.access].
HOPS = (
    ("internet", "100Mbps", "20ms"),
    ("backhaul", "1Gbps", "3ms"),
    ("access", "25Mbps", "5ms"),
)

# queue = { kind = "droptail", limit = "100p" } on every link.
QUEUE_LIMIT = "100p"


@dataclass
class WiredChain:
    """Handles to the built chain that the benchmarks need."""

    remote: Any
    ue: Any
    ue_address: Any
    # The eNB's device on the access link: its queue is the bottleneck queue toward the UE.
    access_enb_device: Any
    access_ue_device: Any
    # Counts the packets the eNB forwarded toward the UE (see the module's doc).
    enb_forwarded: Any


# A trace sink in C++: a Python callback would run in the interpreter for every packet.
_FORWARD_COUNTER_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
namespace celltcp_bench
{
class ForwardCounter : public ns3::SimpleRefCount<ForwardCounter>
{
  public:
    explicit ForwardCounter(ns3::Ipv4Address dst) : destination(dst) {}
    ns3::Ipv4Address destination;
    uint64_t packets = 0;
    void OnForward(const ns3::Ipv4Header& h, ns3::Ptr<const ns3::Packet>, uint32_t)
    {
        if (h.GetDestination() == destination)
        {
            ++packets;
        }
    }
};

ns3::Ptr<ForwardCounter>
CountForwardedTo(ns3::Ptr<ns3::Node> node, ns3::Ipv4Address destination)
{
    auto counter = ns3::Create<ForwardCounter>(destination);
    node->GetObject<ns3::Ipv4L3Protocol>()->TraceConnectWithoutContext(
        "UnicastForward", ns3::MakeCallback(&ForwardCounter::OnForward, counter));
    return counter;
}
} // namespace celltcp_bench
"""


def count_forwarded_to(ns: Any, node: Any, destination: Any) -> Any:
    """Counts the IPv4 packets ``node`` forwards to ``destination``; read ``.packets``."""
    import cppyy

    if not hasattr(cppyy.gbl, "celltcp_bench"):
        cppyy.cppdef(_FORWARD_COUNTER_CPP)
    return cppyy.gbl.celltcp_bench.CountForwardedTo(node, destination)


def build_chain(ns: Any, access_loss: float | None = None) -> WiredChain:
    """Creates the four nodes, the three links, IPv4 addresses and global routes.

    ``access_loss`` is the per-packet loss probability on the access link toward the UE
    (``[links.access.a_to_b] loss = { kind = "bernoulli", p = … }``), modelled by a
    RateErrorModel in packet units on the UE device's receive side; ``None`` for no loss.
    """
    # Device queues of 100 packets (ns-3's default too, set here so that the value is explicit).
    ns.Config.SetDefault("ns3::DropTailQueue<Packet>::MaxSize", ns.StringValue(QUEUE_LIMIT))

    nodes = ns.NodeContainer()
    nodes.Create(len(HOPS) + 1)  # remote, gateway, enb, ue
    stack = ns.InternetStackHelper()
    stack.Install(nodes)

    addresses = ns.Ipv4AddressHelper()
    tc = ns.TrafficControlHelper()
    devices = []
    ue_iface = None
    for i, (_, rate, delay) in enumerate(HOPS):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
        devs = p2p.Install(nodes.Get(i), nodes.Get(i + 1))
        addresses.SetBase(ns.Ipv4Address(f"10.1.{i + 1}.0"), ns.Ipv4Mask("255.255.255.0"))
        iface = addresses.Assign(devs)
        # Assign() installed pfifo_fast on both devices; removing it leaves the device's own
        # DropTailQueue as the only queue of each direction.
        tc.Uninstall(devs)
        devices.append(devs)
        ue_iface = iface
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    access = devices[-1]
    if access_loss is not None:
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
        em.SetAttribute("ErrorRate", ns.DoubleValue(access_loss))
        access.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))

    return WiredChain(
        remote=nodes.Get(0),
        ue=nodes.Get(len(HOPS)),
        ue_address=ue_iface.GetAddress(1),
        access_enb_device=access.Get(0),
        access_ue_device=access.Get(1),
        enb_forwarded=count_forwarded_to(ns, nodes.Get(len(HOPS) - 1), ue_iface.GetAddress(1)),
    )


def access_queue_stats(ns: Any, chain: WiredChain) -> dict:
    """Packets queued toward the UE on the access link and packets dropped by a full queue.

    A packet forwarded by the eNB reaches the device queue in the same event, so at the end of
    the run every forwarded packet has either been accepted by the queue or dropped.
    """
    p2p = ns.DynamicCast[ns.PointToPointNetDevice](chain.access_enb_device)
    q = p2p.GetQueue()
    accepted = int(q.GetTotalReceivedPackets()) - int(q.GetTotalDroppedPackets())
    return {
        "access_packets_enqueued": accepted,
        "access_queue_drops": int(chain.enb_forwarded.packets) - accepted,
    }
