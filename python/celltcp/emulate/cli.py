"""The ``celltcp emulate`` and ``celltcp shell`` commands.

    celltcp emulate SCENARIO --host NAME [--host NAME]... [--exec HOST=CMD]... [--set k=v]...
                    [--duration T] [--out DIR] [--overwrite] [--pcap FILE] [--seed N] [--run N]
                    [--max-lag T] [--priority auto|off|N] [--mtu BYTES] [--json] [--quiet]
    celltcp emulate --cleanup [--force]
    celltcp shell SCENARIO --host NAME [--pid PID] [-- CMD [ARG]...]

Exit status of ``emulate``: 0 on success; 1 when an ``--exec`` program failed or had to be
stopped because the emulation ended first (the outputs are written all the same); 2 on a user
error, including missing privileges (nothing is left created); 3 on a failure inside the engine;
4 when the engine could not keep up with real time (no outputs; the message says by how much it
fell behind and what to lower); 128 + N when signal N arrived during set-up. ``shell`` exits
with the command's own status.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from celltcp._argtypes import non_negative_int, positive_int
from celltcp.emulate import cleanup, netns, privileges, registry
from celltcp.emulate.errors import EmulationError, RealTimeError
from celltcp.emulate.programs import parse_exec
from celltcp.emulate.runner import (
    DEFAULT_MAX_LAG_S,
    DEFAULT_MTU,
    EmulationRun,
    emulate,
    parse_priority,
)
from celltcp.emulate.session import Interrupted, environment
from celltcp.output import (
    OutputDirError,
    atomic_output_dir,
    check_output_dir,
    make_parents,
    remove_empty,
)
from celltcp.report import format_rate, format_seconds, format_table, summary_tables

__all__ = ["parse_duration", "register"]

EXIT_PROGRAM_FAILED = 1
#: The engine fell behind real time: the machine could not emulate the path.
EXIT_REAL_TIME = 4

_DURATION = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(us|µs|ms|s|min|h)?\s*")
_UNIT_S = {None: 1.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "min": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds from ``"30"``, ``"30s"``, ``"500ms"``, ``"250us"``, ``"2min"`` or ``"1h"``
    (argparse type)."""
    m = _DURATION.fullmatch(text)
    if not m or float(m.group(1)) <= 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a positive duration (e.g. 30s, 500ms, 2min)"
        )
    return float(m.group(1)) * _UNIT_S[m.group(2)]


def _priority(text: str) -> str | int:
    """``auto``, ``off`` or 1 to 99 (argparse type)."""
    from celltcp.errors import ScenarioError

    try:
        return parse_priority(text)
    except ScenarioError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not auto, off or a SCHED_FIFO priority from 1 to 99"
        ) from None


class _Refused(Exception):
    """A user error of these commands (exit status 2)."""


def _user_error(message: str) -> Exception:
    return _Refused(message)


Handler = Callable[[argparse.Namespace], int]


def _reporting_user_errors(handler: Handler) -> Handler:
    """Reports the commands' user errors — set-up problems included (privileges, iproute2, the
    TUN driver) — as ``celltcp: error: ...`` with exit status 2, as the main command does.

    They are caught here rather than left to the main command because that command's own
    ``UserError`` class is a different object when it runs as ``python -m celltcp.cli`` (the
    module is then ``__main__``, and importing ``celltcp.cli`` creates a second copy).
    """

    def run(args: argparse.Namespace) -> int:
        from celltcp.cli import EXIT_USER_ERROR, UserError, _error

        try:
            return handler(args)
        except (_Refused, EmulationError, UserError) as e:
            _error("error", str(e))
            return EXIT_USER_ERROR

    return run


def _check_writable(option: str, path: Path, *, directory: bool) -> None:
    """Refuses, before the emulation starts, an output that could not be written at its end:
    the nearest existing ancestor must be a writable directory."""
    probe = Path(os.path.abspath(path))
    if probe.exists() and probe.is_dir() != directory:
        kind = "is a directory" if probe.is_dir() else "exists and is not a directory"
        raise _user_error(f"{option} {path}: {kind}")
    probe = probe if directory else probe.parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise _user_error(f"{option} {path}: cannot write: {probe} is not a writable directory")


# -- emulate --------------------------------------------------------------------------------------


