"""Kernel TCP through the emulated path against celltcp's own TCP on the same scenario: the
goodput of a bulk download and how a handover on the path affects it (docs/validation.md).

    sudo .venv/bin/python tests/python/emu_tools/validate.py [--cc reno,cubic,bbr]
        [--cases none,discard,forward40,forward100,forward200,forward300] [--reps 3]
        [--bytes 10000000] [--rto-min 1s] [--tlp] [--json FILE]

For each kernel congestion control and case, ``--reps`` emulations of
python/celltcp/examples/emulation/path-10m-50ms.toml: the server (``bulk_transfer.py server --cc CC``) sends
``--bytes`` to the UE, which measures the goodput from the first byte to the last. Then
``--sim-reps`` simulations of the same scenario with a celltcp TCP flow of the same size, set
up as Linux (the suite's ``KERNEL_TCP``; reno → newreno, cubic → cubic-linux, bbr → bbr;
``--celltcp-defaults`` for celltcp's own defaults and its cubic), its goodput over the same
span (first to last delivery at the receiver, the ``delivered`` trace). The path has no
randomness, but BBR draws its ProbeBW start phase per connection, as Linux does, so its
replications differ; the table gives medians and the outcome classes' counts of both sides.

Cases: ``none`` (no handover); ``discard`` (a link handover of 100 ms at 3 s, queue and arrivals
dropped, seed 002 Figs. 1–2; ``discardN`` for N ms); ``forwardN`` (N ms, queue kept: Fig. 7). A forwarding handover
loses nothing only when the queue can hold what is in flight when the service stops — the seed's
"appropriate extra buffering" — so those cases run with a 125 kB queue (one BDP standing plus
one BDP of extra, ``celltcp.models.overrun_free_extra_buffer_bytes`` for interruptions of an
RTT or more) and a window-limited download: the UE's socket has an 80 kB receive buffer
(``SO_RCVBUF``), for which Linux advertises about 99 kB; the simulated receiver gets the largest
window the kernel's advertised in the capture (``tcp.rcv_buf``).

``--rto-min`` sets the kernel's minimum RTO on the server's route (``ip route change … rto_min``)
and ``tcp.min_rto`` in the simulation (default: Linux's 200 ms in both). celltcp's TCP has no
tail loss probe (TLP, RFC 8985 §7), which Linux sends two smoothed RTTs after its last
transmission and which turns a timeout into fast recovery when it gets through; the kernel runs
without it (``net.ipv4.tcp_early_retrans = 0`` in the server's namespace) unless ``--tlp``.

Per run: the goodput, the outcome class of the handover for the download (``emulation.handovers``
from the packets; ``RunResult.handovers`` in the simulation), and from the capture the sender's
longest silence after the handover started (the gap between data segments entering the path)
with the goodput in the second before the handover and in the first and second seconds after
that silence. Prints a Markdown table of medians; ``--json`` writes every run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import statistics
import struct
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import celltcp
from celltcp.emulate.programs import ExecSpec
from celltcp.emulate.runner import emulate

# The suite's kernel configuration is the one definition of "celltcp set up as Linux"; this
# file also runs as a script, with only its own directory on the path.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from emu_tools.suite import KERNEL_TCP

ROOT = Path(__file__).resolve().parents[3]
SCENARIO = ROOT / "python/celltcp/examples" / "emulation" / "path-10m-50ms.toml"
TOOL = Path(__file__).resolve().parent / "bulk_transfer.py"
#: celltcp's controller for each kernel one: with the kernel's configuration, CUBIC as
#: tcp_cubic.c (`cubic-linux`, HyStart); with celltcp's own defaults, celltcp's `cubic`
#: (HyStart++, RFC 9406).
SIM_CC = {"reno": "newreno", "cubic": "cubic-linux", "bbr": "bbr"}
SIM_CC_DEFAULTS = {"reno": "newreno", "cubic": "cubic", "bbr": "bbr"}
SERVER, UE = "10.0.0.1", "10.0.0.2"
HANDOVER_AT_S = 3.0
#: Queue of the forwarding cases and the UE's receive buffer then (see above), bytes.
FORWARD_QUEUE_BYTES = 125_000
FORWARD_RCVBUF_BYTES = 80_000


def case_settings(case: str, at_s: float = HANDOVER_AT_S) -> tuple[list[str], int | None]:
    """Scenario overrides and the UE's receive buffer (bytes, or None: the kernel's autotuning)
    of a case whose handover comes at ``at_s`` seconds."""
    if case == "none":
        return [], None
    policy = next((p for p in ("discard", "forward") if case.startswith(p)), None)
    digits = case[len(policy or "") :]
    if policy is None or not (digits.isdigit() or (policy == "discard" and digits == "")):
        raise SystemExit(f"unknown case {case!r}: none, discard[N] or forwardN (N in ms)")
    ms = int(digits) if digits else 100
    event = (
        f'events=[{{at="{at_s}s", link="wired", direction="a_to_b", '
        f'handover={{interruption="{ms}ms", policy="{policy}"}}}}]'
    )
    if policy == "discard":
        return [event], None
    return [event, f"links.wired.queue.limit={FORWARD_QUEUE_BYTES}B"], FORWARD_RCVBUF_BYTES


# -- the capture ----------------------------------------------------------------------------------


def read_pcap(path: Path) -> list[tuple[float, bytes]]:
    """(Unix seconds, datagram) per record of a nanosecond LINKTYPE_RAW capture."""
    data = path.read_bytes()
    records, at = [], 24
    while at + 16 <= len(data):
        sec, nsec, incl, _ = struct.unpack_from("<IIII", data, at)
        at += 16
        records.append((sec + nsec * 1e-9, data[at : at + incl]))
        at += incl
    return records


def tcp_fields(d: bytes) -> tuple[str, str, int, int, int] | None:
    """(src, dst, seq, ack, payload bytes) of an IPv4/TCP datagram."""
    if len(d) < 40 or d[0] >> 4 != 4 or d[9] != 6:
        return None
    ihl = (d[0] & 15) * 4
    total = struct.unpack_from(">H", d, 2)[0]
    seq, ack = struct.unpack_from(">II", d, ihl + 4)
    doff = (d[ihl + 12] >> 4) * 4
    src = ".".join(map(str, d[12:16]))
    dst = ".".join(map(str, d[16:20]))
    return src, dst, seq, ack, total - ihl - doff


def _window(d: bytes, shift: int) -> tuple[int, int]:
    """(the window the segment advertises, bytes; the window scale its SYN announces, or
    ``shift`` when it is no SYN), RFC 7323 §2."""
    ihl = (d[0] & 15) * 4
    doff = (d[ihl + 12] >> 4) * 4
    if d[ihl + 13] & 0x02:
        opts, i = d[ihl + 20 : ihl + doff], 0
        while i < len(opts) and opts[i] != 0:
            if opts[i] == 1:
                i += 1
                continue
            if opts[i] == 3 and i + 2 < len(opts):
                shift = opts[i + 2]
            i += max(2, opts[i + 1] if i + 1 < len(opts) else 2)
        return 0, shift
    return struct.unpack_from(">H", d, ihl + 14)[0] << shift, shift


def capture_figures(path: Path, handover_unix: float | None) -> dict[str, Any]:
    """From the capture (each datagram recorded where it entered the path and again where it
    left; the first copy of a byte string is its entry): the largest window the UE advertised,
    and with a handover at ``handover_unix`` the sender's longest silence after it started and
    the goodput (from the UE's cumulative ACKs as they entered) in the second before the
    handover and in the first and second seconds after that silence."""
    seen: set[bytes] = set()
    data_in: list[float] = []
    acks: list[tuple[float, int]] = []
    base, shift, max_window = None, 0, 0
    for t, d in read_pcap(path):
        if d in seen:
            continue
        seen.add(d)
        f = tcp_fields(d)
        if f is None:
            continue
        src, _, _, ack, payload = f
        if src == SERVER and payload > 0:
            data_in.append(t)
        elif src == UE:
            window, shift = _window(d, shift)
            max_window = max(max_window, window)
            base = ack if base is None else base
            acks.append((t, (ack - base) % 2**32))
    out: dict[str, Any] = {"max_window_bytes": max_window}
    if handover_unix is None:
        return out
    around = [t for t in data_in if handover_unix - 0.05 <= t <= handover_unix + 2.0]
    if len(around) < 2 or not acks:
        return out
    gap, start, end = max((b - a, a, b) for a, b in itertools.pairwise(around))

    def delivered(t: float) -> int:
        best = 0
        for ta, a in acks:
            if ta > t:
                break
            best = max(best, a)
        return best

    def rate(a: float, b: float) -> float:
        return (delivered(b) - delivered(a)) * 8 / (b - a)

    out.update(
        {
            "sender_gap_s": gap,
            "gap_after_handover_s": start - handover_unix,
            "goodput_before_bps": rate(handover_unix - 1.0, handover_unix),
            "goodput_after_0_1_bps": rate(end, end + 1.0),
            "goodput_after_1_2_bps": rate(end + 1.0, end + 2.0),
        }
    )
    return out


# -- one kernel run, one simulation ---------------------------------------------------------------


def kernel_run(
    cc: str,
    case: str,
    nbytes: int,
    rto_min: str | None,
    work: Path,
    at_s: float = HANDOVER_AT_S,
    tlp: bool = False,
) -> dict[str, Any]:
    """One emulation with the kernel's ``cc``: the client's goodput, the handover row of the
    download (``None`` without a handover) and its outcome, the capture's figures."""
    sets, rcvbuf = case_settings(case, at_s)
    client_json = work / "client.json"
    client_json.unlink(missing_ok=True)
    setup = "" if tlp else "sysctl -qw net.ipv4.tcp_early_retrans=0 && "
    if rto_min:
        setup += f"ip route change $(ip route show default) rto_min {rto_min} && "
    python = sys.executable
    server = f"{setup}{python} {TOOL} server --bytes {nbytes} --cc {cc} --timeout 60 &"
    client = f"{python} {TOOL} client --connect server --bytes {nbytes} --timeout 60"
    if rcvbuf is not None:
        client += f" --rcvbuf {rcvbuf}"
    pcap = work / "path.pcap"
    load = os.getloadavg()[0]
    run = emulate(
        SCENARIO,
        ["server", "ue"],
        set=sets,
        duration=60.0,
        pcap=pcap,
        execs=[ExecSpec("server", server), ExecSpec("ue", f"{client} > {client_json}")],
    )
    if not run.programs_ok:
        raise RuntimeError(f"{cc}/{case}: a program failed: {[p.describe() for p in run.programs]}")
    got = json.loads(client_json.read_text())
    row = next(
        (h for h in run.emulation.get("handovers") or [] if h.get("sender", "").startswith(SERVER)),
        None,
    )
    conns = run.emulation.get("connections") or []
    retx = sum(
        c["reverse" if c["src"] == UE else "forward"]["retransmitted_segments"] for c in conns
    )
    # Simulated time 0 in Unix time: the first datagram captured is the first seen.
    handover_unix = None
    if row is not None and conns:
        first_unix = read_pcap(pcap)[0][0]
        handover_unix = first_unix - conns[0]["first_seen_s"] + row["start_s"]
    timing = run.emulation.get("timing_error_s") or {}
    return {
        "side": "kernel",
        "cc": cc,
        "case": case,
        "load": load,
        "tlp": tlp,
        "goodput_bps": got["goodput_bps"],
        "outcome": row["outcome"] if row else "none",
        "handover": row,
        "retransmitted_segments": retx,
        "timing_p99_s": timing.get("p99"),
        "late_packets": run.emulation.get("late_packets"),
        **capture_figures(pcap, handover_unix),
    }


def sim_run(
    cc: str,
    case: str,
    nbytes: int,
    rto_min: str | None,
    at_s: float = HANDOVER_AT_S,
    rcv_buf: int | None = None,
    kernel_config: bool = True,
    run: int = 0,
) -> dict[str, Any]:
    """The same download simulated with celltcp's TCP (``SIM_CC[cc]``); ``rcv_buf`` bounds the
    receiver's window (bytes). With ``kernel_config`` the sender and receiver take the
    kernel's configuration (the suite's :data:`KERNEL_TCP`, without its receive buffer: here
    the kernel autotunes, or the case sets ``SO_RCVBUF``); without it, celltcp's defaults
    (``SIM_CC_DEFAULTS[cc]``). ``run`` is the replication: the path has no randomness, but a
    controller may draw (BBR its ProbeBW start phase, per connection, as Linux)."""
    sets, _ = case_settings(case, at_s)
    tcp = {k: v for k, v in KERNEL_TCP.items() if k != "rcv_buf"} if kernel_config else {}
    if rto_min:
        tcp["min_rto"] = f'"{rto_min}"'
    if rcv_buf is not None:
        tcp["rcv_buf"] = f'"{rcv_buf}B"'
    sim_cc = (SIM_CC if kernel_config else SIM_CC_DEFAULTS)[cc]
    tcp_table = ", ".join(f"{k}={v}" for k, v in tcp.items())
    flow = (
        f'flows.bulk={{kind="tcp", src="server", dst="ue", cc="{sim_cc}", '
        f'app={{kind="bulk", bytes="{nbytes}B"}}, tcp={{{tcp_table}}}}}'
    )
    result = celltcp.run(
        SCENARIO,
        run=run,
        set=[*sets, flow, 'trace.tcp=["delivered"]', 'trace.tcp_flows=["bulk"]'],
    )
    d = result.series["tcp"]
    d = d[d["var"] == "delivered"]
    span = (d["time_ns"].iloc[-1] - d["time_ns"].iloc[0]) * 1e-9
    h = result.handovers
    row = h.iloc[0].to_dict() if len(h) else None
    sender = result.summary["flows"]["bulk"]["sender"]
    return {
        "side": "sim",
        "cc": cc,
        "sim_cc": sim_cc,
        "kernel_config": kernel_config,
        "run": run,
        "case": case,
        "goodput_bps": nbytes * 8 / span,
        "outcome": row["outcome"] if row else "none",
        "rcv_buf": rcv_buf,
        "handover": {
            k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()
        }
        if row
        else None,
        "retransmitted_segments": sender.get("retransmissions"),
    }


# -- the table ------------------------------------------------------------------------------------


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(values) if values else None


def _handover_median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [
        r["handover"][key]
        for r in runs
        if r.get("handover") and isinstance(r["handover"].get(key), (int, float))
    ]
    return statistics.median(values) if values else None


def _classes(runs: list[dict[str, Any]]) -> str:
    counts = Counter(r["outcome"] for r in runs)
    return ", ".join(f"{k} {v}/{len(runs)}" if len(runs) > 1 else k for k, v in counts.items())


def _mbps(v: float | None) -> str:
    return "-" if v is None else f"{v / 1e6:.2f}"


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v * 1e3:.0f}"


