"""C++ trace sinks for the one-UE goodput comparison of ns-3 LENA with celltcp
(`lte_gap.py`, docs/benchmarks.md "LTE").

Collects, without Python code during Simulator.Run():
  * TCP sender (remote host): cwnd and srtt (last value per 100 ms bin), congestion-state
    transitions (to CA_RECOVERY = fast retransmit, to CA_LOSS = RTO), retransmitted segments;
  * eNB RLC AM TxDrop (SDUs refused by the full 1 MiB transmission buffer);
  * PacketSink received bytes per 100 ms bin.
"""

from __future__ import annotations

from typing import Any

BIN_S = 0.1

_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include <vector>
#include <string>
namespace gap_probe
{
class Probe : public ns3::SimpleRefCount<Probe>
{
  public:
    explicit Probe(double binS, uint32_t nBins) : bin(binS),
        rxBytes(nBins, 0), cwnd(nBins, 0), srttMs(nBins, 0.0), inflight(nBins, 0) {}
    double bin;
    std::vector<uint64_t> rxBytes;
    std::vector<uint32_t> cwnd;
    std::vector<double> srttMs;
    std::vector<uint32_t> inflight;
    uint32_t curCwnd = 0;
    uint32_t maxCwnd = 0;
    uint64_t rlcDrops = 0;
    uint64_t rlcDropBytes = 0;
    uint64_t retx = 0;
    uint64_t toRecovery = 0;
    uint64_t toLoss = 0;
    std::vector<double> recoveryTimes;
    std::vector<double> lossTimes;
    std::vector<double> firstDropTimes;
    uint64_t pduSmall = 0;      // RLC PDUs of at most 64 bytes (STATUS PDUs)
    uint64_t pduSmallBytes = 0;
    uint64_t pduData = 0;
    uint64_t pduDataBytes = 0;
    uint64_t pduFull = 0;       // PDUs that filled a 4395-byte TB
    std::vector<uint64_t> pduSizeHist = std::vector<uint64_t>(46, 0); // 100-byte classes
    // Calls every sink once so that Cling compiles them before Simulator::Run() (compiling
    // lazily inside Run() corrupted the heap in two of four runs), then clears the counters.
    void Warm()
    {
        OnRx(ns3::Create<ns3::Packet>(10), ns3::Address());
        OnCwnd(0, 0); OnSrtt(ns3::Seconds(0), ns3::Seconds(0)); OnInflight(0, 0);
        OnCongState(ns3::TcpSocketState::CA_OPEN, ns3::TcpSocketState::CA_OPEN);
        OnRlcTxPdu(0, 0, 10); OnRlcDrop(ns3::Create<ns3::Packet>(10));
        std::fill(rxBytes.begin(), rxBytes.end(), 0); maxCwnd = 0; curCwnd = 0;
        pduSmall = pduSmallBytes = pduData = pduDataBytes = pduFull = 0;
        std::fill(pduSizeHist.begin(), pduSizeHist.end(), 0);
        rlcDrops = rlcDropBytes = 0; firstDropTimes.clear();
    }

