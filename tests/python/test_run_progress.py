"""Progress of a single run: the engine's periodic call-back, used by ``celltcp run`` on a
terminal and by Python callers, which may also end a run early."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys

import pytest

import celltcp
from celltcp.progress import RunProgressLine
from conftest import CHAIN_TOML, EXAMPLES

# Far longer than any test lets it run: the callbacks stop it (an idle machine simulates the chain
# at ~2,000 s per wall second, so 600 s could end before a third poll).
LONG = {"simulation.duration": "36000s"}


def test_the_callback_sees_the_run_advance_and_can_stop_it():
    seen: list[tuple[float, float, int]] = []

    def watch(simulated_s: float, end_s: float, events: int) -> bool:
        seen.append((simulated_s, end_s, events))
        return len(seen) < 3

    result = celltcp.run(CHAIN_TOML, set=LONG, progress=watch)
    assert len(seen) == 3
    assert all(end == 36000.0 for _, end, _ in seen)
    assert seen[0][0] < seen[1][0] < seen[2][0] and seen[0][2] < seen[1][2] < seen[2][2]
    assert result.summary["stop_reason"] == "stopped"
    assert result.summary["simulated_time_s"] == seen[2][0]
    assert result.events == seen[2][2]
    # Rates are over the time simulated, not the scenario's 36,000 s.
    video = result.summary["flows"]["video"]
    assert video["end_s"] == seen[2][0]
    assert video["goodput_bps"] > 1e6


def test_a_callback_that_returns_nothing_changes_nothing():
    plain = celltcp.run(CHAIN_TOML)
    calls = []
    watched = celltcp.run(CHAIN_TOML, progress=lambda *a: calls.append(a))
    assert watched.summary == plain.summary and watched.events == plain.events


def test_an_exception_in_the_callback_ends_the_run_with_it():
    def fail(*_: object) -> None:
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        celltcp.run(CHAIN_TOML, set=LONG, progress=fail)


def test_the_progress_line():
    line = RunProgressLine.line("chain", 15.0, 60.0, 3_000_000, 2.0)
    assert line == (
        "chain [#####---------------] 15.0 s of 60 s simulated, 1.5 Mevents/s, ETA 6.0s"
    )
    assert "ETA" not in RunProgressLine.line("chain", 60.0, 60.0, 10, 1.0)
    quiet = RunProgressLine(stream=io.StringIO())
    assert not quiet.enabled  # not a terminal: draws nothing
    quiet(1.0, 2.0, 3)
    quiet.close()


def _run_on_a_terminal(*argv: str, cwd: str) -> tuple[int, str]:
    """Runs the command with stderr on a pseudo-terminal; returns its status and what it drew."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "celltcp", *argv],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def test_celltcp_run_shows_progress_on_a_terminal_only(tmp_path):
    scenario = str(EXAMPLES / "wired-chain.toml")
    status, drawn = _run_on_a_terminal(
        "run",
        scenario,
        "--set",
        "simulation.duration=300s",
        "--out",
        str(tmp_path / "a"),
        cwd=str(tmp_path),
    )
    assert status == 0, drawn
    assert "s of 300 s simulated" in drawn and "events/s" in drawn, drawn
    # Erased before the summary is printed.
    assert "\r" in drawn
    status, drawn = _run_on_a_terminal(
        "run",
        scenario,
        "--set",
        "simulation.duration=300s",
        "--quiet",
        "--out",
        str(tmp_path / "b"),
        cwd=str(tmp_path),
    )
    assert status == 0 and "simulated," not in drawn, drawn
