"""PRR (RFC 6937) over the 10 Mb/s, 50 ms path of docs/validation.md: a NewReno download with
SACK whose fast recoveries follow queue overflows at the one-BDP drop-tail queue.

RFC 6937 §3 counts DeliveredData once per byte: the change in SND.UNA plus the change in the
SACKed bytes, which falls when a partial ACK covers data SACKed before. Counting the whole
cumulative advance again let PRR release those bytes' share a second time at the instant of
the partial ACK — 45 segments at once into a full queue, a second loss episode, and 4 % less
goodput than Linux's PRR (kernel 9.56 Mb/s; docs/validation.md) — where Linux's
``tp->delivered`` counts each segment once.
"""

from __future__ import annotations

import pandas as pd

import celltcp
from celltcp import examples

MSS = 1448


def _download(prr: bool) -> celltcp.RunResult:
    flow = (
        'flows.bulk={kind="tcp", src="server", dst="ue", cc="newreno", '
        f'app={{kind="bulk", bytes="10000000B"}}, tcp={{sack=true, prr={str(prr).lower()}}}}}'
    )
    return celltcp.run(
        examples.path("emulation/path-10m-50ms"),
        set=[flow, 'trace.tcp=["seq_sent", "cc_state", "delivered"]', 'trace.tcp_flows=["bulk"]'],
    )


def _largest_send_at_one_instant_in_recovery(series: pd.DataFrame) -> float:
    """The largest advance of the highest byte sent at one instant of a fast recovery."""
    state = series[series["var"] == "cc_state"]
    sent = series[series["var"] == "seq_sent"]
    per_instant = sent.groupby("time_ns")["value"].max()
    advance = per_instant.diff().fillna(0.0)
    in_recovery = pd.Series(
        [
            (s := state[state["time_ns"] <= t]).size > 0 and s["value"].iloc[-1] == 2.0
            for t in advance.index
        ],
        index=advance.index,
    )
    return float(advance[in_recovery].max())


def test_prr_releases_no_burst_at_a_partial_ack_and_costs_no_goodput_rfc6937():
    with_prr, without = _download(True), _download(False)
    burst = _largest_send_at_one_instant_in_recovery(with_prr.series["tcp"])
    # One ACK delivers a segment or two; PRR sends about half of that, plus one segment.
    assert burst <= 3 * MSS, f"{burst / MSS:.0f} segments sent at one instant of a recovery"
    goodput = {}
    for name, r in (("prr", with_prr), ("no prr", without)):
        flow = r.summary["flows"]["bulk"]["sender"]
        assert flow["timeouts"] == 0, (name, flow)
        goodput[name] = 10_000_000 * 8 / flow["transfer_time_s"]
    # Spreading the reduction over the recovery costs no goodput on a queue-limited path.
    assert goodput["prr"] >= 0.99 * goodput["no prr"], goodput
