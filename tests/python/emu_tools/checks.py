"""What the emulation tests check on the system: celltcp's namespaces, devices and registry
files, and whether this machine can run emulations at all."""

from __future__ import annotations

import select
import subprocess
import time

import pytest

from celltcp.emulate import netns, privileges, registry


def system_lacks() -> str | None:
    """Why emulations cannot run here, or None when they can."""
    problems = privileges.missing()
    return "; ".join(str(p) for p in problems) if problems else None


#: Skips a test on a machine without root (CAP_NET_ADMIN, CAP_SYS_ADMIN), TUN or iproute2.
needs_root_tun = pytest.mark.skipif(
    system_lacks() is not None, reason=f"emulation needs root and TUN: {system_lacks()}"
)


def leftovers(pid: int | None = None) -> list[str]:
    """celltcp namespaces, their files under /etc/netns, devices (this namespace) and registry
    files — of ``pid`` only when
    given, else of any emulation."""
    found: list[str] = []
    for name in netns.list_namespaces():
        parsed = netns.parse_namespace_name(name)
        if parsed and (pid is None or parsed[0] == pid):
            found.append(f"namespace {name}")
    for name in netns.list_links():
        parsed = netns.parse_device_name(name)
        if parsed and (pid is None or parsed[0] == pid):
            found.append(f"device {name}")
    for name in netns.list_etc():
        parsed = netns.parse_namespace_name(name)
        if parsed and (pid is None or parsed[0] == pid):
            found.append(f"files {netns.ETC_NETNS / name}")
    regs, bad = registry.load_all()
    found += [f"registration {r.pid}" for r in regs if pid is None or r.pid == pid]
    found += [f"registry file {p}" for p in bad if pid is None or p.stem == str(pid)]
    return found


def wait_for_line(proc: subprocess.Popen[str], wanted: str, timeout: float = 20.0) -> None:
    """Reads ``proc``'s stdout until a line equals ``wanted``; fails on EOF or timeout."""
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"process ended before printing {wanted!r} (status {proc.wait()})")
        if line.strip() == wanted:
            return
    raise AssertionError(f"no {wanted!r} within {timeout} s")


def dead_pid() -> int:
    """The pid of a process that has just exited (a pid no emulation can have)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def run_celltcp(*args: object, timeout: float = 600) -> tuple[object, int]:
    """Runs ``python -m celltcp.cli ARGS`` like conftest's ``run_cli`` and also returns the
    process id, so that what that very process left behind can be checked even while other
    emulations run on the machine."""
    import os
    import sys

    from conftest import CliResult

    env = dict(os.environ)
    env.pop("RUST_BACKTRACE", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "celltcp.cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
    return CliResult(proc.returncode, out, err), proc.pid