    size_t Idx() const
    {
        size_t i = static_cast<size_t>(ns3::Simulator::Now().GetSeconds() / bin);
        return i < rxBytes.size() ? i : rxBytes.size() - 1;
    }
    void OnRx(ns3::Ptr<const ns3::Packet> p, const ns3::Address&) { rxBytes[Idx()] += p->GetSize(); }
    void OnCwnd(uint32_t, uint32_t v)
    {
        curCwnd = v;
        if (v > maxCwnd) maxCwnd = v;
        cwnd[Idx()] = v;
    }
    void OnSrtt(ns3::Time, ns3::Time v) { srttMs[Idx()] = v.GetSeconds() * 1e3; }
    void OnInflight(uint32_t, uint32_t v) { inflight[Idx()] = v; }
    void OnCongState(ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t n)
    {
        double t = ns3::Simulator::Now().GetSeconds();
        if (n == ns3::TcpSocketState::CA_RECOVERY) { ++toRecovery; recoveryTimes.push_back(t); }
        if (n == ns3::TcpSocketState::CA_LOSS) { ++toLoss; lossTimes.push_back(t); }
    }
    void OnRetx(ns3::Ptr<const ns3::Packet>, const ns3::TcpHeader&, const ns3::Address&,
                const ns3::Address&, ns3::Ptr<const ns3::TcpSocketBase>) { ++retx; }
    void OnRlcTxPdu(uint16_t, uint8_t, uint32_t bytes)
    {
        if (bytes <= 64) { ++pduSmall; pduSmallBytes += bytes; }
        else { ++pduData; pduDataBytes += bytes; }
        if (bytes >= 4395) ++pduFull;
        size_t c = bytes / 100;
        if (c >= pduSizeHist.size()) c = pduSizeHist.size() - 1;
        ++pduSizeHist[c];
    }
    void OnRlcDrop(ns3::Ptr<const ns3::Packet> p)
    {
        ++rlcDrops;
        rlcDropBytes += p->GetSize();
        if (firstDropTimes.size() < 5 || ns3::Simulator::Now().GetSeconds() - firstDropTimes.back() > 0.5)
            firstDropTimes.push_back(ns3::Simulator::Now().GetSeconds());
    }
};

void ConnectTcp(ns3::Ptr<Probe> pr, uint32_t nodeId)
{
    std::string base = "/NodeList/" + std::to_string(nodeId) + "/$ns3::TcpL4Protocol/SocketList/*/";
    ns3::Config::ConnectWithoutContext(base + "CongestionWindow", ns3::MakeCallback(&Probe::OnCwnd, pr));
    ns3::Config::ConnectWithoutContext(base + "RTT", ns3::MakeCallback(&Probe::OnSrtt, pr));
    ns3::Config::ConnectWithoutContext(base + "BytesInFlight", ns3::MakeCallback(&Probe::OnInflight, pr));
    ns3::Config::ConnectWithoutContext(base + "CongState", ns3::MakeCallback(&Probe::OnCongState, pr));
    ns3::Config::ConnectWithoutContext(base + "Retransmission", ns3::MakeCallback(&Probe::OnRetx, pr));
}

void ConnectRlc(ns3::Ptr<Probe> pr)
{
    std::string p = "/NodeList/*/DeviceList/*/$ns3::LteEnbNetDevice/LteEnbRrc/UeMap/*/DataRadioBearerMap/*/LteRlc/TxDrop";
    ns3::Config::ConnectWithoutContext(p, ns3::MakeCallback(&Probe::OnRlcDrop, pr));
    std::string q = "/NodeList/*/DeviceList/*/$ns3::LteEnbNetDevice/LteEnbRrc/UeMap/*/DataRadioBearerMap/*/LteRlc/TxPDU";
    ns3::Config::ConnectWithoutContext(q, ns3::MakeCallback(&Probe::OnRlcTxPdu, pr));
}

ns3::Ptr<Probe> Install(ns3::Ptr<ns3::Application> sink, double binS, double durS)
{
    auto pr = ns3::Create<Probe>(binS, static_cast<uint32_t>(durS / binS) + 1);
    sink->TraceConnectWithoutContext("Rx", ns3::MakeCallback(&Probe::OnRx, pr));
    return pr;
}
} // namespace gap_probe
"""


def compile_sinks() -> None:
    """Compiles the sinks (once per process). Call right after loading the bindings, before
    building the scenario: compiling them later, among the scenario's objects, aborted runs
    with a corrupted heap."""
    import cppyy

    if not hasattr(cppyy.gbl, "gap_probe"):
        cppyy.cppdef(_CPP)


def install(sink: Any, duration_s: float) -> Any:
    """Installs the probe on the UE's packet sink; the TCP and RLC sinks are connected later
    (`connect`), once the sender's socket and the bearer exist."""
    import cppyy

    if not hasattr(cppyy.gbl, "gap_probe"):
        cppyy.cppdef(_CPP)
    pr = cppyy.gbl.gap_probe.Install(sink, BIN_S, duration_s)
    pr.Warm()
    return pr


def connect(pr: Any, remote: Any) -> None:
    """Connects the TCP and RLC sinks; call between two Simulator.Run() segments, after the
    sender opened its socket (0.1 s) and the bearer exists."""
    import cppyy

    cppyy.gbl.gap_probe.ConnectTcp(pr, remote.GetId())
    cppyy.gbl.gap_probe.ConnectRlc(pr)


def collect(pr: Any) -> dict:
    """The probe's counters and per-bin series as plain Python values."""
    return {
        "bin_s": BIN_S,
        "rx_bytes_per_bin": [int(x) for x in pr.rxBytes],
        "cwnd_per_bin": [int(x) for x in pr.cwnd],
        "srtt_ms_per_bin": [float(x) for x in pr.srttMs],
        "inflight_per_bin": [int(x) for x in pr.inflight],
        "max_cwnd": int(pr.maxCwnd),
        "rlc_tx_drops": int(pr.rlcDrops),
        "rlc_tx_drop_bytes": int(pr.rlcDropBytes),
        "tcp_retransmissions": int(pr.retx),
        "to_recovery": int(pr.toRecovery),
        "to_loss": int(pr.toLoss),
        "recovery_times": [float(x) for x in pr.recoveryTimes],
        "loss_times": [float(x) for x in pr.lossTimes],
        "drop_times": [float(x) for x in pr.firstDropTimes],
        "rlc_pdu_small": int(pr.pduSmall),
        "rlc_pdu_small_bytes": int(pr.pduSmallBytes),
        "rlc_pdu_data": int(pr.pduData),
        "rlc_pdu_data_bytes": int(pr.pduDataBytes),
        "rlc_pdu_full": int(pr.pduFull),
        "rlc_pdu_size_hist_100B": [int(x) for x in pr.pduSizeHist],
    }
