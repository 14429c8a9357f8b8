"""The ``celltcp`` command.

    celltcp run FILE [--seed N] [--run N] [--out DIR] [--overwrite] [--keep-partial]
                     [--set k=v]... [--pcap NAME]... [--snaplen SIZE] [--json] [--quiet]
    celltcp validate FILE [--set k=v]...
    celltcp sweep FILE [--workers N] [--store DIR] [--backend local|ray] [--address ADDR]
                       [--retry-failed] [--quiet]
    celltcp stats STORE [--confidence C] [--json]
    celltcp export STORE --parquet DIR [--overwrite]
    celltcp schema [--output]
    celltcp bench [--quick] [--runs N]
    celltcp plot KIND (--result DIR | --store DIR | model options) [--out FILE]
                      (kinds and options: celltcp.plot_cli, docs/cli.md)
    celltcp reproduce NAME [--quick] [--out DIR] [--overwrite] [--workers N] | --list
    celltcp study FILE [--quick] [--out DIR] [--set KEY=VALUE] [--overwrite] [--workers N]
    celltcp examples [copy NAME DIR | path NAME]       (see celltcp.examples_cli)
    celltcp emulate SCENARIO --host NAME... [--exec HOST=CMD]... [--duration T] [--out DIR]
                    [--overwrite] [--pcap FILE] [--set k=v]... | --cleanup
                    (see celltcp.emulate.cli)
    celltcp shell SCENARIO --host NAME [--pid PID] [-- CMD...]
    celltcp version | --version

Exit status: 0 on success; 2 on a user error (bad scenario, unreadable file, unwritable output,
bad option), reported as one line ``celltcp: error: <message>`` on stderr; 3 on a failure inside
the simulator, reported as ``celltcp: internal error: <message>``; 1 when a sweep stopped before
its end because a worker process died (the runs finished until then are stored); 130 when
interrupted (Ctrl-C): nothing is written, except with ``run --keep-partial``.

``--out`` never replaces a directory that celltcp did not write (celltcp.output, docs/cli.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from celltcp import _core
from celltcp._argtypes import non_negative_int, positive_int
from celltcp._docs import DOCS_URL, docs_url
from celltcp.errors import ScenarioError, SimulationError
from celltcp.output import OutputDirError, atomic_output_dir
from celltcp.outputs import label
from celltcp.progress import RunProgressLine
from celltcp.report import summary_tables
from celltcp.runner import parse_overrides, run
from celltcp.scenario import Scenario

__all__ = ["main"]

EXIT_INCOMPLETE = 1
EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 3
#: 128 + SIGINT, as shells report an interrupted command.
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """A mistake in the command line or its inputs; printed as one line, exit status 2."""


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr like every other user error."""

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message} (see '{self.prog} --help')")


def out_dir(given: str | None, default: Path) -> Path:
    """``--out`` as a path; ``default`` when it is not given. An empty ``--out`` is refused
    here, under its own name: ``Path("")`` would make it ``.``."""
    if given is None:
        return default
    if not given.strip():
        raise UserError('--out "": an empty path is not an output directory')
    return Path(given)


def add_overwrite_option(p: argparse.ArgumentParser) -> None:
    """``--overwrite``, for every command whose ``--out`` is a directory."""
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace --out even if it holds files celltcp did not write",
    )


def _load(path: str) -> Scenario:
    try:
        return Scenario.load(path)
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory, not a scenario file") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror or e}") from None


# -- commands -------------------------------------------------------------------------------------


