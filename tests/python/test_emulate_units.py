"""Emulation pieces that need neither root nor the real-time engine: names, option parsing,
the registry, the privilege check and the choice of hosts."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from celltcp import Scenario, ScenarioError
from celltcp.emulate import netns, privileges, registry
from celltcp.emulate.cli import parse_duration
from celltcp.emulate.errors import EmulationError, IpCommandError, TunError
from celltcp.emulate.programs import ProgramResult, parse_exec
from celltcp.emulate.runner import attachable_hosts
from celltcp.emulate.session import EmulationSession, environment
from celltcp.emulate.tun import open_tun
from conftest import EXAMPLES
from emu_tools.checks import dead_pid

# -- names ----------------------------------------------------------------------------------------


def test_names_carry_prefix_and_pid_and_parse_back():
    assert netns.namespace_name(4242, "ue_far") == "celltcp-4242-ue_far"
    assert netns.parse_namespace_name("celltcp-4242-ue_far") == (4242, "ue_far")
    assert netns.device_name(4242, 0) == "celltcp4242a"
    assert netns.device_name(4194304, 25) == "celltcp4194304z"  # the longest: 15 bytes
    assert len(netns.device_name(4194304, 25)) == 15
    assert netns.parse_device_name("celltcp4242b") == (4242, 1)


@pytest.mark.parametrize(
    "name",
    [
        "eth0",
        "celltcp",
        "celltcp-x-ue",
        "celltcp-12-",
        "celltcpx",
        "mycelltcp-1-ue",
        "celltcp12",
        "celltcp12ab",
        "celltcp-1-ue/x",
    ],
)
def test_foreign_names_are_not_celltcp(name):
    assert netns.parse_namespace_name(name) is None
    assert netns.parse_device_name(name) is None


def test_host_names_that_cannot_name_a_namespace_are_refused():
    for bad in ("a/b", "", "-x", "has space", "x" * 65):
        with pytest.raises(IpCommandError):
            netns.namespace_name(1, bad)
    with pytest.raises(IpCommandError, match="at most 26"):
        netns.device_name(1, 26)


def test_deleting_a_foreign_namespace_or_link_is_refused_without_running_ip():
    with pytest.raises(IpCommandError, match="not created by celltcp"):
        netns.delete_namespace("production")
    with pytest.raises(IpCommandError, match="not created by celltcp"):
        netns.delete_link("eth0")


def test_tun_names_are_checked_before_the_device_is_opened(tmp_path):
    for bad in ("", "x" * 16, "a/b", "a b", "é"):
        with pytest.raises(TunError, match="not a usable interface name"):
            open_tun(bad, path=str(tmp_path / "absent"))
    with pytest.raises(TunError, match="cannot open"):
        open_tun("celltcp1a", path=str(tmp_path / "absent"))


# -- options --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("30", 30.0),
        ("30s", 30.0),
        ("500ms", 0.5),
        ("2min", 120.0),
        ("1h", 3600.0),
        (".5s", 0.5),
        ("250us", 250e-6),
        ("0.1µs", 1e-7),
    ],
)
def test_durations(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["0", "0s", "-1s", "10 parsecs", "s", ""])
def test_bad_durations(text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse_duration(text)


def test_exec_splits_at_the_first_equals_sign():
    spec = parse_exec("ue=curl 'http://$CELLTCP_ADDR_SERVER/?a=b'")
    assert spec.host == "ue"
    assert spec.command == "curl 'http://$CELLTCP_ADDR_SERVER/?a=b'"
    for bad in ("ue", "=ls", "ue=", " = "):
        with pytest.raises(EmulationError, match="HOST=COMMAND"):
            parse_exec(bad)


def test_a_handover_of_a_real_connection_reads_as_one_line():
    from celltcp.emulate.cli import _handover_row

    row = _handover_row(
        {
            "handover": 0,
            "cause": "link",
            "policy": "discard",
            "interruption_s": 0.1,
            "sender": "10.0.0.1:5201",
            "receiver": "10.0.0.2:40000",
            "outcome": "timeout",
            "dropped": 69,
            "silence_s": 0.3956,
            "rto_estimate_s": 0.2,
            "rtt_before_s": 0.0817,
            "rtt_peak_s": 0.42,
            "goodput_before_bps": 9.65e6,
            "recovery_time_s": 0.7,
        }
    )
    assert row[0] == "0 link/discard 100.00 ms"
    assert row[1] == "10.0.0.1:5201 > 10.0.0.2:40000"
    assert row[2:4] == ["timeout", "69"]
    assert row[4] == "395.60 ms / 200.00 ms"
    # A row without a timeout shows no silence; missing figures read as "-".
    assert _handover_row({"outcome": "none"})[4] == "-"


def test_program_results_read_well():
    ok = ProgramResult("ue", "true", 1, 0, None, False, 0.5)
    stopped = ProgramResult("server", "sleep 9", 2, None, "SIGTERM", True, 3.0)
    assert ok.ok and "exit status 0" in ok.describe()
    assert not stopped.ok
    assert "killed by SIGTERM" in stopped.describe() and "stopped" in stopped.describe()


def test_environment_names_every_attached_host():
    env = environment({"server": "10.0.0.3", "ue-far.1": "10.0.0.4"}, "ue-far.1", 77)
    assert env == {
        "CELLTCP_HOST": "ue-far.1",
        "CELLTCP_ADDRESS": "10.0.0.4",
        "CELLTCP_EMULATION_PID": "77",
        "CELLTCP_ADDR_SERVER": "10.0.0.3",
        "CELLTCP_ADDR_UE_FAR_1": "10.0.0.4",
    }


def test_session_arguments_are_checked_before_anything_is_created():
    with pytest.raises(EmulationError, match="at least one host"):
        EmulationSession({}, scenario=None)
    with pytest.raises(EmulationError, match="MTU"):
        EmulationSession({"ue": "10.0.0.4"}, scenario=None, mtu=40)
    with pytest.raises(IpCommandError):
        EmulationSession({"a/b": "10.0.0.4"}, scenario=None)


# -- hosts ----------------------------------------------------------------------------------------


def _resolved() -> dict:
    return Scenario.load(EXAMPLES / "wired-chain.toml").validate()


def test_attachable_hosts_map_names_to_scenario_addresses():
    resolved = _resolved()
    got = attachable_hosts(resolved, ["ue", "remote"])
    assert got == {
        "ue": resolved["nodes"]["ue"]["address"],
        "remote": resolved["nodes"]["remote"]["address"],
    }
    assert list(got) == ["ue", "remote"]  # the order given decides the device letters


@pytest.mark.parametrize(
    "hosts, key, needle",
    [
        ([], "--host", "at least one"),
        (["nope"], "--host nope", "no such node"),
        (["gateway"], "--host gateway", "is a router"),
        (["ue", "ue"], "--host ue", "named twice"),
    ],
)
def test_bad_hosts_name_the_option(hosts, key, needle):
    with pytest.raises(ScenarioError) as err:
        attachable_hosts(_resolved(), hosts)
    assert err.value.key == key
    assert needle in err.value.message


# -- privileges -----------------------------------------------------------------------------------


def _status(tmp_path: Path, capeff: int) -> str:
    path = tmp_path / "status"
    path.write_text(f"Name:\tx\nCapInh:\t0000000000000000\nCapEff:\t{capeff:016x}\n")
    return str(path)


def test_privileges_name_each_missing_capability(tmp_path):
    tun = tmp_path / "tun"
    tun.write_bytes(b"")  # openable, like the real device
    none = privileges.missing(status_path=_status(tmp_path, 0), tun_path=str(tun))
    assert "CAP_NET_ADMIN and CAP_SYS_ADMIN" in str(none[0])
    only_sys = privileges.missing(status_path=_status(tmp_path, 1 << 21), tun_path=str(tun))
    assert [str(m).split(" (")[0] for m in only_sys] == ["capability CAP_NET_ADMIN not held"]
    both = (1 << 12) | (1 << 21)
    assert privileges.missing(status_path=_status(tmp_path, both), tun_path=str(tun)) == []


def test_privileges_explain_a_missing_tun_device(tmp_path):
    both = (1 << 12) | (1 << 21)
    problems = privileges.missing(status_path=_status(tmp_path, both), tun_path=str(tmp_path / "x"))
    assert len(problems) == 1
    assert "does not exist" in problems[0].what and "modprobe tun" in problems[0].how
    with pytest.raises(privileges.PrivilegeError, match="modprobe tun"):
        privileges.check(status_path=_status(tmp_path, both), tun_path=str(tmp_path / "x"))


def test_unreadable_status_means_no_capabilities(tmp_path):
    assert privileges.effective_capabilities(str(tmp_path / "absent")) == 0


# -- registry -------------------------------------------------------------------------------------


def _registration(pid: int, scenario: str) -> registry.Registration:
    return registry.Registration(
        pid=pid,
        start_time=registry.process_start_time(pid),
        scenario=scenario,
        hosts={"ue": registry.HostEntry(f"celltcp-{pid}-ue", f"celltcp{pid}a", "10.0.0.4")},
        mtu=1400,
    )


def test_registry_round_trip_and_liveness(tmp_path):
    scenario = os.path.realpath(EXAMPLES / "wired-chain.toml")
    me = _registration(os.getpid(), scenario)
    gone = _registration(dead_pid(), scenario)
    registry.write(me, tmp_path)
    registry.write(gone, tmp_path)
    (tmp_path / "99.json").write_text("{not json")
    regs, bad = registry.load_all(tmp_path)
    assert {r.pid for r in regs} == {me.pid, gone.pid}
    assert bad == [tmp_path / "99.json"]
    back = next(r for r in regs if r.pid == me.pid)
    assert back.to_json() == me.to_json()
    assert back.alive() and not next(r for r in regs if r.pid == gone.pid).alive()
    # Found by the scenario's path however it is spelled; the dead one is not offered.
    relative = os.path.relpath(scenario)
    assert [r.pid for r in registry.running_for(relative, tmp_path)] == [me.pid]
    registry.remove(me.pid, tmp_path)
    assert not (tmp_path / f"{me.pid}.json").exists()


def test_a_reused_pid_is_not_a_live_emulation(tmp_path):
    reg = _registration(os.getpid(), "/x.toml")
    assert reg.start_time is not None
    reg.start_time += 1  # the same pid, started at another moment: another process
    assert not reg.alive()


def test_registry_files_are_json_with_a_format_number(tmp_path):
    path = registry.write(_registration(os.getpid(), "/s.toml"), tmp_path)
    data = json.loads(path.read_text())
    assert data["format"] == 1 and data["hosts"]["ue"]["device"].startswith("celltcp")
    data["format"] = 2
    path.write_text(json.dumps(data))
    regs, bad = registry.load_all(tmp_path)
    assert regs == [] and bad == [path]


def test_an_unwritable_registry_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(registry.RegistryError, match="cannot write the emulation registry"):
        registry.write(_registration(os.getpid(), "/s.toml"), blocker / "sub")


def test_etc_files_name_the_nodes_and_point_dns_at_loopback(tmp_path):
    ns = "celltcp-42-ue"
    netns.write_etc(ns, {"remote": "10.0.0.3", "ue": "10.0.0.4"}, tmp_path)
    hosts = (tmp_path / ns / "hosts").read_text().splitlines()
    assert hosts == ["127.0.0.1\tlocalhost", "10.0.0.3\tremote", "10.0.0.4\tue"]
    assert "nameserver 127.0.0.1" in (tmp_path / ns / "resolv.conf").read_text()
    assert netns.list_etc(tmp_path) == [ns]
    (tmp_path / "other").mkdir()
    with pytest.raises(IpCommandError, match="not created by celltcp"):
        netns.remove_etc("other", tmp_path)
    netns.remove_etc(ns, tmp_path)
    assert netns.list_etc(tmp_path) == [] and (tmp_path / "other").is_dir()