def _ask(names: list[str]) -> bool:
    """On a terminal: lists what no registry file names and asks whether to remove it."""
    print(
        "celltcp: no emulation registry file names these (their processes are gone):",
        file=sys.stderr,
    )
    for name in names:
        print(f"  {name}", file=sys.stderr)
    try:
        answer = input("remove them? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _cmd_cleanup(args: argparse.Namespace) -> int:
    if args.scenario or args.host or args.exec:
        raise _user_error("emulate --cleanup takes no scenario, --host or --exec")
    privileges.check(tun_path=None)
    interactive = not args.force and sys.stdin.isatty() and sys.stderr.isatty()
    report = cleanup.cleanup_stale(force=args.force, confirm=_ask if interactive else None)
    for name in report.namespaces:
        print(f"removed namespace {name}")
    for name in report.devices:
        print(f"removed device {name}")
    for pid in report.processes:
        print(f"stopped process {pid}")
    for pid in report.registrations:
        print(f"removed registration of emulation {pid}")
    if report.unregistered and not report.forced:
        names = "; ".join(report.unregistered)
        print(
            f"celltcp: left alone, no registry file names them: {names} "
            "(remove them with 'celltcp emulate --cleanup --force')",
            file=sys.stderr,
        )
    if not args.quiet:
        pids = ", ".join(map(str, report.kept))
        kept = f"; running emulations left alone: {pids}" if report.kept else ""
        what = "leftovers removed" if report.removed_anything else "nothing to clean up"
        print(f"celltcp: {what}{kept}", file=sys.stderr)
    if report.errors:
        raise _user_error("clean-up incomplete: " + "; ".join(report.errors))
    return 0


def _emulation_text(run: EmulationRun) -> str:
    """The real-time figures, the real TCP connections and the programs, as text."""
    e = run.emulation
    lines = [
        f"emulation: {run.wall_s:.2f} s of real time, stopped by {run.stopped_by}; "
        f"set-up {run.setup_s * 1e3:.0f} ms, teardown {run.teardown_s * 1e3:.0f} ms",
        f"  engine ({_scheduling(e)}) lag: mean {format_seconds(e.get('lag_mean_s'))}, "
        f"max {format_seconds(e.get('lag_max_s'))}; datagrams late by more than "
        f"{format_seconds(e.get('late_threshold_s'))}: {_count(e.get('late_packets'))}",
    ]
    timing = e.get("timing_error_s")
    if isinstance(timing, dict):
        lines.append(
            "  output timing error: "
            + ", ".join(
                f"{k} {format_seconds(timing.get(k))}" for k in ("p50", "p90", "p99", "max")
            )
        )
    lines.append(
        f"  datagrams into/out of the path: {_count(e.get('packets_in'))}/"
        f"{_count(e.get('packets_out'))} ({_count(e.get('bytes_in'))}/{_count(e.get('bytes_out'))}"
        f" bytes); lost on the path: {_count(e.get('not_delivered'))}; refused: "
        f"{_count(e.get('dropped_non_ipv4'))} not IPv4, {_count(e.get('dropped_unroutable'))} "
        f"unroutable, {_count(e.get('dropped_foreign_source'))} foreign source"
    )
    rows = [
        row
        for c in _connections(e)
        for d in ("forward", "reverse")
        if (row := _direction_row(c, d)) is not None
    ]
    if rows:
        header = [
            "real TCP data",
            "goodput",
            "delivered",
            "segments",
            "retransmitted",
            "rtt min",
            "rtt mean",
            "rtt p99",
        ]
        lines.append(format_table(header, rows))
    handovers = [h for h in e.get("handovers") or [] if isinstance(h, dict)]
    if handovers:
        header = [
            "handover",
            "real TCP data",
            "outcome",
            "dropped",
            "silence / RTO",
            "rtt before",
            "rtt peak",
            "goodput before",
            "recovery",
        ]
        lines.append(format_table(header, [_handover_row(h) for h in handovers]))
    for p in run.programs:
        lines.append(f"  program {p.describe()}")
    return "\n".join(lines)


def _handover_row(h: dict[str, Any]) -> list[str]:
    """One line per handover × direction of data of a real connection."""
    interruption = h.get("interruption_s")
    what = f"{h.get('handover', '?')} {h.get('cause', '?')}/{h.get('policy', '?')}"
    if isinstance(interruption, (int, float)):
        what += f" {format_seconds(interruption)}"
    silence, rto = h.get("silence_s"), h.get("rto_estimate_s")
    gap = f"{format_seconds(silence)} / {format_seconds(rto)}" if silence is not None else "-"
    return [
        what,
        f"{h.get('sender', '?')} > {h.get('receiver', '?')}",
        str(h.get("outcome", "-")),
        _count(h.get("dropped")),
        gap,
        format_seconds(h.get("rtt_before_s")),
        format_seconds(h.get("rtt_peak_s")),
        format_rate(h.get("goodput_before_bps")),
        format_seconds(h.get("recovery_time_s")),
    ]


def _scheduling(e: dict[str, Any]) -> str:
    priority = e.get("priority")
    return f"SCHED_FIFO {priority}" if isinstance(priority, int) else "default scheduling"


def _count(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "-"


def _connections(e: dict[str, Any]) -> list[dict[str, Any]]:
    conns = e.get("connections") or []
    return [c for c in conns if isinstance(c, dict)]


def _direction_row(c: dict[str, Any], direction: str) -> list[str] | None:
    """One line per direction of a real TCP connection that carried data: the sender first
    (``forward`` is from ``src``, ``reverse`` from ``dst``)."""
    d = c.get(direction)
    if not isinstance(d, dict) or not d.get("data_segments"):
        return None
    ends = [
        f"{c.get('src', '?')}:{c.get('src_port', '?')}",
        f"{c.get('dst', '?')}:{c.get('dst_port', '?')}",
    ]
    if direction == "reverse":
        ends.reverse()
    rtt: dict[str, Any] = d["rtt"] if isinstance(d.get("rtt"), dict) else {}
    return [
        f"{ends[0]} > {ends[1]}",
        format_rate(d.get("goodput_bps")),
        f"{d.get('bytes_delivered', 0):,} B",
        f"{d.get('data_segments', 0):,}",
        f"{d.get('retransmitted_segments', 0):,}",
        format_seconds(rtt.get("min_s")),
        format_seconds(rtt.get("mean_s")),
        format_seconds(rtt.get("p99_s")),
    ]


def _write_outputs(run: EmulationRun, out: Path, overwrite: bool) -> None:
    """Adds the outputs into ``out`` file by file: a capture or a program's files put there
    during the emulation stay (celltcp.output, ``mode="add"``)."""
    try:
        with atomic_output_dir(
            out, overwrite=overwrite, mode="add", writer="celltcp emulate"
        ) as tmp:
            run.result._write_files(tmp)
            text = json.dumps(run.to_json(), indent=2, sort_keys=True, allow_nan=True)
            (tmp / "emulation.json").write_text(text + "\n", encoding="utf-8")
    except OutputDirError as e:
        raise _user_error(f"--out {e}") from None
    except OSError as e:
        raise _user_error(f"--out {out}: cannot write output: {e.strerror or e}") from None


def _cmd_emulate(args: argparse.Namespace) -> int:
    if args.cleanup:
        return _cmd_cleanup(args)
    if args.force:
        raise _user_error("--force: only with --cleanup")
    if args.scenario is None:
        raise _user_error("emulate: name a scenario file (or give --cleanup)")
    from celltcp.cli import _load, _one_line

    scenario = _load(args.scenario)
    specs = [parse_exec(text) for text in args.exec]
    default_out = Path("out") / f"emulate-{Path(args.scenario).stem}"
    if args.out is not None and not args.out.strip():
        # Path("") would make it "."; named as given.
        raise _user_error('--out "": an empty path is not an output directory')
    out = Path(args.out) if args.out is not None else default_out
    try:
        check_output_dir(out, overwrite=args.overwrite)
    except OutputDirError as e:
        raise _user_error(f"--out {e}") from None
    _check_writable("--out", out, directory=True)
    if args.pcap is not None:
        _check_writable("--pcap", Path(args.pcap), directory=False)
    # The output directory exists from the start, so that the capture (--pcap DIR/p.pcap) and
    # the programs can write into it; the outputs are added beside their files at the end.
    # Directories created here and still empty when the emulation fails are removed.
    created: list[Path] = []
    done = False
    try:
        try:
            created += make_parents(out)
            if args.pcap is not None:
                created += make_parents(Path(args.pcap).parent)
        except OSError as e:
            raise _user_error(f"--out {out}: cannot create: {e.strerror or e}") from None
        try:
            run = emulate(
                scenario,
                args.host,
                set=args.set,
                seed=args.seed,
                run=args.run,
                duration=args.duration,
                pcap=args.pcap,
                max_lag=args.max_lag,
                execs=specs,
                mtu=args.mtu,
                priority=args.priority,
            )
        except RealTimeError as e:
            from celltcp.cli import _error

            _error("error", str(e))
            return EXIT_REAL_TIME
        except Interrupted as e:
            print(
                f"celltcp: {signal.Signals(e.signum).name} during set-up; everything created "
                "was removed",
                file=sys.stderr,
            )
            return 128 + e.signum
        for problem in run.teardown_errors:
            print(f"celltcp: warning: teardown: {_one_line(problem)}", file=sys.stderr)
        _write_outputs(run, out, args.overwrite)
        done = True
    finally:
        if not done:
            remove_empty(sorted(set(created), key=lambda p: len(p.parts)))
    if args.json:
        print(
            json.dumps(
                {"summary": run.result.summary, "emulation": run.to_json()},
                indent=2,
                sort_keys=True,
            )
        )
    elif not args.quiet:
        print(summary_tables(run.result.summary))
        print(_emulation_text(run))
    if not args.quiet:
        print(f"celltcp: outputs in {out}", file=sys.stderr)
    return 0 if run.programs_ok else EXIT_PROGRAM_FAILED


# -- shell ----------------------------------------------------------------------------------------


def _find_emulation(scenario: str, pid: int | None) -> registry.Registration:
    running = registry.running_for(scenario)
    if pid is not None:
        for reg in running:
            if reg.pid == pid:
                return reg
        others = f" (running: {', '.join(str(r.pid) for r in running)})" if running else ""
        raise _user_error(f"--pid {pid}: no running emulation of {scenario} has this pid{others}")
    if not running:
        raise _user_error(
            f"no running emulation of {scenario}; start one with "
            f"'celltcp emulate {scenario} --host HOST'"
        )
    if len(running) > 1:
        pids = ", ".join(str(r.pid) for r in running)
        raise _user_error(
            f"{len(running)} emulations of {scenario} are running; choose one with --pid ({pids})"
        )
    return running[0]


def _cmd_shell(args: argparse.Namespace) -> int:
    _split_shell_arguments(args)
    if not args.host:
        raise _user_error("shell: --host NAME is required (see 'celltcp shell --help')")
    if not os.path.isfile(args.scenario):
        raise _user_error(f"{args.scenario}: no such scenario file")
    reg = _find_emulation(args.scenario, args.pid)
    entry = reg.hosts.get(args.host)
    if entry is None:
        raise _user_error(
            f"--host {args.host}: not attached to emulation {reg.pid} "
            f"(attached: {', '.join(reg.hosts)})"
        )
    privileges.check(tun_path=None)
    if entry.namespace not in netns.list_namespaces():
        raise _user_error(f"namespace {entry.namespace} of emulation {reg.pid} is gone")
    command = list(args.command) or [os.environ.get("SHELL") or "/bin/sh"]
    env = dict(os.environ)
    env.update(environment({h: e.address for h, e in reg.hosts.items()}, args.host, reg.pid))
    argv = netns.exec_argv(entry.namespace, command)
    # Recorded before the exec, under this process's pid and start time, which the command
    # keeps ('ip netns exec' execs it in place): the emulation's teardown and
    # 'emulate --cleanup' stop it by this record.
    pid = os.getpid()
    registry.record_program(
        reg.pid,
        registry.ProgramEntry(
            pid=pid,
            start_time=registry.process_start_time(pid),
            host=args.host,
            namespace=entry.namespace,
            argv=tuple(command),
        ),
    )
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        # The command replaces this process: its exit status, signals and terminal are its own.
        os.execvpe(argv[0], argv, env)
    except OSError as e:
        raise _user_error(f"cannot run {argv[0]}: {e.strerror}") from None
    return 0  # not reached


# -- parser ---------------------------------------------------------------------------------------


class _ShellParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Refused(f"{message} (see 'celltcp shell --help')")


def _shell_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", metavar="NAME", help="attached host to enter (required)")
    p.add_argument(
        "--pid",
        type=positive_int,
        metavar="PID",
        help="which emulation, when several of the scenario are running",
    )
    p.add_argument(
        "command",
        nargs="*",
        metavar="CMD",
        help="command and arguments after '--' (default: $SHELL)",
    )


def _split_shell_arguments(args: argparse.Namespace) -> None:
    """Fills ``args.host``, ``args.pid`` and ``args.command`` from the words after SCENARIO:
    options up to ``--`` or the first word that is not an option, the command after."""
    rest = list(args.rest)
    options: list[str] = []
    command: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "--":
            command = rest[i + 1 :]
            break
        if not word.startswith("-"):
            command = rest[i:]
            break
        options.append(word)
        if word in ("--host", "--pid") and i + 1 < len(rest):
            options.append(rest[i + 1])
            i += 1
        i += 1
    inner = _ShellParser(prog="celltcp shell", add_help=False)
    _shell_options(inner)
    parsed = inner.parse_args(options)
    args.host = parsed.host or args.host
    args.pid = parsed.pid or args.pid
    args.command = command or list(args.command or [])


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Adds ``emulate`` and ``shell`` to the ``celltcp`` command's subparsers."""
    p = sub.add_parser(
        "emulate",
        help="run a scenario in real time with real programs attached to its hosts (root)",
    )
    p.add_argument("scenario", metavar="SCENARIO", nargs="?", help="scenario file (TOML)")
    p.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="NAME",
        help="scenario host to attach to a network namespace (repeatable, at least one)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario value by dotted key, e.g. links.access.rate=10Mbps",
    )
    p.add_argument("--seed", type=non_negative_int, help="master seed (overrides simulation.seed)")
    p.add_argument("--run", type=non_negative_int, default=0, help="replication number (default 0)")
    p.add_argument(
        "--duration",
        type=parse_duration,
        metavar="T",
        help="real time to run, e.g. 30s (default: the scenario's simulation.duration)",
    )
    p.add_argument("--out", metavar="DIR", help="output directory (default out/emulate-<stem>)")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="write into --out even if it holds files celltcp did not write (they stay)",
    )
    p.add_argument("--pcap", metavar="FILE", help="capture the real packets on the path to FILE")
    p.add_argument(
        "--exec",
        action="append",
        default=[],
        metavar="HOST=CMD",
        help="run CMD with /bin/sh in HOST's namespace once the path is up (repeatable); "
        "the emulation ends when all have exited",
    )
    p.add_argument(
        "--max-lag",
        type=parse_duration,
        default=DEFAULT_MAX_LAG_S,
        metavar="T",
        help="give up when the engine stays this far behind real time for over a second "
        f"(default {DEFAULT_MAX_LAG_S * 1e3:g}ms)",
    )
    p.add_argument(
        "--priority",
        type=_priority,
        default="auto",
        metavar="auto|off|N",
        help="scheduling of the engine's loop: auto (default: SCHED_FIFO priority 10 when "
        "permitted), off (the default scheduler) or a SCHED_FIFO priority 1-99 (fails if not "
        "permitted)",
    )
    p.add_argument(
        "--mtu",
        type=positive_int,
        default=DEFAULT_MTU,
        metavar="BYTES",
        help=f"MTU of the namespaces' interfaces (default {DEFAULT_MTU})",
    )
    p.add_argument(
        "--cleanup",
        action="store_true",
        help="remove the namespaces, devices and programs that the registry records for "
        "emulations that were killed, then exit",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="with --cleanup: also remove celltcp-<pid>-* namespaces and celltcp<pid><letter> "
        "devices of dead processes that no registry file names (asked on a terminal otherwise)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(handler=_reporting_user_errors(_cmd_emulate))

    p = sub.add_parser(
        "shell",
        help="run a command inside a host's namespace of a running emulation (root)",
        usage="celltcp shell SCENARIO --host NAME [--pid PID] [-- CMD [ARG]...]",
    )
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file of the running emulation")
    _shell_options(p)
    # Everything after SCENARIO is split by _cmd_shell: argparse would hand "-- CMD" to no one
    # once SCENARIO has been matched, and would read the command's own options as its own.
    p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(handler=_reporting_user_errors(_cmd_shell))
