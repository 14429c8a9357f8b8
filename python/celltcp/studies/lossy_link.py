"""Which congestion controller survives a lossy link? A study declared on :mod:`celltcp.study`.

NewReno, CUBIC and BBR download over the wired chain of ``celltcp/examples/wired-chain-tcp.toml``
(remote —100 Mb/s, 20 ms— gateway —1 Gb/s, 3 ms— eNB —25 Mb/s, 5 ms— UE, SACK on) whose access
link loses packets at random (Bernoulli, downlink) with probability 0.1 %, 1 % and 3 %. A
loss-based controller halves its window at every loss event, so its goodput falls as
1/sqrt(p) (Mathis, Semke, Mahdavi & Ott 1997); BBR v1 paces at its estimate of the
bottleneck bandwidth and does not take a loss for congestion
(draft-cardwell-iccrg-bbr-congestion-control-00 §4), so it should keep most of the link.

Run it with ``celltcp study celltcp.studies.lossy_link [--quick]`` or from Python::

    from celltcp.study import write
    from celltcp.studies.lossy_link import STUDY
    write(STUDY, "out/lossy-link", quick=True)

docs/studies.md walks through this declaration.
"""

from __future__ import annotations

import math

from celltcp.study import (
    Claim,
    Equivalent,
    Figure,
    Metric,
    Replications,
    Runs,
    Scenario,
    Study,
    Sweep,
    Welch,
)
from celltcp.study.engine import Results

CONTROLLERS = ("newreno", "cubic", "bbr")
LOSS_RATES = (0.001, 0.01, 0.03)
CC = "flows.bulk.cc"
LOSS = "links.access.a_to_b.loss.p"

#: The chain's base round-trip time: twice the three links' one-way delays (20 + 3 + 5 ms).
BASE_RTT_S = 2 * (0.020 + 0.003 + 0.005)
#: celltcp's default sender MSS (docs/scenarios.md).
MSS_BYTES = 1448
#: The loss rate at which the Mathis formula is checked.
MATHIS_P = 0.01


def mathis_bps(p: float, rtt_s: float = BASE_RTT_S, mss_bytes: int = MSS_BYTES) -> float:
    """The Mathis et al. (1997) steady-state throughput of a loss-based controller with
    periodic losses and one ACK per segment: MSS/RTT · sqrt(3/2)/sqrt(p), bit/s."""
    return mss_bytes * 8 / rtt_s * math.sqrt(1.5) / math.sqrt(p)


def at(cc: str, p: float) -> Runs:
    """The runs of controller ``cc`` at loss rate ``p``."""
    return Runs("lossy-link", {CC: cc, LOSS: p}, label=f"{cc} at {p:g}")


GOODPUT = Metric(
    "goodput", summary="flows.bulk.goodput_bps", label="goodput", unit="Mb/s", scale=1e-6
)
SRTT = Metric("srtt", summary="flows.bulk.sender.srtt_s", label="final SRTT", unit="ms", scale=1e3)
RETRANSMISSIONS = Metric(
    "retransmissions", summary="flows.bulk.sender.retransmissions", label="retransmissions"
)


def _goodput_figure(results: Results) -> object:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for cc in CONTROLLERS:
        means = [float(results.values("goodput", at(cc, p)).mean()) / 1e6 for p in LOSS_RATES]
        ax.plot(LOSS_RATES, means, marker="o", label=cc)
    ax.plot(LOSS_RATES, [mathis_bps(p) / 1e6 for p in LOSS_RATES], "k--", label="Mathis")
    ax.set_xscale("log")
    ax.set_xlabel("loss probability of the access link")
    ax.set_ylabel("goodput (Mb/s)")
    ax.legend()
    return fig


STUDY = Study(
    name="lossy-link",
    title="Which congestion controller survives a lossy link?",
    question=(
        "NewReno, CUBIC and BBR over a 25 Mb/s access link that loses 0.1 %, 1 % or 3 % of "
        "the packets at random: does BBR keep the link where the loss-based controllers "
        "collapse, and does NewReno follow the Mathis formula?"
    ),
    sweeps=(
        Sweep(
            name="lossy-link",
            scenario=Scenario("wired-chain-tcp"),
            axes={CC: CONTROLLERS, LOSS: LOSS_RATES},
            metrics=(GOODPUT, SRTT, RETRANSMISSIONS),
            replications=Replications(
                quick=3,
                full=10,
                why=(
                    "10 runs give Welch's t-test power 0.8 for a 20 % difference of goodput "
                    "when the runs' coefficient of variation is up to 0.15; the claims table "
                    "states each test's power at the spread measured"
                ),
            ),
            quick={"simulation.duration": "10s"},
            full={"simulation.duration": "30s"},
        ),
    ),
    claims=(
        Claim(
            key="bbr_survives",
            where="question",
            claim="BBR has more goodput than NewReno at 1 % loss",
            test=Welch("goodput", at("bbr", 0.01), at("newreno", 0.01), ">"),
            source_text="expected: BBR v1 does not take a loss for congestion",
            digits=2,
        ),
        Claim(
            key="cubic_over_newreno",
            where="question",
            claim="CUBIC has more goodput than NewReno at 1 % loss",
            test=Welch("goodput", at("cubic", 0.01), at("newreno", 0.01), ">"),
            source_text="expected: CUBIC's β = 0.7 backs off less than NewReno's 0.5 (RFC 9438)",
            digits=2,
        ),
        Claim(
            key="mathis",
            where="Mathis et al. 1997, eq. 3",
            claim=(
                f"NewReno's goodput at {MATHIS_P:g} loss is the Mathis formula's "
                "MSS/RTT · sqrt(3/2)/sqrt(p), within ±25 %"
            ),
            test=Equivalent("goodput", at("newreno", MATHIS_P), mathis_bps(MATHIS_P), 0.25),
            source_text=(
                f"{mathis_bps(MATHIS_P) / 1e6:.2f} Mb/s at RTT {BASE_RTT_S * 1e3:g} ms, "
                f"MSS {MSS_BYTES} B"
            ),
            source_value=mathis_bps(MATHIS_P),
            digits=0,
            unit="bit/s",
        ),
        Claim(
            key="newreno_rtt",
            where="secondary",
            claim="NewReno's final SRTT at 3 % loss above that at 0.1 %",
            test=Welch("srtt", at("newreno", 0.03), at("newreno", 0.001), ">"),
            registered=False,
            digits=2,
        ),
    ),
    figures=(
        Figure(
            "goodput-vs-loss.png",
            "Goodput (mean over the runs) against the access link's loss probability, per "
            "congestion controller, and the Mathis formula at the chain's base RTT (dashed).",
            _goodput_figure,
        ),
    ),
)
