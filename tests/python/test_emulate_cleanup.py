"""``celltcp emulate --cleanup`` removes what the registry recorded and nothing else: the
namespaces, /etc/netns files and devices of dead emulations, and the programs that
``celltcp shell`` started in them. A name of the celltcp pattern that no registry file names is
left alone unless ``--force`` (or a yes on a terminal) says otherwise.

The first tests fake the ``ip`` layer and run anywhere; the others need root (CAP_NET_ADMIN and
CAP_SYS_ADMIN), /dev/net/tun and iproute2 and are skipped otherwise.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from celltcp.emulate import cleanup, netns, registry
from celltcp.emulate.session import EmulationSession
from conftest import EXAMPLES, run_cli
from emu_tools.checks import dead_pid, leftovers, needs_root_tun, wait_for_line

TOOLS = Path(__file__).parent / "emu_tools"
WIRED = EXAMPLES / "wired-chain.toml"
HOSTS = {"remote": "10.0.0.3", "ue": "10.0.0.4"}


# -- the rules, with the ip layer faked ------------------------------------------------------------


class FakeIp:
    """Namespaces, /etc/netns entries and devices in memory, in place of iproute2."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, namespaces: set[str], devices: set[str]):
        self.namespaces = set(namespaces)
        self.etc = set(namespaces)
        self.devices = set(devices)
        monkeypatch.setattr(netns, "list_namespaces", lambda: sorted(self.namespaces))
        monkeypatch.setattr(netns, "list_links", lambda namespace=None: sorted(self.devices))
        monkeypatch.setattr(netns, "list_etc", lambda directory=None: sorted(self.etc))
        monkeypatch.setattr(netns, "namespace_pids", lambda name: [])
        monkeypatch.setattr(netns, "delete_namespace", self.namespaces.discard)
        monkeypatch.setattr(
            netns, "remove_etc", lambda name, directory=None: self.etc.discard(name)
        )
        monkeypatch.setattr(netns, "delete_link", self.devices.discard)


def _register_dead(directory: Path, pid: int, hosts: list[str]) -> registry.Registration:
    reg = registry.Registration(
        pid=pid,
        start_time=None,
        scenario="/x.toml",
        hosts={
            h: registry.HostEntry(
                netns.namespace_name(pid, h), netns.device_name(pid, i), "10.0.0.1"
            )
            for i, h in enumerate(hosts)
        },
    )
    registry.write(reg, directory)
    return reg


def test_only_what_a_dead_emulation_registered_is_removed_without_force(tmp_path, monkeypatch):
    dead, stranger = dead_pid(), dead_pid()
    mine = {f"celltcp-{dead}-remote", f"celltcp-{dead}-ue"}
    foreign = {f"celltcp-{stranger}-x", "celltcptest", "other"}
    ip = FakeIp(monkeypatch, mine | foreign, {f"celltcp{dead}a", f"celltcp{stranger}b", "eth0"})
    _register_dead(tmp_path, dead, ["remote", "ue"])
    report = cleanup.cleanup_stale(tmp_path)
    assert sorted(report.namespaces) == sorted(mine)
    assert report.devices == [f"celltcp{dead}a"]
    assert report.registrations == [dead]
    assert report.unregistered == [f"namespace celltcp-{stranger}-x", f"device celltcp{stranger}b"]
    assert not report.forced
    assert ip.namespaces == foreign and ip.devices == {f"celltcp{stranger}b", "eth0"}
    assert not (tmp_path / f"{dead}.json").exists()
    # Asked and refused: still left alone; asked and accepted, or forced: removed.
    asked: list[list[str]] = []
    report = cleanup.cleanup_stale(tmp_path, confirm=lambda names: asked.append(names) or False)
    assert asked == [report.unregistered] and ip.namespaces == foreign
    report = cleanup.cleanup_stale(tmp_path, confirm=lambda names: True)
    assert report.forced and report.namespaces == [f"celltcp-{stranger}-x"]
    assert ip.namespaces == {"celltcptest", "other"} and ip.devices == {"eth0"}
    # Nothing left: nothing to ask.
    report = cleanup.cleanup_stale(tmp_path, confirm=lambda names: pytest.fail("asked"))
    assert not report.removed_anything and report.unregistered == []


