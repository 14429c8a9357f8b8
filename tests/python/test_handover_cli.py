"""``celltcp run`` prints a one-line handover summary when the run had handovers, and writes
the handover tables beside the others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from test_handover_result import LINK_TOML


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "celltcp.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_run_prints_the_handover_line_and_writes_the_tables(tmp_path: Path) -> None:
    scenario = tmp_path / "link.toml"
    scenario.write_text(LINK_TOML, encoding="utf-8")
    out = tmp_path / "out"
    proc = _cli("run", str(scenario), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("handovers:")]
    assert lines == [
        "handovers: 1 handover (1 completed); TCP outcomes: 1 timeout, 0 halving, 0 none; "
        "mean interruption 200.0 ms"
    ]
    assert (out / "handovers.parquet").is_file()
    assert (out / "handover_events.parquet").is_file()


def test_quiet_and_json_print_no_handover_line(tmp_path: Path) -> None:
    scenario = tmp_path / "link.toml"
    scenario.write_text(LINK_TOML, encoding="utf-8")
    quiet = _cli("run", str(scenario), "--out", str(tmp_path / "q"), "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == ""
    as_json = _cli("run", str(scenario), "--out", str(tmp_path / "j"), "--json")
    assert as_json.returncode == 0
    assert "handovers:" not in as_json.stdout and '"handovers"' in as_json.stdout


def test_forward_line_and_a_bad_set(tmp_path: Path) -> None:
    # With buffer transfer and a 100 ms interruption TCP only sees a delay.
    scenario = tmp_path / "link.toml"
    forward = LINK_TOML.replace('policy = "discard"', 'policy = "forward"').replace(
        '"200ms"', '"100ms"'
    )
    scenario.write_text(forward, encoding="utf-8")
    proc = _cli("run", str(scenario), "--out", str(tmp_path / "f"))
    assert proc.returncode == 0, proc.stderr
    assert "TCP outcomes: 0 timeout, 0 halving, 1 none; mean interruption 100.0 ms" in proc.stdout
    bad = _cli(
        "run", str(scenario), "--out", str(tmp_path / "b"), "--set", "ran.handover.policy=discrd"
    )
    assert bad.returncode == 2
    assert (
        "ran.handover.policy: 'discrd' is not one of: discard, forward, fast_path_switch, predicted"
        in bad.stderr
    )
