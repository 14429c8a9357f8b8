"""Trace files and BLER tables are read as streams (issue 14): line by line, lines of at most
4096 bytes, the file within its 64 MiB bound. What a hostile file gets from the command line:
exit 2 and one short line naming the key, the line and the expected form; what an ordinary file
in another spelling (Windows line ends, no final line end) gets: the same run, byte for byte."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from celltcp.cli import main
from conftest import EXAMPLES, run_cli

TRACE_KEY = "links.access.a_to_b.trace"
TABLE_KEY = "cells.cell1.bler_table"


def refused(capsys: pytest.CaptureFixture[str], *argv: str | os.PathLike[str]) -> str:
    """Runs the CLI in-process; asserts exit 2 and one short error line, returns it."""
    code = main([str(a) for a in argv])
    _, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, (code, err[-2000:])
    assert len(lines) == 1 and lines[0].startswith("celltcp: error: "), err[-2000:]
    assert len(lines[0]) <= 600, len(lines[0])
    return lines[0]


@pytest.fixture
def trace_scenario(tmp_path: Path) -> Path:
    """The trace example, copied with its traces into tmp_path."""
    for name in ("trace-link.toml", "drive.trace"):
        shutil.copy(EXAMPLES / "traces" / name, tmp_path / name)
    return tmp_path / "trace-link.toml"


def test_a_trace_line_beyond_the_bound_is_refused_with_its_number(
    trace_scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = trace_scenario.parent / "long.trace"
    trace.write_text("1\n2\n" + "3" * 100_000 + "\n4\n")
    line = refused(capsys, "validate", trace_scenario, "--set", f"{TRACE_KEY}=long.trace")
    assert line == (
        f"celltcp: error: {TRACE_KEY}: line 3: more than 4096 bytes without a line end; "
        "expected one millisecond timestamp per line"
    )


def test_a_file_without_line_ends_is_refused_at_its_first_line(
    trace_scenario: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "oneline.trace"
    trace.write_text("7" * 20_000_000)
    out = tmp_path / "out"
    for command in (["validate"], ["run", "--out", out]):
        line = refused(capsys, *command, trace_scenario, "--set", f"{TRACE_KEY}=oneline.trace")
        assert f"{TRACE_KEY}: line 1: more than 4096 bytes without a line end" in line
    assert not out.exists()
    # A BLER table, at a path short enough to be echoed whole (echoed values are cut to 80
    # characters, and the workers' temporary directories are long).
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="s") as short:
        table = Path(short) / "t.csv"
        table.write_text("mcs,sinr_db,bler\n" + "," * 20_000_000)
        line = refused(
            capsys, "validate", EXAMPLES / "lte-single-cell.toml", "--set", f"{TABLE_KEY}={table}"
        )
    assert f"{TABLE_KEY}: {table}:2: more than 4096 bytes without a line end; expected" in line


def _outputs(directory: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.iterdir())
        if p.is_file() and not p.name.startswith(".")
    }


def test_windows_line_ends_and_no_final_line_end_give_the_same_run(
    trace_scenario: Path, tmp_path: Path
) -> None:
    text = (trace_scenario.parent / "drive.trace").read_text()
    variants = {
        "lf": text,
        "crlf": text.replace("\n", "\r\n"),
        "no-final": text.rstrip("\n"),
        "crlf-no-final": text.replace("\n", "\r\n").rstrip("\n"),
    }
    runs = {}
    for name, body in variants.items():
        # One file name for all: the summary echoes the path read.
        (trace_scenario.parent / "t.trace").write_bytes(body.encode())
        out = tmp_path / f"out-{name}"
        code = main(
            [
                "run",
                str(trace_scenario),
                "--quiet",
                "--out",
                str(out),
                "--set",
                f"{TRACE_KEY}=t.trace",
                "--set",
                "simulation.duration=3s",
                "--set",
                "trace.interval=100ms",
                "--set",
                'trace.queues=["access"]',
            ]
        )
        assert code == 0
        runs[name] = _outputs(out)
    assert {"summary.json", "queue.parquet"} <= set(runs["lf"])
    for name, outputs in runs.items():
        assert outputs == runs["lf"], name


def test_fifos_are_refused_at_once_by_the_command(tmp_path: Path, trace_scenario: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # In a process of its own with a timeout: a reader waiting for a writer fails the test
    # instead of hanging it.
    for scenario, key in (
        (trace_scenario, TRACE_KEY),
        (EXAMPLES / "lte-single-cell.toml", TABLE_KEY),
    ):
        result = run_cli("validate", scenario, "--set", f"{key}={fifo}", timeout=60)
        assert result.returncode == 2, result.stderr
        assert len(result.stderr_lines) == 1, result.stderr
        assert f"{key}: the " in result.stderr and "not a regular file" in result.stderr
