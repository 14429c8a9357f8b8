"""The validation suite of docs/validation.md: the kernel's TCP through the emulated path against
celltcp's own TCP on the same scenario, over lossy and variable links.

    sudo .venv/bin/python tests/python/emu_tools/suite.py [--cases CASE,...] [--cc reno,cubic,bbr]
        [--reps 3] [--priority auto] [--tlp] [--json FILE] [--sim-only FILE]

Cases (``--cases``, default all):

* ``loss1e-4``, ``loss1e-3``, ``loss1e-2`` — python/celltcp/examples/emulation/path-10m-50ms.toml (10 Mb/s,
  50 ms, one-BDP drop-tail queue) with Bernoulli loss of that probability on the data direction;
* ``trace-markov``, ``trace-fades``, ``trace-outages`` — a download over a trace-driven access
  link (Mahimahi format, docs/trace-links.md) whose trace the suite generates with a seeded RNG
  (:func:`make_trace`): a two-state Markov rate, a log-normal rate with deep fades, a constant
  rate with outages; 20 s long, looping; the uplink a fixed 10 Mb/s; 50 ms base RTT;
* ``lte-mobility`` — a UE driving at 90 km/h through two LTE cells (10 MHz, urban macro path
  loss, Rayleigh fading), so that its CQI falls and it is handed over (A3, X2 forwarding).

For each case and kernel congestion control, ``--reps`` emulations (replication ``--run`` = 0, 1,
…: the emulator's own random draws differ, and the kernel is not deterministic anyway) of a
download of the case's size: the server (``bulk_transfer.py server --cc CC``) sends to the UE,
whose receive buffer starts at celltcp's default of 4 MB (``net.ipv4.tcp_rmem`` in its
namespace) so that the receive window limits neither stack.
Then ``--reps`` simulations of the same download with celltcp's TCP, runs 0, 1, …: the
controllers of :data:`SIM_CC` (``reno`` → ``newreno``, ``cubic`` → ``cubic`` and
``cubic-linux``, ``bbr`` → ``bbr``).

The simulations take the kernel's configuration where celltcp has the same mechanism
(:data:`KERNEL_TCP`, the table in docs/validation.md); ``--celltcp-defaults`` runs them with
celltcp's own defaults instead.

Metrics, per run: the goodput (kernel: the client's, first byte to last; simulation: first to
last delivery at the receiver), the data segments retransmitted (kernel: counted from the
packets entering the path; simulation: the sender's count) and the mean RTT, by the same
estimator on both sides (:func:`path_rtt_samples`): from a data segment entering the path to
the first cumulative ACK covering it leaving the path, first transmissions only (kernel:
crates/emu/src/observe.rs on the packets; simulation: the same rule on the sender's
``seq_sent``, ``retx_*`` and ``ack_received`` traces). The sender's own RTT samples
(``trace.tcp = ["rtt"]``, one per ACK from the timestamp echo) are kept as
``rtt_sender_mean_s``. Verdict per metric
(:func:`verdict`): the ratio simulation/kernel of the means and its 95 % interval; ``pass`` when
the interval lies within the tolerance (goodput ±15 %, RTT ±20 %, retransmissions a factor 1.5),
``fail`` when it lies outside it, ``open`` when it straddles a bound (more replications decide).
Retransmission counts are compared as (count + 1) so that two runs without any compare equal.

The kernel runs without its tail loss probe (``net.ipv4.tcp_early_retrans = 0``; celltcp's TCP
has none) unless ``--tlp``, as in validate.py, with the engine's loop at real-time priority
(``--priority``, docs/emulation.md); a run whose engine fell behind real time (any datagram more
than 1 ms late) is run again, once.
``--json`` writes every run; ``--sim-only FILE`` re-reads the kernel runs of such a file and runs
only the simulations (after a change to celltcp's TCP); ``--without KEY,...`` leaves keys out of
the kernel's configuration (ablations; the sender's timeouts, undos and recoveries are in the
JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import celltcp
from celltcp.emulate.programs import ExecSpec
from celltcp.emulate.runner import emulate

ROOT = Path(__file__).resolve().parents[3]
TOOL = Path(__file__).resolve().parent / "bulk_transfer.py"
PATH_10M = ROOT / "python/celltcp/examples" / "emulation" / "path-10m-50ms.toml"
#: Kernel congestion control → the celltcp controllers compared with it.
SIM_CC = {"reno": ["newreno"], "cubic": ["cubic", "cubic-linux"], "bbr": ["bbr"]}
#: The UE's initial receive buffer in both stacks (celltcp's default ``tcp.rcv_buf``), bytes.
RCV_BUF_BYTES = 4_000_000
#: The kernel's configuration (Linux 6.18 defaults and the suite's own sysctls), as celltcp's
#: ``[flows.NAME.tcp]`` keys, for every mechanism the two stacks share; docs/validation.md
#: gives the sysctl or kernel constant each comes from. A faithful set-up, not a fit: every
#: value is the kernel's, whatever it does to the comparison.
KERNEL_TCP: dict[str, str] = {
    "mss": '"1448B"',  # 1500-byte MTU − 20 (IP) − 20 (TCP) − 12 (timestamps)
    "initial_window": "10",  # TCP_INIT_CWND
    "initial_rto": '"1s"',  # TCP_TIMEOUT_INIT
    "min_rto": '"200ms"',  # TCP_RTO_MIN
    "max_rto": '"120s"',  # TCP_RTO_MAX
    "min_rto_bounds_variance": "true",  # tcp_set_rto: srtt + rttvar, rttvar >= tcp_rto_min
    "delayed_ack": '"40ms"',  # TCP_DELACK_MIN
    "delack_segments": "2",  # __tcp_ack_snd_check: more than one full segment
    # tcp_grow_window: one quick ACK for each segment that opens the receive window by
    # 2·advmss; the UE's window opens from 2 001 792 B (its first ACK) to 2 500 096 B (its
    # largest), (2 500 096 − 2 001 792) / (2·1448) = 172 segments (loss1e-4 capture). It
    # outlasts tcp_incr_quickack's TCP_MAX_QUICKACKS = 16 at the first data segment.
    "quick_acks": "172",
    # The server sets TCP_CONGESTION on its listener (bulk_transfer.py), so the connection is
    # never BBR's and stays unpaced (SK_PACING_NONE): tcp_cubic.c halves its ACK-train
    # threshold, celltcp's `hystart_paced` default (false). The reference runs of 2026-11-28
    # switched the connection after the handshake from the host's default BBR, whose
    # SK_PACING_NEEDED stayed: a paced CUBIC (TcpExtTCPHystartTrainCwnd 123, 50 retransmissions
    # at 1e-4, against 7 unpaced).
    "sack": "true",  # net.ipv4.tcp_sack = 1
    "timestamps": "true",  # net.ipv4.tcp_timestamps = 1
    "window_scale": "true",  # net.ipv4.tcp_window_scaling = 1
    "limited_transmit": "true",  # RFC 3042, always on in Linux
    "ecn": "false",  # net.ipv4.tcp_ecn = 2: never requested by the sender
    "frto": "true",  # net.ipv4.tcp_frto = 2: SACK-enhanced F-RTO
    "frto_after_repeated_rto": "true",  # tcp_enter_loss: F-RTO also after a repeated RTO
    "rto_keeps_recovery_ssthresh": "true",  # tcp_enter_loss: no second reduction in Recovery
    "eifel": "true",  # tcp_packet_delayed: undo when TSecr < retrans_stamp
    "detect_lost_retransmissions": "true",  # net.ipv4.tcp_recovery = 1 (RACK), its §6.2 rule
    "prr": "true",  # tcp_cwnd_reduction: RFC 6937, always on
    "dupack_threshold": "3",  # net.ipv4.tcp_reordering = 3
    "rcv_buf": f'"{RCV_BUF_BYTES}B"',  # the UE's net.ipv4.tcp_rmem default, set by the suite
}
#: Tolerances of the comparison: (low, high) bounds of simulation/kernel.
TOLERANCE = {
    "goodput_bps": (0.85, 1.15),
    "retransmitted_segments": (1 / 1.5, 1.5),
    "rtt_mean_s": (0.8, 1.2),
}
#: Two-sided 95 % quantiles of Student's t by degrees of freedom.
T95 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
}

TRACE_SCENARIO = """
[simulation]
duration = "60s"
seed = 1

