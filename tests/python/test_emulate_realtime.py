"""An engine that cannot keep up with real time fails with its own error, RealTimeError, and
``celltcp emulate`` reports it on one line with its own exit status (4); ``--priority`` is
checked like any option.

The failure is forced with a tiny ``max_lag`` (100 ns): every event is handled later than that
after its due time, so the engine is "behind" from its first event on and gives up after the
second of grace, on an idle machine as on a busy one.
"""

from __future__ import annotations

import socket

import pytest

from celltcp import _core
from celltcp.emulate.errors import REAL_TIME_MARKER, RealTimeError
from celltcp.emulate.runner import core_engine, parse_priority
from celltcp.errors import ScenarioError, SimulationError
from conftest import EXAMPLES
from emu_tools.checks import leftovers, needs_root_tun, run_celltcp

needs_core = pytest.mark.skipif(
    not hasattr(_core, "emulate"), reason="this build of celltcp._core has no emulate()"
)
WIRED = EXAMPLES / "wired-chain.toml"
TINY_LAG_S = 1e-7


@needs_core
def test_falling_behind_real_time_is_a_real_time_error():
    # A descriptor pair stands for the UE's TUN device: no root needed.
    app, emu = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with app, emu:
        emu.setblocking(False)
        options = {"duration": 10.0, "max_lag": TINY_LAG_S, "priority": 0}
        engine = core_engine(_core.Document.parse(WIRED.read_text(), "scenario"), [], options)
        with pytest.raises(RealTimeError) as info:
            engine([("ue", emu.fileno())], -1)
    message = str(info.value)
    assert message.startswith(REAL_TIME_MARKER), message
    assert "(max_lag 100 ns)" in message, message
    assert isinstance(info.value, SimulationError)


def test_other_simulation_errors_are_left_alone():
    e = SimulationError("internal error in world at t=1s: boom")
    assert RealTimeError.recognise(e) is e
    r = RealTimeError.recognise(SimulationError(f"{REAL_TIME_MARKER}: the engine fell 0.3 s"))
    assert isinstance(r, RealTimeError)


@pytest.mark.parametrize(
    "text, value",
    [("auto", "auto"), ("off", 0), ("0", 0), ("10", 10), ("99", 99), ("AUTO", "auto")],
)
def test_priorities(text, value):
    assert parse_priority(text) == value


@pytest.mark.parametrize("text", ["100", "-1", "fifo", "", "1.5"])
def test_bad_priorities_name_the_option(text):
    with pytest.raises(ScenarioError, match="--priority"):
        parse_priority(text)


@needs_root_tun
@needs_core
def test_the_command_exits_4_with_one_line_and_leaves_nothing(tmp_path):
    out = tmp_path / "out"
    res, pid = run_celltcp(
        "emulate",
        WIRED,
        "--host",
        "ue",
        "--duration",
        "10s",
        "--max-lag",
        "0.1us",
        "--priority",
        "off",
        "--out",
        out,
        timeout=60,
    )
    assert res.returncode == 4, res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"celltcp: error: {REAL_TIME_MARKER}: the engine fell"), lines[0]
    assert "internal error" not in res.stderr
    assert not out.exists()
    assert leftovers(pid) == []
