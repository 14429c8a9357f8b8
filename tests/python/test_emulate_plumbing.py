"""Namespaces, TUN devices, addresses and routes with real kernels, without the real-time
engine: a test relay (emu_tools/relay.py) copies datagrams between the TUN devices, so a real
TCP connection between two namespaces proves the plumbing. Every test also checks that nothing
is left behind — after success, after an error in the body, after SIGTERM and, with
``celltcp emulate --cleanup``, after SIGKILL.

Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN), /dev/net/tun and iproute2; skipped otherwise.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from celltcp.emulate import cleanup, netns
from celltcp.emulate.errors import IpCommandError
from celltcp.emulate.session import EmulationSession, Interrupted
from conftest import EXAMPLES, run_cli
from emu_tools.checks import dead_pid, leftovers, needs_root_tun, wait_for_line
from emu_tools.relay import relay

pytestmark = needs_root_tun

TOOLS = Path(__file__).parent / "emu_tools"
WIRED = EXAMPLES / "wired-chain.toml"
HOSTS = {"remote": "10.0.0.3", "ue": "10.0.0.4"}


@pytest.fixture(autouse=True)
def _nothing_left_behind():
    """Each test checks what it must; whatever happens, what dead emulations left (a helper
    process killed by a failing test) is removed, so one failure does not spill into others."""
    assert leftovers(os.getpid()) == []
    try:
        yield
    finally:
        cleanup.cleanup_stale()
    assert leftovers(os.getpid()) == []


def _ip_in(namespace: str, *args: str) -> str:
    return subprocess.run(
        ["ip", "-n", namespace, *args], capture_output=True, text=True, check=True
    ).stdout


def _relay_until_done(session: EmulationSession, *procs: subprocess.Popen) -> object:
    """Runs the relay until every process exited (then stops it, as --exec does)."""

    def watch() -> None:
        for p in procs:
            p.wait(timeout=60)
        session.request_stop()

    threading.Thread(target=watch, daemon=True).start()
    return session.run(functools.partial(relay, HOSTS))


def _bulk(role: str, *args: str) -> list[str]:
    return [sys.executable, str(TOOLS / "bulk_transfer.py"), role, *args]


def test_namespaces_are_configured_as_point_to_point_hosts():
    with EmulationSession(HOSTS, scenario=WIRED, mtu=1400, names=HOSTS) as s:
        assert [h for h, _ in s.attachments] == ["remote", "ue"]
        for a in s.attached:
            assert a.namespace == f"celltcp-{os.getpid()}-{a.host}"
            assert a.device.name.startswith(f"celltcp{os.getpid()}")
            links = json.loads(_ip_in(a.namespace, "-j", "link", "show"))
            by_name = {link["ifname"]: link for link in links}
            assert set(by_name) == {"lo", a.device.name}
            assert by_name[a.device.name]["mtu"] == 1400
            assert "UP" in by_name[a.device.name]["flags"] and "UP" in by_name["lo"]["flags"]
            shown = _ip_in(a.namespace, "-j", "-4", "address", "show", "dev", a.device.name)
            addrs = [(x["local"], x["prefixlen"]) for x in json.loads(shown)[0]["addr_info"]]
            assert addrs == [(a.address, 32)]
            routes = _ip_in(a.namespace, "route", "show").split("\n")
            assert f"default dev {a.device.name} scope link " in routes
            # The device left this namespace: nothing of the host's interfaces is touched.
            assert a.device.name not in netns.list_links()
            # Programs see the scenario's names; lookups needing DNS fail at once.
            seen = subprocess.run(
                netns.exec_argv(a.namespace, ["getent", "hosts", "remote"]),
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            assert seen == [HOSTS["remote"], "remote"]
        assert sorted(s.registration.hosts) == ["remote", "ue"]
        assert Path(s.registration.path).is_file()


def test_tcp_crosses_between_namespaces_through_the_relay():
    size = 3_000_000
    with EmulationSession(HOSTS, scenario=WIRED) as s:
        server = s.spawn(
            "remote",
            _bulk("server", "--bind", HOSTS["remote"], "--bytes", str(size)),
            stdout=subprocess.PIPE,
            text=True,
        )
        client = s.spawn(
            "ue",
            _bulk("client", "--connect", HOSTS["remote"], "--bytes", str(size)),
            stdout=subprocess.PIPE,
            text=True,
        )
        counts = _relay_until_done(s, client, server)
        assert client.returncode == 0 and server.returncode == 0
        report = json.loads(client.stdout.read())
        assert report["bytes"] == size
    assert counts.forwarded > size / 1500  # every segment crossed the relay
    assert counts.unroutable == 0
    # IPv6 is off in the namespaces: no router solicitation or MLD report reached the path.
    assert counts.non_ipv4 == 0
    assert counts.largest == 1500  # full-size segments: the MTU is what the stacks use


def test_udp_and_the_environment_reach_the_programs():
    receiver = (
        "import os, socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
        "s.bind((os.environ['CELLTCP_ADDRESS'], 9000)); s.settimeout(20); "
        "print(s.recvfrom(100)[0].decode(), flush=True)"
    )
    sender = (
        "import os, socket, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "for _ in range(100):\n"
        "    to = (os.environ['CELLTCP_ADDR_REMOTE'], 9000)\n"
        "    s.sendto(os.environ['CELLTCP_HOST'].encode(), to)\n"
        "    time.sleep(0.05)\n"
    )
    with EmulationSession(HOSTS, scenario=WIRED) as s:
        rx = s.spawn("remote", [sys.executable, "-c", receiver], stdout=subprocess.PIPE, text=True)
        tx = s.spawn("ue", [sys.executable, "-c", sender])
        threading.Thread(target=lambda: (rx.wait(30), tx.kill()), daemon=True).start()
        _relay_until_done(s, rx, tx)
        assert rx.stdout.read().strip() == "ue"


def test_everything_is_removed_when_the_body_raises():
    with (
        pytest.raises(RuntimeError, match="boom"),
        EmulationSession(HOSTS, scenario=WIRED) as s,
    ):
        sleeper = s.spawn("ue", ["sleep", "60"])
        assert leftovers(os.getpid())
        raise RuntimeError("boom")
    assert sleeper.poll() is not None  # the program was stopped with its namespace
    assert s.teardown_errors == []


def test_a_failing_setup_step_removes_what_was_created(monkeypatch):
    real = netns.configure_host

    def fail_on_second(namespace, device, address, mtu):
        if namespace.endswith("-ue"):
            raise IpCommandError("simulated failure")
        real(namespace, device, address, mtu)

    monkeypatch.setattr(netns, "configure_host", fail_on_second)
    with (
        pytest.raises(IpCommandError, match="simulated failure"),
        EmulationSession(HOSTS, scenario=WIRED),
    ):
        pytest.fail("the body must not run")


def test_a_signal_during_setup_interrupts_it_cleanly(monkeypatch):
    real = netns.disable_ipv6

    def signalled(namespace):
        real(namespace)
        if namespace.endswith("-ue"):
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(netns, "disable_ipv6", signalled)
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as err, EmulationSession(HOSTS, scenario=WIRED):
        pytest.fail("the body must not run")
    assert err.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) is previous


def test_a_signal_while_the_engine_runs_stops_it_and_keeps_its_result():
    with EmulationSession(HOSTS, scenario=WIRED) as s:
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        counts = s.run(functools.partial(relay, HOSTS))  # returns only once stop_fd is readable
        assert counts.forwarded == 0
        assert s.signals == [signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


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


def test_sigterm_ends_an_emulation_and_removes_everything():
    proc = _start_relay_emulation("--exec=ue=sleep 60")
    try:
        # Two namespaces with their /etc/netns files, and the registration.
        assert len(leftovers(proc.pid)) == 5
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0  # a stop signal ends the emulation normally
    finally:
        proc.kill()
    assert leftovers(proc.pid) == []


def test_after_sigkill_cleanup_removes_the_leftovers_and_their_programs():
    proc = _start_relay_emulation("--exec=ue=sleep 60")
    proc.kill()
    proc.wait(timeout=10)
    left = leftovers(proc.pid)
    assert sorted(left) == sorted(
        [
            f"namespace celltcp-{proc.pid}-remote",
            f"namespace celltcp-{proc.pid}-ue",
            f"files /etc/netns/celltcp-{proc.pid}-remote",
            f"files /etc/netns/celltcp-{proc.pid}-ue",
            f"registration {proc.pid}",
        ]
    )  # the TUN devices went with their descriptors: they are not persistent
    sleepers = netns.namespace_pids(f"celltcp-{proc.pid}-ue")
    assert sleepers, "the --exec program outlives the killed emulation"
    res = run_cli("emulate", "--cleanup")
    assert res.returncode == 0, res.stderr
    assert f"removed namespace celltcp-{proc.pid}-ue" in res.stdout
    assert leftovers(proc.pid) == []
    for pid in sleepers:  # gone, or a zombie awaiting its parent (it holds no namespace)
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z"


def test_cleanup_spares_live_emulations_and_foreign_namespaces():
    foreign = f"celltcptest{os.getpid()}"  # not the celltcp-<pid>-<host> pattern
    orphan = f"celltcp-{dead_pid()}-ue"  # the pattern, owned by no living process
    subprocess.run(["ip", "netns", "add", foreign], check=True)
    subprocess.run(["ip", "netns", "add", orphan], check=True)
    try:
        with EmulationSession(HOSTS, scenario=WIRED) as s:
            # No registry file names the orphan: reported, left alone unless forced.
            report = cleanup.cleanup_stale()
            assert f"namespace {orphan}" in report.unregistered and not report.forced
            assert orphan not in report.namespaces and orphan in netns.list_namespaces()
            report = cleanup.cleanup_stale(force=True)
            assert orphan in report.namespaces
            assert os.getpid() in report.kept
            present = netns.list_namespaces()
            assert foreign in present and orphan not in present
            assert all(a.namespace in present for a in s.attached)
    finally:
        subprocess.run(["ip", "netns", "delete", foreign], check=False)
        subprocess.run(["ip", "netns", "delete", orphan], check=False, capture_output=True)


def test_shell_runs_a_command_in_the_namespace_of_a_running_emulation(tmp_path):
    scenario = tmp_path / "chain.toml"
    scenario.write_text(WIRED.read_text())
    with EmulationSession(HOSTS, scenario=scenario) as s:
        ue = s.attached[1]
        res = run_cli("shell", scenario, "--host", "ue", "--", "ip", "-o", "-4", "address", "show")
        assert res.returncode == 0, res.stderr
        assert f"{ue.device.name}    inet {HOSTS['ue']}/32" in res.stdout
        assert "eth0" not in res.stdout
        res = run_cli(
            "shell",
            scenario,
            "--host",
            "ue",
            "--",
            "sh",
            "-c",
            "echo $CELLTCP_HOST $CELLTCP_ADDR_REMOTE; exit 7",
        )
        assert res.returncode == 7  # the command's own status
        assert res.stdout.split() == ["ue", HOSTS["remote"]]
        res = run_cli("shell", scenario, "--host", "gateway", "--", "true")
        assert res.returncode == 2 and "attached: remote, ue" in res.stderr


def test_shell_asks_for_a_pid_when_several_emulations_run(tmp_path):
    scenario = tmp_path / "chain.toml"  # a file no other emulation on the machine runs
    scenario.write_text(WIRED.read_text())
    other = _start_relay_emulation(scenario=scenario)
    try:
        with EmulationSession(HOSTS, scenario=scenario):
            res = run_cli("shell", scenario, "--host", "ue", "--", "true")
            assert res.returncode == 2
            assert "--pid" in res.stderr and str(other.pid) in res.stderr
            res = run_cli(
                "shell",
                scenario,
                "--host",
                "ue",
                "--pid",
                str(other.pid),
                "--",
                "sh",
                "-c",
                "echo $CELLTCP_EMULATION_PID",
            )
            assert res.returncode == 0 and res.stdout.strip() == str(other.pid)
    finally:
        other.send_signal(signal.SIGTERM)
        other.wait(timeout=30)
    assert leftovers(other.pid) == []