[nodes]
server = { kind = "host" }
gw = { kind = "router" }
ue = { kind = "host" }

[links.wan]
a = "server"
b = "gw"
rate = "100Mbps"
delay = "20ms"

[links.access]
a = "gw"
b = "ue"
delay = "5ms"
queue = { kind = "droptail", limit = "100p" }
a_to_b = { trace = "TRACE" }
b_to_a = { rate = "10Mbps" }
"""

LTE_SCENARIO = """
[simulation]
duration = "60s"
seed = 1

[nodes]
server = { kind = "host" }
pgw = { kind = "router" }
router = { kind = "router" }
enb1 = { kind = "router" }
enb2 = { kind = "router" }
ue = { kind = "host" }

[links.internet]
a = "server"
b = "pgw"
rate = "1Gbps"
delay = "15ms"

[links.core]
a = "pgw"
b = "router"
rate = "1Gbps"
delay = "2ms"

[links.s1u1]
a = "router"
b = "enb1"
rate = "100Mbps"
delay = "1ms"

[links.s1u2]
a = "router"
b = "enb2"
rate = "100Mbps"
delay = "1ms"

[cells.cell1]
enb = "enb1"
bandwidth_mhz = 10
pathloss = "uma"
fading = true

[cells.cell1.ues]
ue = { position = [180.0, 30.0] }