def _cmd_run(args: argparse.Namespace) -> int:
    scenario = _load(args.file)
    overrides = parse_overrides(args.set, origin="--set")
    if args.snaplen is not None:
        # The scenario key capture.snaplen, which the core checks; a bare number is bytes.
        snaplen = args.snaplen.strip()
        overrides += parse_overrides(
            [f"capture.snaplen={snaplen}B" if snaplen.isdigit() else f"capture.snaplen={snaplen}"],
            origin="--snaplen",
        )
    # Validate before touching the file system, so bad input never creates an output directory.
    scenario.validate(overrides)
    out = out_dir(args.out, Path("out") / Path(args.file).stem)
    try:
        with atomic_output_dir(out, overwrite=args.overwrite, writer="celltcp run") as tmp:
            started = time.perf_counter()
            # On a terminal: simulated time, events/s and time left, erased when done.
            progress = RunProgressLine(Path(args.file).stem)
            progress.enabled = progress.enabled and not (args.quiet or args.json)
            try:
                result = run(
                    scenario,
                    seed=args.seed,
                    run=args.run,
                    set=overrides,
                    capture=args.pcap,
                    capture_dir=tmp,
                    keep_partial=args.keep_partial,
                    progress=progress if progress.enabled else None,
                )
            finally:
                progress.close()
            wall_s = time.perf_counter() - started
            result._write_files(tmp)
    except OutputDirError as e:
        raise UserError(f"--out {e}") from None
    except OSError as e:
        raise UserError(f"--out {out}: cannot write output: {e.strerror or e}") from None
    stop_reason = result.stop_reason
    simulated = result.simulated_time_s
    if stop_reason == label("stop_reason", "interrupted"):
        print(
            f"celltcp: interrupted at {_seconds(simulated)} simulated; what was simulated is in "
            f'{out} (stop_reason = "interrupted")',
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if args.json:
        print(json.dumps(result.summary, indent=2, sort_keys=True))
    elif not args.quiet:
        print(summary_tables(result.summary))
        handovers = result.handover_line()
        if handovers:
            print(f"handovers: {handovers}")
    if stop_reason == label("stop_reason", "eventbudget"):
        _error(
            "warning",
            f"the run was cut short by simulation.max_events at {_seconds(simulated)} simulated "
            "time; flows' end_s and rates are over the time simulated",
        )
    if not args.quiet:
        rate = result.events / wall_s if wall_s > 0 else float("inf")
        print(
            f"celltcp: {result.events:,} events in {_duration(wall_s)} wall time "
            f"({rate / 1e6:.2f} M events/s); outputs in {out}",
            file=sys.stderr,
        )
    return 0


def _seconds(value: object) -> str:
    return f"{value:g} s" if isinstance(value, (int, float)) else "?"


def _duration(seconds: float) -> str:
    return f"{seconds:.3f} s" if seconds >= 0.1 else f"{seconds * 1e3:.2f} ms"


def _cmd_validate(args: argparse.Namespace) -> int:
    scenario = _load(args.file)
    resolved = scenario.validate(parse_overrides(args.set, origin="--set"))

    def count(table: str) -> int:
        value = resolved.get(table)
        return len(value) if isinstance(value, (dict, list)) else 0

    print(
        f"{args.file}: ok ({count('nodes')} nodes, {count('links')} links, {count('flows')} flows)"
    )
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from celltcp.sweep import WorkerLost, execute_sweep
    from celltcp.sweep.progress import format_duration
    from celltcp.sweep.tables import stats_text

    store = args.store if args.store is not None else str(Path("out") / Path(args.file).stem)
    try:
        frame, report = execute_sweep(
            args.file,
            workers=args.workers,
            store=store,
            backend=args.backend,
            address=args.address,
            progress=not args.quiet,
            retry_failed=args.retry_failed,
        )
    except WorkerLost as e:
        _error(
            "error",
            f"{e}; the runs finished so far are stored in {store}; "
            "run the same command again to complete the sweep",
        )
        return EXIT_INCOMPLETE
    for text in report.warnings:
        _error("warning", text)
    if not args.quiet:
        print(stats_text(frame))
        ok = report.executed - report.failed
        print(
            f"celltcp: {report.runs} runs at {report.points} points: {report.executed} run now "
            f"({ok} ok, {report.failed} failed"
            + (
                f"; {report.other_build} replace runs another build made"
                if report.other_build
                else ""
            )
            + f"), {report.stored_before} already stored; "
            f"{format_duration(report.wall_s)} wall time; store {store}",
            file=sys.stderr,
        )
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from celltcp.sweep import Store
    from celltcp.sweep.runner import collect_store
    from celltcp.sweep.tables import stats_json, stats_text

    if not 0.0 < args.confidence < 1.0:
        raise UserError(f"--confidence {args.confidence}: must be between 0 and 1 (e.g. 0.95)")
    with Store.open(args.store, read_only=True) as store:
        frame = collect_store(store)
    if args.json:
        print(json.dumps(stats_json(frame, args.confidence), indent=2, allow_nan=False))
    elif len(frame) == 0:
        print(f"{args.store}: no runs stored")
    else:
        print(stats_text(frame, args.confidence))
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from celltcp.sweep.export import export_parquet

    try:
        done = export_parquet(args.store, args.parquet, overwrite=args.overwrite)
    except OutputDirError as e:
        raise UserError(f"--parquet {e}") from None
    except OSError as e:
        raise UserError(f"--parquet {args.parquet}: {e.strerror or e}") from None
    print(
        f"celltcp: {done.runs} runs, {done.scenarios} scenarios, {done.parameter_values} "
        f"parameter values and {done.series_files} series files written to {args.parquet}",
        file=sys.stderr,
    )
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    text = _core.output_schema() if args.output else _core.schema()
    print(json.dumps(json.loads(text), indent=2))
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from celltcp.bench import run_bench

    scenario = _load(args.scenario) if args.scenario else None
    return run_bench(quick=args.quick, runs=args.runs, scenario=scenario)


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from celltcp import reproduce

    if args.list:
        for r in reproduce.available():
            aliases = f" (also {', '.join(r.aliases)})" if r.aliases else ""
            print(f"{r.name}{aliases}: {r.summary}")
        return 0
    if args.name is None:
        raise UserError("reproduce: name a reproduction or give --list")
    entry = reproduce.find(args.name)  # an unknown name fails here, before anything is written
    out = out_dir(args.out, Path("out") / f"reproduce-{entry.name}")
    started = time.perf_counter()
    try:
        written = reproduce.reproduce(
            entry.name,
            out,
            quick=args.quick,
            workers=args.workers,
            progress=sys.stderr.isatty(),
            overwrite=args.overwrite,
        )
    except OutputDirError as e:
        raise UserError(f"--out {e}") from None
    except OSError as e:
        raise UserError(f"--out {out}: cannot write output: {e.strerror or e}") from None
    for path in written[:2]:
        print(path)
    print(
        f"celltcp: reproduction {entry.name} done in {_duration(time.perf_counter() - started)}; "
        f"runs stored in {reproduce.default_store(out)}",
        file=sys.stderr,
    )
    return 0


def _cmd_study(args: argparse.Namespace) -> int:
    from celltcp import study

    declared = study.load(args.source)
    if args.overrides:
        try:
            declared = declared.with_overrides(study.parse_set(args.overrides))
        except ValueError as e:
            raise UserError(f"--set {e}") from None
    out = out_dir(args.out, Path("out") / f"study-{declared.name}")
    started = time.perf_counter()
    command = f"celltcp study {args.source}" + (" --quick" if args.quick else "")
    try:
        written = study.write(
            declared,
            out,
            quick=args.quick,
            workers=args.workers,
            progress=sys.stderr.isatty(),
            overwrite=args.overwrite,
            command=command,
        )
    except OutputDirError as e:
        raise UserError(f"--out {e}") from None
    except OSError as e:
        raise UserError(f"--out {out}: cannot write output: {e.strerror or e}") from None
    for path in written[:3]:
        print(path)
    from celltcp.reproduce import default_store

    print(
        f"celltcp: study {declared.name} done in {_duration(time.perf_counter() - started)}; "
        f"runs stored in {default_store(out)}",
        file=sys.stderr,
    )
    return 0


def _cmd_version(args: argparse.Namespace) -> int:
    print(f"celltcp {_core.__version__}")
    return 0


# -- parser ---------------------------------------------------------------------------------------


def _parser() -> _Parser:
    parser = _Parser(
        prog="celltcp",
        description="Deterministic packet-level simulator of TCP over cellular networks.",
        epilog=f"Documentation: {DOCS_URL}. Scenarios to start from: 'celltcp examples'.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"celltcp {_core.__version__}",
        help="print the version and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "run",
        help="run a scenario and write its outputs",
        description="Run one replication of a scenario and write its outputs into DIR: "
        "summary.json, the time series as Parquet files, and the requested pcap captures. "
        "The summary's tables are printed unless --json or --quiet. The same scenario, seed and "
        "run number give byte-identical outputs.",
    )
    p.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    p.add_argument("--seed", type=non_negative_int, help="master seed (overrides simulation.seed)")
    p.add_argument("--run", type=non_negative_int, default=0, help="replication number (default 0)")
    p.add_argument("--out", metavar="DIR", help="output directory (default out/<file stem>)")
    add_overwrite_option(p)
    p.add_argument(
        "--keep-partial",
        action="store_true",
        help='on Ctrl-C, write what was simulated so far (stop_reason = "interrupted")',
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario value by dotted key, e.g. links.access.rate=10Mbps",
    )
    p.add_argument(
        "--pcap",
        action="append",
        default=[],
        metavar="NAME",
        help="capture link NAME's packets to DIR/NAME.pcap, or cell or dedicated channel NAME's "
        f"radio side to DIR/NAME.pcapng and DIR/NAME.mac-lte.pcap (repeatable; {docs_url('captures')})",
    )
    p.add_argument(
        "--snaplen",
        metavar="SIZE",
        help="bytes of each packet stored in captures, e.g. 96 or 128B (capture.snaplen; "
        "default 65535B)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(handler=_cmd_run)

    p = sub.add_parser("validate", help="check a scenario without running it")
    p.add_argument("file", metavar="FILE", help="scenario file (TOML)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override")
    p.set_defaults(handler=_cmd_validate)

    p = sub.add_parser("sweep", help="run a parameter sweep with replications into a results store")
    p.add_argument("file", metavar="FILE", help=f"sweep file (TOML; see {docs_url('sweeps')})")
    p.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="worker processes (ray: CPUs of a new local instance); default: all CPUs",
    )
    p.add_argument("--store", metavar="DIR", help="results store (default out/<file stem>)")
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where runs execute: a local process pool (default) or a Ray cluster",
    )
    p.add_argument("--address", metavar="ADDR", help="Ray cluster address (with --backend ray)")
    p.add_argument(
        "--retry-failed", action="store_true", help="run again the runs stored as failed"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar and no statistics table")
    p.set_defaults(handler=_cmd_sweep)

    p = sub.add_parser("stats", help="statistics per grid point of a results store")
    p.add_argument("store", metavar="STORE", help="results store directory")
    p.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        metavar="C",
        help="confidence level of the intervals (default 0.95)",
    )
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.set_defaults(handler=_cmd_stats)

    p = sub.add_parser(
        "export",
        help="write a results store as Parquet files for other tools",
        description="Write every stored run of a results store as Parquet files into DIR: "
        "runs.parquet (one row per run: parameters, also as numbers in SI base units, metrics, "
        "summary), parameter_values.parquet, scenarios.parquet and the kept series "
        f"({docs_url('sweeps')}).",
    )
    p.add_argument("store", metavar="STORE", help="results store directory")
    p.add_argument("--parquet", metavar="DIR", required=True, help="output directory")
    add_overwrite_option(p)
    p.set_defaults(handler=_cmd_export)

    p = sub.add_parser(
        "schema", help="print the JSON Schema of scenario files (--output: of a run's outputs)"
    )
    p.add_argument(
        "--output",
        action="store_true",
        help="the schema of the outputs instead: summary.json, the series' columns and the "
        f"labels of their categorical values ({docs_url('outputs')})",
    )
    p.set_defaults(handler=_cmd_schema)

    p = sub.add_parser("bench", help="measure event-queue and end-to-end simulation speed")
    p.add_argument("--quick", action="store_true", help="fewer operations (a smoke run)")
    p.add_argument("--runs", type=positive_int, help="repetitions per figure (median reported)")
    p.add_argument(
        "--scenario",
        metavar="FILE",
        help="scenario for the end-to-end figure (default: the wired-chain and wired-chain-tcp "
        "examples)",
    )
    p.set_defaults(handler=_cmd_bench)

    from celltcp.plot_cli import add_plot_command

    add_plot_command(sub, UserError)

    p = sub.add_parser(
        "reproduce", help="run a seed study end to end and write report.md and report.html"
    )
    p.add_argument("name", metavar="NAME", nargs="?", help="reproduction (see --list)")
    p.add_argument("--list", action="store_true", help="list the available reproductions")
    p.add_argument(
        "--quick", action="store_true", help="few replications and short runs (a smoke run)"
    )
    p.add_argument("--out", metavar="DIR", help="output directory (default out/reproduce-NAME)")
    add_overwrite_option(p)
    p.add_argument(
        "--workers", type=positive_int, metavar="N", help="worker processes; default: all CPUs"
    )
    p.set_defaults(handler=_cmd_reproduce)

    p = sub.add_parser(
        "study",
        help="run a study declared on celltcp.study (a Python file or module) and write its report",
    )
    p.add_argument("source", metavar="FILE", help="a .py file or a module declaring STUDY")
    p.add_argument("--quick", action="store_true", help="the study's quick replications")
    p.add_argument("--out", metavar="DIR", help="output directory (default out/study-NAME)")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario key in every run (repeatable), as `celltcp run --set`",
    )
    add_overwrite_option(p)
    p.add_argument(
        "--workers", type=positive_int, metavar="N", help="worker processes; default: all CPUs"
    )
    p.set_defaults(handler=_cmd_study)

    from celltcp.examples_cli import add_examples_command

    add_examples_command(sub, UserError)

    p = sub.add_parser("version", help="print the version")
    p.set_defaults(handler=_cmd_version)

    from celltcp.emulate.cli import register as register_emulation

    register_emulation(sub)
    return parser


def _error(prefix: str, message: str) -> None:
    print(f"celltcp: {prefix}: {_one_line(message)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``celltcp`` command; returns the exit status."""
    words = sys.argv[1:] if argv is None else list(argv)
    if words in (["--version"], ["version"]):
        # Answered before the parser of every subcommand is built (most of the start-up time).
        print(f"celltcp {_core.__version__}")
        return 0
    try:
        args = _parser().parse_args(argv)
        return int(args.handler(args))
    except (UserError, ScenarioError) as e:
        _error("error", str(e))
        return EXIT_USER_ERROR
    except SimulationError as e:
        _error("internal error", str(e))
        return EXIT_INTERNAL_ERROR
    except KeyboardInterrupt:
        print("celltcp: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); silence the interpreter's flush at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