def _n(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f}"


def _s(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def table(runs: list[dict[str, Any]]) -> str:
    """Medians per (kernel cc, case), Markdown."""
    head = (
        "| kernel cc | case | goodput kernel (Mb/s) | goodput sim (Mb/s) | sim/kernel | "
        "outcome kernel | outcome sim | dropped kernel / sim | sender silence kernel (ms) | "
        "silence / RTO est. (ms) | goodput kernel before / 0–1 s / 1–2 s after (Mb/s) | "
        "recovery kernel / sim (s) |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    order = {
        c: i
        for i, c in enumerate(
            ["none", "discard", "forward40", "forward100", "forward200", "forward300"]
        )
    }
    keys = sorted(
        {(r["cc"], r["case"]) for r in runs},
        key=lambda k: (list(SIM_CC).index(k[0]), order.get(k[1], 99), k[1]),
    )
    for cc, case in keys:
        k = [r for r in runs if r["side"] == "kernel" and (r["cc"], r["case"]) == (cc, case)]
        s = [r for r in runs if r["side"] == "sim" and (r["cc"], r["case"]) == (cc, case)]
        gk, gs = _median(k, "goodput_bps"), _median(s, "goodput_bps")
        ratio = f"{gs / gk:.3f}" if gk and gs else "-"
        if case == "none":
            lines.append(
                f"| {cc} | {case} | {_mbps(gk)} | {_mbps(gs)} | {ratio} | "
                f"{_classes(k)} | {_classes(s)} | - | - | - | - | - |"
            )
            continue
        around = " / ".join(
            _mbps(_median(k, key))
            for key in ("goodput_before_bps", "goodput_after_0_1_bps", "goodput_after_1_2_bps")
        )
        dropped = f"{_n(_handover_median(k, 'dropped'))} / {_n(_handover_median(s, 'dropped'))}"
        silence = _handover_median(k, "silence_s")
        est = (
            f"{_ms(silence)} / {_ms(_handover_median(k, 'rto_estimate_s'))}"
            if silence is not None
            else "-"
        )
        recovery = (
            f"{_s(_handover_median(k, 'recovery_time_s'))} / "
            f"{_s(_handover_median(s, 'recovery_time_s'))}"
        )
        lines.append(
            f"| {cc} | {case} | {_mbps(gk)} | {_mbps(gs)} | {ratio} | {_classes(k)} | "
            f"{_classes(s)} | {dropped} | {_ms(_median(k, 'sender_gap_s'))} | {est} | "
            f"{around} | {recovery} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cc", default="reno,cubic,bbr")
    p.add_argument("--cases", default="none,discard,forward40,forward100,forward200,forward300")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--bytes", type=int, default=10_000_000)
    p.add_argument("--rto-min", help="minimum RTO of both TCPs, e.g. 1s (default 200ms)")
    p.add_argument("--tlp", action="store_true", help="keep Linux's tail loss probe on")
    p.add_argument("--json", type=Path, help="write every run here")
    p.add_argument(
        "--celltcp-defaults",
        action="store_true",
        help="simulate with celltcp's own TCP defaults (and its cubic) instead of the kernel's",
    )
    p.add_argument(
        "--sim-reps",
        type=int,
        default=16,
        help="simulated replications per case (BBR's ProbeBW phase differs between them)",
    )
    p.add_argument(
        "--sim-only",
        type=Path,
        metavar="JSON",
        help="no emulation: simulate again against the kernel runs of a --json file",
    )
    a = p.parse_args(argv)
    ccs, cases = a.cc.split(","), a.cases.split(",")
    for cc in ccs:
        if cc not in SIM_CC:
            p.error(f"--cc {cc}: one of {', '.join(SIM_CC)}")
    kernel_config = not a.celltcp_defaults
    runs: list[dict[str, Any]] = []
    if a.sim_only:
        stored = [r for r in json.loads(a.sim_only.read_text()) if r["side"] == "kernel"]
        for case in cases:
            for cc in ccs:
                kernel = [r for r in stored if r["cc"] == cc and r["case"] == case]
                if not kernel:
                    continue
                _, rcvbuf = case_settings(case)
                window = max(r["max_window_bytes"] for r in kernel) if rcvbuf else None
                runs += kernel
                runs += [
                    sim_run(
                        cc,
                        case,
                        a.bytes,
                        a.rto_min,
                        rcv_buf=window,
                        kernel_config=kernel_config,
                        run=rep,
                    )
                    for rep in range(a.sim_reps)
                ]
        print(table(runs))
        return 0
    with tempfile.TemporaryDirectory(prefix="celltcp-validate-") as tmp:
        work = Path(tmp)
        for case in cases:
            for cc in ccs:
                kernel = []
                for rep in range(a.reps):
                    started = time.monotonic()
                    r = kernel_run(cc, case, a.bytes, a.rto_min, work, tlp=a.tlp)
                    r["rep"] = rep
                    kernel.append(r)
                    print(
                        f"{cc:5} {case:10} rep {rep}: {r['goodput_bps'] / 1e6:.2f} Mb/s, "
                        f"{r['outcome']}, load {r['load']:.2f}, "
                        f"{time.monotonic() - started:.1f} s",
                        file=sys.stderr,
                        flush=True,
                    )
                # The simulated receiver advertises at most what the kernel's did.
                _, rcvbuf = case_settings(case)
                window = max(r["max_window_bytes"] for r in kernel) if rcvbuf else None
                runs += kernel
                runs += [
                    sim_run(
                        cc,
                        case,
                        a.bytes,
                        a.rto_min,
                        rcv_buf=window,
                        kernel_config=kernel_config,
                        run=rep,
                    )
                    for rep in range(a.sim_reps)
                ]
    if a.json:
        a.json.write_text(json.dumps(runs, indent=1, default=str) + "\n")
    loads = [r["load"] for r in runs if "load" in r]
    print(table(runs))
    print(
        f"\nload average (1 min) at the kernel runs: median {statistics.median(loads):.2f}, "
        f"max {max(loads):.2f}; at the end: {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