def test_recorded_programs_of_dead_emulations_are_stopped_and_only_they(tmp_path, monkeypatch):
    FakeIp(monkeypatch, set(), set())
    dead = dead_pid()
    _register_dead(tmp_path, dead, ["ue"])
    program = subprocess.Popen(["sleep", "60"])
    other = subprocess.Popen(["sleep", "60"])
    try:
        registry.record_program(
            dead,
            registry.ProgramEntry(
                pid=program.pid,
                start_time=registry.process_start_time(program.pid),
                host="ue",
                namespace=f"celltcp-{dead}-ue",
                argv=("sleep", "60"),
            ),
            tmp_path,
        )
        # A record whose pid was reused by another process (start time differs) is left alone.
        registry.record_program(
            dead,
            registry.ProgramEntry(
                pid=other.pid,
                start_time=1,
                host="ue",
                namespace=f"celltcp-{dead}-ue",
            ),
            tmp_path,
        )
        [a, b] = sorted(registry.load_programs(dead, tmp_path), key=lambda e: e.pid != program.pid)
        assert (a.pid, a.argv, b.pid) == (program.pid, ("sleep", "60"), other.pid)
        report = cleanup.cleanup_stale(tmp_path)
        assert report.processes == [program.pid]
        assert program.wait(timeout=10) == -signal.SIGTERM
        assert other.poll() is None
        assert list(tmp_path.iterdir()) == []  # registration and program records gone
    finally:
        program.kill()
        other.kill()
        program.wait()
        other.wait()


def test_program_records_without_their_registration_are_stopped_too(tmp_path, monkeypatch):
    FakeIp(monkeypatch, set(), set())
    dead = dead_pid()
    program = subprocess.Popen(["sleep", "60"])
    try:
        registry.record_program(
            dead,
            registry.ProgramEntry(
                pid=program.pid,
                start_time=registry.process_start_time(program.pid),
                host="ue",
                namespace=f"celltcp-{dead}-ue",
            ),
            tmp_path,
        )
        report = cleanup.cleanup_stale(tmp_path)
        assert report.processes == [program.pid]
        assert program.wait(timeout=10) == -signal.SIGTERM
        assert list(tmp_path.iterdir()) == []
    finally:
        program.kill()
        program.wait()


def test_force_belongs_to_cleanup():
    res = run_cli("emulate", WIRED, "--host", "ue", "--force")
    assert res.returncode == 2
    assert res.stderr_lines == ["celltcp: error: --force: only with --cleanup"]


# -- with real namespaces ------------------------------------------------------------------------


def _start_relay_emulation(*extra: str, scenario: Path = WIRED) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(TOOLS / "relay_emulation.py"),
            str(scenario),
            os.devnull,
            "remote",
            "ue",
            *extra,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    wait_for_line(proc, "running")
    return proc


def _removed(stdout: str, what: str) -> set[str]:
    prefix = f"removed {what} "
    return {line[len(prefix) :] for line in stdout.splitlines() if line.startswith(prefix)}


def _shell(scenario: Path, host: str, *command: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celltcp.cli",
            "shell",
            str(scenario),
            "--host",
            host,
            "--",
            *command,
        ],
    )


def _recorded(emulation: int, timeout: float = 20.0) -> list[registry.ProgramEntry]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = registry.load_programs(emulation)
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no program recorded for emulation {emulation} within {timeout} s")


