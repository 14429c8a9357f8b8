"""A seeded mutation fuzzer of celltcp's input boundary: scenario files, sweep files, ``--set``
values, trace files and BLER tables, driven through the ``celltcp`` command in-process.

Each case is made from one seed (``random.Random(seed)``), so a failing case is replayed by its
seed alone. The invariant, for every case:

* ``celltcp validate`` and ``celltcp run`` (with a short duration) exit 0, or exit 2 with
  exactly one line ``celltcp: error: KEY: MESSAGE`` of at most :data:`MAX_LINE` characters;
* never a Python traceback (an exception out of ``main``), exit 3 (a panic or an internal error),
  a case longer than :data:`CASE_SECONDS` (the process is ended with a traceback), nor a
  directory or partial file left behind by a refused run;
* a sweep file is loaded and its points resolved, or refused with a bounded ScenarioError.

``make test`` runs it for a bounded time (``tests/python/test_fuzz_input.py``); a long run::

    .venv/bin/python tests/python/fuzz_input.py --seconds 1800 --first-seed 0

prints the number of cases tried and every failure with its seed (docs/reliability.md,
"Hostile input").
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import io
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "python/celltcp/examples"
#: Longest error line accepted.
MAX_LINE = 600
#: A case taking longer than this is a hang.
CASE_SECONDS = 10.0

#: Values that have broken, or could break, a loader: non-finite and huge numbers, tiny and huge
#: times, hostile paths, deep nesting, long and binary strings, wrong types.
HOSTILE_VALUES = [
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1",
    "0",
    "99999999999999999999",
    "-99999999999999999999",
    # More digits than Python converts to an int (4300), and a float beyond double range.
    "9" * 5000,
    "0x" + "f" * 5000,
    "1e999",
    '"1ns"',
    '"0s"',
    '"1000000h"',
    '"1e9s"',
    '"-5ms"',
    '"1.5.5ms"',
    '"NaNms"',
    '"infMbps"',
    '"0Mbps"',
    '"1bps"',
    '"99999999999Tbps"',
    '"0p"',
    '"4294967296p"',
    '"1B"',
    '""',
    '"/dev/zero"',
    '"/dev/null"',
    '"/proc/self/environ"',
    '"/"',
    '"."',
    '"../../etc/passwd"',
    "[" * 40 + "]" * 40,
    "{ a = " * 40 + "1" + " }" * 40,
    "[1.0, 2.0, 3.0]",
    "[nan, 1.0]",
    "[]",
    "{}",
    "true",
    "false",
    "1979-05-27T07:32:00Z",
    '"' + "x" * 5000 + '"',
    '"\\u0000\\u0001\\n"',
    '"ue"',
    '"enb"',
    '"router"',
    '"host"',
    '"reno"',
    '"cubic"',
    '"bbr"',
    '"droptail"',
    '{ kind = "red" }',
    '{ kind = "bernoulli", p = 2.0 }',
    "0.5",
    "1",
    "1000000",
]
#: Keys that exist somewhere in the format (for `--set` and inserted keys).
HOSTILE_KEYS = [
    "simulation.duration",
    "simulation.seed",
    "simulation.max_events",
    "trace.interval",
    "trace.queues",
    "trace.flows",
    "trace.cells",
    "capture.links",
    "capture.cells",
    "capture.snaplen",
    "ran.handover.q_rxlevmin_dbm",
    "ran.handover.manual",
    "events",
    "nodes.x.kind",
    "links.x.a",
]


@dataclass
class Case:
    seed: int
    kind: str
    detail: str = ""


@dataclass
class Failure:
    case: Case
    what: str


@dataclass
class Report:
    cases: int = 0
    commands: int = 0
    exits: dict[int, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)


def _scenario_corpus() -> list[Path]:
    return sorted(
        p
        for p in EXAMPLES.rglob("*.toml")
        if "sweeps" not in p.parts and "emulation" not in p.parts
    )


def _bler_table_text() -> str:
    """A valid BLER table (docs/lte-phy.md): per MCS a logistic-like curve whose 10 % point
    rises with the MCS."""
    lines = ["mcs,sinr_db,bler"]
    for mcs in range(29):
        centre = -6.0 + mcs
        for step, bler in ((-2.0, 0.9), (0.0, 0.1), (1.0, 0.01)):
            lines.append(f"{mcs},{centre + step:.2f},{bler}")
    return "\n".join(lines) + "\n"


# -- mutations --------------------------------------------------------------------------------------


def mutate_text(rng: random.Random, text: str) -> str:
    """One to four edits: delete, duplicate or swap a span, or insert a hostile token."""
    for _ in range(rng.randint(1, 4)):
        n = len(text)
        op = rng.randrange(6)
        i = rng.randrange(n + 1)
        j = min(n, i + rng.randint(1, 40))
        if op == 0:
            text = text[:i] + text[j:]
        elif op == 1:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 2:
            text = text[:i] + rng.choice(HOSTILE_VALUES) + text[i:]
        elif op == 3:
            text = (
                text[:i]
                + rng.choice(["[", "]", "{", "}", "=", '"', "'", ".", "\n", ",", "#"])
                + text[i:]
            )
        elif op == 4:
            # Replace the value on a random line.
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            if "=" in lines[k]:
                key = lines[k].split("=", 1)[0]
                lines[k] = f"{key}= {rng.choice(HOSTILE_VALUES)}"
            text = "\n".join(lines)
        else:
            text = (
                text[:i] + chr(rng.choice([0, 0x7F, 0xFEFF, 0x2028, 0xD7FF, 0x10FFFF])) + text[i:]
            )
    return text


def mutate_tree(rng: random.Random, data: dict[str, Any]) -> tuple[str, str]:
    """A (dotted key, value text) override aimed at a key of the scenario: a hostile value for
    an existing leaf, or a hostile key."""
    paths: list[str] = []
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                stack.append((f"{prefix}.{k}" if prefix else k, v))
        elif prefix:
            paths.append(prefix)
    key = rng.choice(sorted(paths)) if paths and rng.random() < 0.8 else rng.choice(HOSTILE_KEYS)
    return key, rng.choice(HOSTILE_VALUES)


# -- driving the command ----------------------------------------------------------------------------


def _cli(argv: list[str]) -> tuple[int, str]:
    from celltcp.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


def _check(report: Report, case: Case, argv: list[str], workdir: Path) -> None:
    before = set(os.listdir(workdir))
    faulthandler.dump_traceback_later(CASE_SECONDS, exit=True)
    started = time.perf_counter()
    try:
        code, err = _cli(argv)
    except BaseException as e:
        report.failures.append(Failure(case, f"{type(e).__name__} escaped main: {e!s:.200}"))
        return
    finally:
        faulthandler.cancel_dump_traceback_later()
    elapsed = time.perf_counter() - started
    report.commands += 1
    report.exits[code] = report.exits.get(code, 0) + 1
    lines = [line for line in err.splitlines() if line.strip()]
    if elapsed > CASE_SECONDS:
        report.failures.append(Failure(case, f"took {elapsed:.1f} s"))
    if code == 2:
        if len(lines) != 1 or not lines[0].startswith("celltcp: error: "):
            report.failures.append(Failure(case, f"exit 2 with {len(lines)} lines: {err[:300]!r}"))
        elif len(lines[0]) > MAX_LINE:
            report.failures.append(Failure(case, f"error line of {len(lines[0])} characters"))
        elif ": " not in lines[0][len("celltcp: error: ") :]:
            report.failures.append(Failure(case, f"names no key or file: {lines[0][:200]!r}"))
        after = set(os.listdir(workdir))
        if after - before:
            report.failures.append(Failure(case, f"refused run left {sorted(after - before)}"))
    elif code != 0:
        report.failures.append(Failure(case, f"exit {code}: {err[-400:]!r}"))


def _scenario_case(rng: random.Random, report: Report, case: Case, workdir: Path) -> None:
    from celltcp.scenario import parse_toml

    source = rng.choice(_scenario_corpus())
    text = source.read_text(encoding="utf-8")
    case.detail = source.relative_to(REPO).as_posix()
    overrides: list[str] = []
    if rng.random() < 0.5:
        text = mutate_text(rng, text)
    else:
        try:
            key, value = mutate_tree(rng, parse_toml(text, str(source)))
        except Exception:
            return
        overrides = ["--set", f"{key}={value}"]
        case.detail += f" --set {key}={value[:60]}"
    # Relative trace paths of the examples resolve against the scenario's own directory: its
    # other files are linked into the case's directory, and nothing is written into python/celltcp/examples/.
    for other in source.parent.iterdir():
        if other.is_file() and other.suffix != ".toml":
            (workdir / other.name).symlink_to(other)
    path = workdir / "scenario.toml"
    try:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    except (UnicodeEncodeError, ValueError):
        return
    try:
        _check(report, case, ["validate", str(path), *overrides], workdir)
        out = workdir / "out"
        _check(
            report,
            case,
            [
                "run",
                str(path),
                *overrides,
                "--set",
                "simulation.duration=50ms",
                "--out",
                str(out),
                "--quiet",
            ],
            workdir,
        )
        if out.exists():
            _remove(out)
    finally:
        path.unlink(missing_ok=True)


def _file_case(rng: random.Random, report: Report, case: Case, workdir: Path) -> None:
    """A trace file or a BLER table, mutated, named by a scenario."""
    if rng.random() < 0.5:
        scenario = EXAMPLES / "traces" / "trace-link.toml"
        original = (EXAMPLES / "traces" / "const-12mbps.trace").read_text()
        name, key = "t.trace", "trace"
        text = (
            scenario.read_text()
            .replace("const-12mbps.trace", str(workdir / name))
            .replace("drive.trace", str(workdir / name))
        )
    else:
        scenario = EXAMPLES / "lte-single-cell.toml"
        original = _bler_table_text()
        name, key = "b.csv", "bler_table"
        text = scenario.read_text().replace(
            "[cells.cell1]\n", f'[cells.cell1]\nbler_table = "{workdir / name}"\n', 1
        )
    case.detail = f"{key} file"
    content = mutate_text(rng, original) if rng.random() < 0.9 else "z" * 100_000
    (workdir / name).write_text(content, encoding="utf-8", errors="surrogatepass")
    path = workdir / "s.toml"
    path.write_text(text, encoding="utf-8")
    _check(report, case, ["validate", str(path)], workdir)


def _sweep_case(rng: random.Random, report: Report, case: Case, workdir: Path) -> None:
    from celltcp.errors import ScenarioError
    from celltcp.sweep.spec import load_spec, resolve_points

    source = EXAMPLES / "sweeps" / "access-rate.toml"
    # Mutated as shipped, then anchored (so that a seed makes the same case in any checkout).
    text = mutate_text(rng, source.read_text(encoding="utf-8"))
    text = text.replace('"../', f'"{EXAMPLES}/')
    if rng.random() < 0.2:
        text += f"\nruns = {rng.choice([0, 1, 10**9, -1, 10**20])}\n"
    path = workdir / "sweep.toml"
    case.detail = "sweep file"
    try:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    except (UnicodeEncodeError, ValueError):
        return
    faulthandler.dump_traceback_later(CASE_SECONDS, exit=True)
    try:
        spec = load_spec(path)
        if spec.count_points() * len(spec.runs) <= 64:
            resolve_points(spec)
        report.exits[0] = report.exits.get(0, 0) + 1
    except ScenarioError as e:
        report.exits[2] = report.exits.get(2, 0) + 1
        line = str(e)
        if "\n" in line or len(line) > MAX_LINE or not e.key:
            report.failures.append(Failure(case, f"bad sweep error: {line[:300]!r}"))
    except BaseException as e:
        report.failures.append(Failure(case, f"{type(e).__name__} from a sweep file: {e!s:.200}"))
    finally:
        faulthandler.cancel_dump_traceback_later()
        path.unlink(missing_ok=True)
    report.commands += 1


def _remove(path: Path) -> None:
    for p in sorted(path.rglob("*"), reverse=True):
        p.rmdir() if p.is_dir() else p.unlink()
    path.rmdir()


KINDS: list[tuple[str, Callable[..., None], float]] = [
    ("scenario", _scenario_case, 0.7),
    ("file", _file_case, 0.15),
    ("sweep", _sweep_case, 0.15),
]


def cases(first_seed: int) -> Iterator[Case]:
    seed = first_seed
    while True:
        rng = random.Random(seed)
        kind = rng.choices([k for k, _, _ in KINDS], [w for _, _, w in KINDS])[0]
        yield Case(seed, kind)
        seed += 1


def fuzz(*, seconds: float, first_seed: int = 0, max_cases: int | None = None) -> Report:
    """Runs cases from ``first_seed`` on until ``seconds`` have passed (or ``max_cases``)."""
    # Imported before the first case's clock starts: importing takes seconds on a busy machine.
    import celltcp.cli
    import celltcp.sweep.spec  # noqa: F401

    report = Report()
    deadline = time.monotonic() + seconds
    by_kind = {k: f for k, f, _ in KINDS}
    for case in cases(first_seed):
        if time.monotonic() >= deadline or (max_cases is not None and report.cases >= max_cases):
            break
        rng = random.Random(case.seed * 7919 + 1)
        with tempfile.TemporaryDirectory(prefix="celltcp-fuzz-") as tmp:
            by_kind[case.kind](rng, report, case, Path(tmp))
        report.cases += 1
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=None, help="stop after this many cases")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    report = fuzz(seconds=args.seconds, first_seed=args.first_seed, max_cases=args.cases)
    wall = time.perf_counter() - started
    print(
        f"{report.cases} cases ({report.commands} commands; exit statuses "
        f"{dict(sorted(report.exits.items()))}) from seed {args.first_seed} in {wall:.0f} s; "
        f"{len(report.failures)} failures"
    )
    for f in report.failures:
        print(f"seed {f.case.seed} ({f.case.kind}: {f.case.detail}): {f.what}")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "python"))
    sys.exit(main())
