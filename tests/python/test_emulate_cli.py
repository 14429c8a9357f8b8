"""``celltcp emulate`` and ``celltcp shell`` refusing bad input: exit status 2, one line on
stderr, and nothing created (no namespace, device, registry file or output directory)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_cli
from emu_tools.checks import leftovers, run_celltcp

WIRED = EXAMPLES / "wired-chain.toml"


def _assert_refused(res, *needles: str) -> None:
    assert res.returncode == 2, res
    lines = res.stderr_lines
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("celltcp: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"
    assert res.stdout == ""


def _left_by(pid: int) -> list[str]:
    return leftovers(pid) if shutil.which("ip") else []


@pytest.mark.parametrize(
    "args, needles",
    [
        ([], ["name a scenario file"]),
        ([WIRED], ["--host", "at least one"]),
        ([WIRED, "--host", "gateway"], ["--host gateway", "is a router"]),
        ([WIRED, "--host", "nope"], ["--host nope", "no such node", "remote, ue"]),
        ([WIRED, "--host", "ue", "--host", "ue"], ["named twice"]),
        ([WIRED, "--host", "ue", "--set", "links.access.rate=banana"], ["links.access.rate"]),
        ([WIRED, "--host", "ue", "--set", "nodes.ue.bogus=1"], ["nodes.ue"]),
        ([WIRED, "--host", "ue", "--exec", "remote=true"], ["--exec remote", "not attached"]),
        ([WIRED, "--host", "ue", "--exec", "ue"], ["HOST=COMMAND"]),
        ([WIRED, "--host", "ue", "--duration", "0s"], ["--duration"]),
        ([WIRED, "--host", "ue", "--mtu", "0"], ["--mtu"]),
        ([WIRED, "--host", "ue", "--priority", "100"], ["--priority", "1 to 99"]),
        ([WIRED, "--host", "ue", "--priority", "fifo"], ["--priority"]),
        (["/nonexistent/x.toml", "--host", "ue"], ["cannot read"]),
        ([WIRED, "--cleanup"], ["--cleanup takes no scenario"]),
    ],
)
def test_emulate_refuses_bad_input_and_creates_nothing(tmp_path, args, needles):
    out = tmp_path / "out"
    res, pid = run_celltcp("emulate", *args, "--out", out)
    _assert_refused(res, *needles)
    assert not out.exists()
    assert _left_by(pid) == []


def test_a_bad_scenario_file_is_refused(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(WIRED.read_text().replace("[links.access]", "[links.access"))
    _assert_refused(run_cli("emulate", bad, "--host", "ue", "--out", tmp_path / "o"), "bad.toml")
    assert not (tmp_path / "o").exists()


def test_an_unwritable_output_is_refused_before_starting(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = run_cli("emulate", WIRED, "--host", "ue", "--out", blocker / "out")
    _assert_refused(res, "--out", "not a writable directory")
    res = run_cli("emulate", WIRED, "--host", "ue", "--pcap", tmp_path)
    _assert_refused(res, "--pcap", "is a directory")


def _without_net_admin() -> list[str] | None:
    """A command prefix that drops CAP_NET_ADMIN from the effective set of what it runs."""
    if shutil.which("setpriv"):
        return ["setpriv", "--bounding-set=-net_admin", "--inh-caps=-net_admin"]
    if shutil.which("capsh"):
        return ["capsh", "--drop=cap_net_admin", "--"]
    return None


@pytest.mark.skipif(_without_net_admin() is None, reason="neither setpriv nor capsh installed")
def test_without_cap_net_admin_emulate_says_so_and_creates_nothing(tmp_path):
    prefix = _without_net_admin()
    assert prefix is not None
    cmd = [
        *prefix,
        sys.executable,
        "-m",
        "celltcp.cli",
        "emulate",
        str(WIRED),
        "--host",
        "ue",
        "--out",
        str(tmp_path / "out"),
    ]
    if prefix[0] == "capsh":
        cmd = [*prefix, "-c", " ".join(cmd[len(prefix) :])]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr
    line = stderr.strip()
    assert line.startswith("celltcp: error: ") and "\n" not in line, line
    assert "CAP_NET_ADMIN" in line and "sudo" in line
    assert not (tmp_path / "out").exists()
    # setpriv and capsh exec the command: its pid is theirs.
    assert _left_by(proc.pid) == []


@pytest.fixture
def private_scenario(tmp_path) -> Path:
    """A copy of the wired chain that no other emulation on the machine can be running."""
    path = tmp_path / "chain.toml"
    path.write_text(WIRED.read_text())
    return path


def test_shell_without_a_running_emulation_is_refused(private_scenario):
    res = run_cli("shell", private_scenario, "--host", "ue", "--", "true")
    _assert_refused(res, "no running emulation", "celltcp emulate")


def test_shell_needs_a_host_and_an_existing_scenario(tmp_path):
    _assert_refused(run_cli("shell", WIRED, "--", "true"), "--host NAME is required")
    _assert_refused(run_cli("shell", tmp_path / "none.toml", "--host", "ue"), "no such scenario")
    _assert_refused(run_cli("shell", WIRED, "--host", "ue", "--bogus"), "--bogus")


def test_shell_with_an_unknown_pid_is_refused(private_scenario):
    res = run_cli(
        "shell", private_scenario, "--host", "ue", "--pid", str(os.getpid()), "--", "true"
    )
    _assert_refused(res, f"--pid {os.getpid()}", "no running emulation")


def test_help_lists_both_commands():
    res = run_cli("--help")
    assert res.returncode == 0
    assert "emulate" in res.stdout and "shell" in res.stdout
    res = run_cli("emulate", "--help")
    assert res.returncode == 0 and "--exec HOST=CMD" in res.stdout and "--cleanup" in res.stdout


def test_the_package_imports_without_root():
    # The emulation modules are imported by every `celltcp` command; nothing at import time may
    # need privileges or touch the system.
    code = "import celltcp.emulate.cli, celltcp.emulate.cleanup; print('ok')"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
        check=False,
    )
    assert proc.stdout.strip() == "ok", proc.stderr