[cells.cell2]
enb = "enb2"
bandwidth_mhz = 10
pathloss = "uma"
fading = true

[epc]
gateway = "pgw"

[ran]
layout = { kind = "line", cells = ["cell1", "cell2"], spacing = "500m" }

[ran.handover]
policy = "forward"
a3 = {}

[mobility.ue]
kind = "linear"
speed = "90km/h"
"""

#: Case → (download bytes, description).
CASES: dict[str, tuple[int, str]] = {
    "loss1e-4": (10_000_000, "10 Mb/s, 50 ms, loss 1e-4"),
    "loss1e-3": (8_000_000, "10 Mb/s, 50 ms, loss 1e-3"),
    "loss1e-2": (4_000_000, "10 Mb/s, 50 ms, loss 1e-2"),
    "trace-markov": (12_000_000, "trace: two-state Markov 16 / 3 Mb/s"),
    "trace-fades": (12_000_000, "trace: log-normal 10 Mb/s with deep fades"),
    "trace-outages": (12_000_000, "trace: 10 Mb/s with outages"),
    "lte-mobility": (24_000_000, "LTE, UE at 90 km/h, one handover"),
}
#: Each trace's RNG seed: fixed, so every run and machine gets the same trace.
TRACE_SEED = {"markov": 11, "fades": 12, "outages": 13}
TRACE_MS = 20_000


# -- generated traces -----------------------------------------------------------------------------


def rate_schedule(shape: str, seed: int, ms: int = TRACE_MS) -> list[float]:
    """The capacity of each millisecond, bits per second, of a trace of ``shape``:

    * ``markov``: a good (16 Mb/s) and a bad (3 Mb/s) state with exponential holding times of
      mean 1.5 s and 0.7 s;
    * ``fades``: a log-normal rate around 10 Mb/s (σ = 0.35 of its logarithm, AR(1) with
      correlation 0.9 per 100 ms), and deep fades to 3 % of it, a Poisson process of 0.3 per
      second lasting 100 to 400 ms;
    * ``outages``: 10 Mb/s with outages (no capacity), 0.25 per second, lasting 0.3 to 1.2 s.
    """
    rng = random.Random(seed)
    out: list[float] = []
    if shape == "markov":
        good = True
        while len(out) < ms:
            hold = max(1, round(rng.expovariate(1 / (1500 if good else 700))))
            out += [16e6 if good else 3e6] * hold
            good = not good
    elif shape == "fades":
        x = 0.0
        for _step in range(ms // 100):
            x = 0.9 * x + math.sqrt(1 - 0.81) * rng.gauss(0.0, 0.35)
            out += [10e6 * math.exp(x - 0.35**2 / 2)] * 100
        t = rng.expovariate(0.3) * 1000
        while t < ms:
            length = rng.uniform(100, 400)
            for i in range(int(t), min(ms, int(t + length))):
                out[i] *= 0.03
            t += length + rng.expovariate(0.3) * 1000
    elif shape == "outages":
        out = [10e6] * ms
        t = rng.expovariate(0.25) * 1000
        while t < ms:
            length = rng.uniform(300, 1200)
            for i in range(int(t), min(ms, int(t + length))):
                out[i] = 0.0
            t += length + rng.expovariate(0.25) * 1000
    else:
        raise ValueError(f"unknown trace shape {shape!r}: markov, fades or outages")
    return out[:ms]


def make_trace(shape: str, seed: int, ms: int = TRACE_MS) -> list[int]:
    """Mahimahi delivery opportunities (one 1500-byte packet each, integer milliseconds from 1)
    carrying :func:`rate_schedule`: each millisecond adds its rate's share of an opportunity,
    and a whole one is written whenever the credit allows. The last millisecond always has one,
    so that the trace loops after exactly ``ms``."""
    credit, lines = 0.0, []
    for i, rate in enumerate(rate_schedule(shape, seed, ms)):
        credit += rate * 1e-3 / (1500 * 8)
        while credit >= 1.0:
            lines.append(i + 1)
            credit -= 1.0
    if not lines or lines[-1] != ms:
        lines.append(ms)
    return lines


def trace_mean_bps(lines: list[int]) -> float:
    return len(lines) * 1500 * 8 / (lines[-1] * 1e-3)


# -- the scenarios --------------------------------------------------------------------------------


def scenario(case: str, work: Path) -> tuple[Path, list[str], str]:
    """The scenario file, its overrides and the data link's name for ``case``; trace files and
    scenario texts are written into ``work``."""
    if case.startswith("loss"):
        p = float(case[4:])
        return PATH_10M, [f'links.wired.a_to_b.loss={{kind="bernoulli", p={p}}}'], "wired"
    if case.startswith("trace-"):
        shape = case[6:]
        lines = make_trace(shape, TRACE_SEED[shape])
        (work / f"{shape}.trace").write_text("".join(f"{t}\n" for t in lines))
        path = work / f"trace-{shape}.toml"
        path.write_text(TRACE_SCENARIO.replace("TRACE", f"{shape}.trace"))
        return path, [], "access"
    if case == "lte-mobility":
        path = work / "lte-mobility.toml"
        path.write_text(LTE_SCENARIO)
        return path, [], "cell1"
    raise SystemExit(f"unknown case {case!r}: {', '.join(CASES)}")


# -- runs -----------------------------------------------------------------------------------------


def kernel_run(
    cc: str,
    case: str,
    rep: int,
    work: Path,
    priority: str = "auto",
    nbytes: int | None = None,
    tlp: bool = False,
) -> dict[str, Any]:
    """One emulation of ``case`` with the kernel's ``cc``; reruns once if the engine fell
    behind real time."""
    path, sets, _ = scenario(case, work)
    nbytes = nbytes or CASES[case][0]
    client_json = work / "client.json"
    python = sys.executable
    # Linux's tail loss probe (RFC 8985 §7), which celltcp does not have, is off unless
    # ``tlp`` (as in validate.py, docs/validation.md).
    setup = "" if tlp else "sysctl -qw net.ipv4.tcp_early_retrans=0 && "
    server = f"{setup}{python} {TOOL} server --bytes {nbytes} --cc {cc} --timeout 90 &"
    # The UE's receive buffer starts at celltcp's default of 4 MB (tcp_rmem's default, per
    # network namespace) so that neither receiver limits the window: with Linux's own start of
    # 128 KiB its autotuning lags slow start on the trace links, and the kernel's sender is
    # held by the window where celltcp's overflows the queue.
    client = (
        f"sysctl -qw net.ipv4.tcp_rmem='4096 {RCV_BUF_BYTES} 6291456' && "
        f"{python} {TOOL} client --connect server --bytes {nbytes} --timeout 90"
    )
    for attempt in range(2):
        client_json.unlink(missing_ok=True)
        load = os.getloadavg()[0]
        started = time.monotonic()
        run = emulate(
            path,
            ["server", "ue"],
            set=sets,
            run=rep,
            duration=120.0,
            priority=priority,
            execs=[ExecSpec("server", server), ExecSpec("ue", f"{client} > {client_json}")],
        )
        if not run.programs_ok:
            raise RuntimeError(
                f"{cc}/{case}: a program failed: {[p.describe() for p in run.programs]}"
            )
        e = run.emulation
        late = e.get("late_packets") or 0
        if not late or attempt == 1:
            break
        print(f"  {cc}/{case} rep {rep}: {late} datagrams late, once more", file=sys.stderr)
    got = json.loads(client_json.read_text())
    conns = e.get("connections") or []
    # The data direction of each connection: the one that carried the data (the UE's address
    # depends on the scenario).
    data = [max(c["forward"], c["reverse"], key=lambda d: d["data_bytes"]) for c in conns]
    retx = sum(d["retransmitted_segments"] for d in data)
    # When the connection began on the engine's clock, which is the traces' and the mobility's
    # clock too: the programs start a second or so into the emulation, and the simulation
    # must start its download at the same point of a trace (see :func:`sim_run`).
    start_s = min((c["first_seen_s"] for c in conns), default=None)
    rtts = [(d["rtt"]["mean_s"], d["rtt"]["samples"]) for d in data if d["rtt"]["samples"]]
    rtt = (sum(m * n for m, n in rtts) / sum(n for _, n in rtts)) if rtts else None
    timing = e.get("timing_error_s") or {}
    return {
        "side": "kernel",
        "cc": cc,
        "case": case,
        "rep": rep,
        "load": load,
        "wall_s": time.monotonic() - started,
        "bytes": nbytes,
        "goodput_bps": got["goodput_bps"],
        "retransmitted_segments": retx,
        "start_s": start_s,
        "rtt_mean_s": rtt,
        "timing_p99_s": timing.get("p99"),
        "late_packets": late,
        "priority": e.get("priority"),
        "attempts": attempt + 1,
        "tlp": tlp,
    }


def path_rtt_samples(
    sent: list[tuple[int, float]],
    retransmitted: list[float],
    acks: list[tuple[int, float]],
    stream_end: float,
) -> list[int]:
    """RTT samples of the kernel's estimator (crates/emu/src/observe.rs) from a simulated
    sender's traces, nanoseconds: for each first transmission, from its entering the path to
    the first cumulative ACK covering it leaving the path; a segment whose range was
    retransmitted gives none (Karn, RFC 6298 §3).

    ``sent``: (time_ns, start offset) of each new data segment in order (``seq_sent``); a
    segment ends where the next begins, the last at ``stream_end``. ``retransmitted``: start
    offsets of retransmissions (``retx_rto``, ``retx_fast``; celltcp resends whole segments).
    ``acks``: (time_ns, cumulative ACK offset) as they reached the sender (``ack_received``).
    The sender's host has no delay of its own, so the sender's clock reads the path's ends:
    what it sends enters the first link at once, and an ACK reaching it has left the last."""
    ends = [start for _, start in sent[1:]] + [stream_end]
    resent = set(retransmitted)
    out: list[int] = []
    i = 0
    for t_ack, ack in acks:
        while i < len(sent) and ends[i] <= ack:
            t_sent, start = sent[i]
            if start not in resent:
                out.append(t_ack - t_sent)
            i += 1
    return out


def sim_run(
    sim_cc: str,
    kernel_cc: str,
    case: str,
    rep: int,
    work: Path,
    nbytes: int | None = None,
    hystart: bool | None = None,
    kernel_config: bool = True,
    without: tuple[str, ...] = (),
    start_s: float | None = None,
) -> dict[str, Any]:
    """The same download simulated with celltcp's ``sim_cc``, replication ``rep``, with the
    kernel's configuration (:data:`KERNEL_TCP`) unless ``kernel_config`` is false.

    ``start_s`` is when the kernel's connection began (its SYN entering the path, on the
    engine's clock): the simulated download starts then, so that both meet the same part of a
    trace and the same position of a moving UE. Slow start on the fading trace is a different
    experiment 0.3 s later: celltcp's `cubic-linux` there reaches 10.1–12.6 Mb/s with 20–130
    retransmissions for starts between 0 and 3 s (docs/validation.md)."""
    path, sets, _ = scenario(case, work)
    nbytes = nbytes or CASES[case][0]
    tcp = {k: v for k, v in KERNEL_TCP.items() if k not in without} if kernel_config else {}
    if hystart is not None:
        tcp["hystart"] = "true" if hystart else "false"
    tcp_table = ", ".join(f"{k}={v}" for k, v in tcp.items())
    start = f'start="{start_s:.6f}s", ' if start_s is not None else ""
    flow = (
        f'flows.bulk={{kind="tcp", src="server", dst="ue", cc="{sim_cc}", {start}'
        f'app={{kind="bulk", bytes="{nbytes}B"}}, tcp={{{tcp_table}}}}}'
    )
    result = celltcp.run(
        path,
        run=rep,
        set=[
            *sets,
            flow,
            'trace.tcp=["delivered", "rtt", "seq_sent", "ack_received", "retx_rto", "retx_fast"]',
            'trace.tcp_flows=["bulk"]',
            "simulation.duration=300s",
        ],
    )
    d = result.series["tcp"]
    delivered = d[d["var"] == "delivered"]
    span = (delivered["time_ns"].iloc[-1] - delivered["time_ns"].iloc[0]) * 1e-9
    rtt = d[d["var"] == "rtt"]["value"]
    sender = result.summary["flows"]["bulk"]["sender"]
    if sender.get("bytes_acked", 0) < nbytes:
        raise RuntimeError(f"{sim_cc}/{case} run {rep}: the download did not complete")

    def rows(*names: str) -> Any:
        return d[d["var"].isin(names)]

    sent = rows("seq_sent")
    acks = rows("ack_received")
    path_rtt = path_rtt_samples(
        list(zip(sent["time_ns"].astype("int64"), sent["value"])),
        list(rows("retx_rto", "retx_fast")["value"]),
        list(zip(acks["time_ns"].astype("int64"), acks["value"])),
        # Offsets count from the SYN (1 is the first data byte); the FIN ends the stream.
        stream_end=float(nbytes + 2),
    )
    return {
        "side": "sim",
        "cc": kernel_cc,
        "sim_cc": sim_cc,
        "start_s": start_s,
        "case": case,
        "rep": rep,
        "bytes": nbytes,
        "goodput_bps": nbytes * 8 / span,
        "retransmitted_segments": sender.get("retransmissions"),
        "rtt_mean_s": statistics.fmean(path_rtt) * 1e-9 if path_rtt else None,
        "rtt_samples": len(path_rtt),
        "rtt_sender_mean_s": float(rtt.mean()) if len(rtt) else None,
        "kernel_config": kernel_config,
        "without": list(without),
        **{
            k: sender.get(k)
            for k in ("timeouts", "spurious_undos", "fast_recoveries", "retx_fast", "retx_rto")
        },
        "handovers": len(result.handovers),
    }


# -- statistics and verdicts ----------------------------------------------------------------------


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % interval (Student's t; 0 for a single value)."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, 0.0
    t = T95.get(len(values) - 1, 1.96)
    return m, t * statistics.stdev(values) / math.sqrt(len(values))


def ratio_interval(sim: list[float], kernel: list[float]) -> tuple[float, float, float]:
    """simulation/kernel of the means with a 95 % interval by the delta method on the
    logarithm: exp(±sqrt(h_s² / m_s² + h_k² / m_k²)) around the ratio, h the half-widths."""
    ms, hs = mean_ci(sim)
    mk, hk = mean_ci(kernel)
    if ms <= 0 or mk <= 0:
        raise ValueError("ratio of non-positive means")
    r = ms / mk
    spread = math.sqrt((hs / ms) ** 2 + (hk / mk) ** 2)
    return r, r * math.exp(-spread), r * math.exp(spread)


def verdict(ratio_low: float, ratio_high: float, bounds: tuple[float, float]) -> str:
    """``pass`` when [ratio_low, ratio_high] lies within ``bounds``, ``fail`` when it lies
    entirely outside, ``open`` when it straddles a bound."""
    lo, hi = bounds
    if lo <= ratio_low and ratio_high <= hi:
        return "pass"
    if ratio_high < lo or ratio_low > hi:
        return "fail"
    return "open"


def compare(sim: list[dict[str, Any]], kernel: list[dict[str, Any]], metric: str) -> dict[str, Any]:
    """The comparison of ``metric`` between the runs of the two sides."""
    shift = 1.0 if metric == "retransmitted_segments" else 0.0
    s = [r[metric] + shift for r in sim if r.get(metric) is not None]
    k = [r[metric] + shift for r in kernel if r.get(metric) is not None]
    if not s or not k:
        return {"verdict": "-", "sim": None, "kernel": None}
    r, lo, hi = ratio_interval(s, k)
    return {
        "sim": mean_ci([v - shift for v in s]),
        "kernel": mean_ci([v - shift for v in k]),
        "ratio": r,
        "ratio_low": lo,
        "ratio_high": hi,
        "verdict": verdict(lo, hi, TOLERANCE[metric]),
    }


def _fmt(mci: tuple[float, float] | None, scale: float, digits: int) -> str:
    if mci is None:
        return "-"
    m, h = mci
    return f"{m * scale:.{digits}f} ± {h * scale:.{digits}f}"


def table(runs: list[dict[str, Any]]) -> str:
    """One row per (case, kernel cc, celltcp cc): means ± 95 % half-widths, the ratio
    simulation/kernel with its interval and the verdict of each metric. Markdown."""
    head = (
        "| case | kernel cc | celltcp cc | goodput kernel / sim (Mb/s) | ratio | verdict | "
        "retransmitted kernel / sim | ratio | verdict | mean RTT kernel / sim (ms) | ratio | "
        "verdict |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    keys = sorted(
        {(r["case"], r["cc"], r["sim_cc"]) for r in runs if r["side"] == "sim"},
        key=lambda k: (
            list(CASES).index(k[0]) if k[0] in CASES else 99,
            list(SIM_CC).index(k[1]),
            k[2],
        ),
    )
    metrics = [("goodput_bps", 1e-6, 2), ("retransmitted_segments", 1.0, 0), ("rtt_mean_s", 1e3, 1)]
    for case, cc, sim_cc in keys:
        k = [r for r in runs if r["side"] == "kernel" and (r["case"], r["cc"]) == (case, cc)]
        s = [
            r
            for r in runs
            if r["side"] == "sim" and (r["case"], r["cc"], r["sim_cc"]) == (case, cc, sim_cc)
        ]
        cells = [case, cc, sim_cc]
        for metric, scale, digits in metrics:
            c = compare(s, k, metric)
            cells.append(f"{_fmt(c['kernel'], scale, digits)} / {_fmt(c['sim'], scale, digits)}")
            cells.append(
                "-"
                if "ratio" not in c
                else f"{c['ratio']:.2f} [{c['ratio_low']:.2f}, {c['ratio_high']:.2f}]"
            )
            cells.append(c["verdict"])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--cc", default=",".join(SIM_CC))
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--priority", default="auto")
    p.add_argument("--tlp", action="store_true", help="keep Linux's tail loss probe on")
    p.add_argument("--json", type=Path, help="write every run here")
    p.add_argument("--sim-only", type=Path, help="kernel runs from this --json file")
    p.add_argument(
        "--celltcp-defaults",
        action="store_true",
        help="simulate with celltcp's defaults instead of the kernel's configuration",
    )
    p.add_argument(
        "--without",
        default="",
        help="KEY,...: leave these keys out of the kernel's configuration (ablations)",
    )
    a = p.parse_args(argv)
    cases, ccs = a.cases.split(","), a.cc.split(",")
    for case in cases:
        if case not in CASES:
            p.error(f"--cases {case}: one of {', '.join(CASES)}")
    for cc in ccs:
        if cc not in SIM_CC:
            p.error(f"--cc {cc}: one of {', '.join(SIM_CC)}")
    if a.reps < 1:
        p.error("--reps: at least 1")
    without = tuple(k for k in a.without.split(",") if k)
    for k in without:
        if k not in KERNEL_TCP:
            p.error(f"--without {k}: one of {', '.join(KERNEL_TCP)}")
    runs: list[dict[str, Any]] = []
    if a.sim_only:
        runs = [
            r
            for r in json.loads(a.sim_only.read_text())
            if r["side"] == "kernel" and r["case"] in cases and r["cc"] in ccs
        ]
    begun = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="celltcp-suite-") as tmp:
        work = Path(tmp)
        for case in cases:
            for cc in ccs:
                if not a.sim_only:
                    for rep in range(a.reps):
                        r = kernel_run(cc, case, rep, work, a.priority, tlp=a.tlp)
                        runs.append(r)
                        if a.json:
                            a.json.write_text(json.dumps(runs, indent=1, default=str) + "\n")
                        print(
                            f"{case:14} {cc:5} rep {rep}: {r['goodput_bps'] / 1e6:.2f} Mb/s, "
                            f"{r['retransmitted_segments']} retx, load {r['load']:.2f}, "
                            f"late {r['late_packets']}, {r['wall_s']:.1f} s",
                            file=sys.stderr,
                            flush=True,
                        )
                # Each simulated replication starts where the kernel's of the same number did.
                starts = {
                    r["rep"]: r.get("start_s")
                    for r in runs
                    if r["side"] == "kernel" and (r["case"], r["cc"]) == (case, cc)
                }
                for sim_cc in SIM_CC[cc]:
                    for rep in range(a.reps):
                        runs.append(
                            sim_run(
                                sim_cc,
                                cc,
                                case,
                                rep,
                                work,
                                kernel_config=not a.celltcp_defaults,
                                without=without,
                                start_s=starts.get(rep),
                            )
                        )
    if a.json:
        a.json.write_text(json.dumps(runs, indent=1, default=str) + "\n")
    print(table(runs))
    loads = [r["load"] for r in runs if "load" in r]
    kernel = [r for r in runs if r["side"] == "kernel"]
    if loads:
        print(
            f"\n{len(kernel)} kernel runs, {len(runs) - len(kernel)} simulations; load average "
            f"(1 min) at the kernel runs: median {statistics.median(loads):.2f}, max "
            f"{max(loads):.2f}; runs repeated for lateness: "
            f"{sum(r['attempts'] > 1 for r in kernel)}; {time.monotonic() - begun:.0f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