def _running(pid: int, comm: str, timeout: float = 20.0) -> None:
    """Waits until process ``pid`` runs the program ``comm`` (its exec has happened)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == comm:
                return
        except OSError:
            pass
        time.sleep(0.02)
    raise AssertionError(f"process {pid} did not start {comm} within {timeout} s")


@needs_root_tun
def test_after_sigkill_cleanup_removes_exactly_the_registered_leftovers():
    stranger = f"celltcp-{dead_pid()}-x"  # the pattern, a dead pid, but no registry file
    subprocess.run(["ip", "netns", "add", stranger], check=True)
    try:
        proc = _start_relay_emulation("--exec=ue=sleep 60")
        proc.kill()
        proc.wait(timeout=10)
        assert len(leftovers(proc.pid)) == 5  # 2 namespaces, 2 /etc/netns, the registration
        res = run_cli("emulate", "--cleanup")
        assert res.returncode == 0, res.stderr
        removed = _removed(res.stdout, "namespace")
        assert {f"celltcp-{proc.pid}-remote", f"celltcp-{proc.pid}-ue"} <= removed
        # Whatever else went (leftovers of other dead emulations on this machine) was
        # registered: never the unregistered name.
        assert stranger not in removed
        assert f"removed registration of emulation {proc.pid}" in res.stdout
        assert leftovers(proc.pid) == []
        assert stranger in netns.list_namespaces()
        assert f"namespace {stranger}" in res.stderr and "--force" in res.stderr
        res = run_cli("emulate", "--cleanup", "--force")
        assert res.returncode == 0, res.stderr
        assert stranger in _removed(res.stdout, "namespace")
        assert stranger not in netns.list_namespaces()
    finally:
        subprocess.run(["ip", "netns", "delete", stranger], check=False, capture_output=True)


@needs_root_tun
def test_on_a_terminal_cleanup_asks_before_removing_unregistered_names():
    stranger = f"celltcp-{dead_pid()}-x"
    subprocess.run(["ip", "netns", "add", stranger], check=True)
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celltcp.cli", "emulate", "--cleanup"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
        )
        os.close(slave)
        seen = b""
        deadline = time.monotonic() + 30
        while b"[y/N]" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 1.0)[0]:
                seen += os.read(master, 4096)
        assert stranger.encode() in seen and b"[y/N]" in seen
        os.write(master, b"y\n")
        assert proc.wait(timeout=30) == 0
        assert stranger not in netns.list_namespaces()
    finally:
        os.close(master)
        subprocess.run(["ip", "netns", "delete", stranger], check=False, capture_output=True)


@needs_root_tun
def test_a_shell_program_is_recorded_and_stopped_on_cleanup_even_without_its_namespace(tmp_path):
    scenario = tmp_path / "chain.toml"
    scenario.write_text(WIRED.read_text())
    emu = _start_relay_emulation(scenario=scenario)
    shell = _shell(scenario, "ue", "sleep", "600")
    try:
        [entry] = _recorded(emu.pid)
        assert entry.pid == shell.pid and entry.host == "ue" and entry.argv == ("sleep", "600")
        assert entry.namespace == f"celltcp-{emu.pid}-ue"
        emu.kill()
        emu.wait(timeout=10)
        # Its namespace's name deleted by hand: the program lives on in an unnamed namespace,
        # where 'ip netns pids' cannot find it; only the record names it.
        subprocess.run(["ip", "netns", "delete", entry.namespace], check=True)
        time.sleep(0.2)
        assert shell.poll() is None
        res = run_cli("emulate", "--cleanup")
        assert res.returncode == 0, res.stderr
        assert f"stopped process {shell.pid}" in res.stdout
        assert shell.wait(timeout=10) == -signal.SIGTERM
        assert leftovers(emu.pid) == []
        assert not (registry.RUN_DIR / f"{emu.pid}.programs").exists()
    finally:
        shell.kill()
        emu.kill()
        shell.wait()
        emu.wait()


@needs_root_tun
def test_teardown_stops_the_shell_programs_of_the_emulation(tmp_path):
    scenario = tmp_path / "chain.toml"
    scenario.write_text(WIRED.read_text())
    with EmulationSession(HOSTS, scenario=scenario) as s:
        shell = _shell(scenario, "remote", "sleep", "600")
        try:
            [entry] = _recorded(s.pid)
            # The shell records itself before 'ip netns exec' enters the namespace: delete the
            # namespace only once the command runs in it.
            _running(entry.pid, "sleep")
            subprocess.run(["ip", "netns", "delete", entry.namespace], check=True)
        except BaseException:
            shell.kill()
            raise
    try:
        assert shell.wait(timeout=10) == -signal.SIGTERM
    finally:
        shell.kill()
        shell.wait()
    assert s.teardown_errors == []
    assert leftovers(os.getpid()) == []
