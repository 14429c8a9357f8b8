"""``celltcp emulate`` end to end: real TCP between two namespaces across the real-time engine
(``_core.emulate``), through the command a user runs.

Needs root and TUN (skipped otherwise) and a build whose core has the real-time engine (skipped
with a message saying so otherwise).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from celltcp import _core
from celltcp.emulate import cleanup
from conftest import EXAMPLES
from emu_tools.checks import leftovers, needs_root_tun, run_celltcp

pytestmark = [
    needs_root_tun,
    pytest.mark.skipif(
        not hasattr(_core, "emulate"), reason="this build of celltcp._core has no emulate()"
    ),
]

TOOLS = Path(__file__).parent / "emu_tools"


@pytest.fixture(autouse=True)
def _nothing_left_behind():
    """An emulation killed by a failing test (a timeout) is cleaned up, so that one failure
    does not spill into the other tests or the machine."""
    try:
        yield
    finally:
        cleanup.cleanup_stale()


WIRED = EXAMPLES / "wired-chain.toml"
#: The scenario's own 20 Mb/s UDP stream would leave the transfer 5 Mb/s of the 25 Mb/s access
#: link; at 1 Mb/s it stays as light cross traffic.
CROSS_TRAFFIC = "flows.video.rate=1Mbps"
BYTES = 2_000_000


def _bulk(role: str, *args: str) -> str:
    return " ".join([sys.executable, str(TOOLS / "bulk_transfer.py"), role, *args])


def _transfer_args(out: Path, *extra: str) -> list[str]:
    return [
        "emulate",
        str(WIRED),
        "--host",
        "remote",
        "--host",
        "ue",
        "--set",
        CROSS_TRAFFIC,
        "--duration",
        "40s",
        "--out",
        str(out),
        "--exec",
        "remote=" + _bulk("server", "--bind", "$CELLTCP_ADDRESS", "--bytes", str(BYTES)),
        "--exec",
        "ue="
        + _bulk(
            "client",
            "--connect",
            "$CELLTCP_ADDR_REMOTE",
            "--bytes",
            str(BYTES),
            ">",
            str(out.parent / "client.json"),
        ),
        *extra,
    ]


def test_a_real_tcp_transfer_crosses_the_emulated_path(tmp_path):
    out = tmp_path / "out"
    pcap = tmp_path / "path.pcap"
    res, pid = run_celltcp(*_transfer_args(out, "--pcap", str(pcap)), timeout=120)
    assert res.returncode == 0, res.stderr
    assert leftovers(pid) == []

    # The client saw every byte, at a rate the 25 Mb/s access link allows.
    client = json.loads((tmp_path / "client.json").read_text())
    assert client["bytes"] == BYTES
    assert 2e6 < client["goodput_bps"] < 25e6 * 1.05

    # Outputs as `celltcp run` writes them, plus emulation.json.
    summary = json.loads((out / "summary.json").read_text())
    assert "video" in summary["flows"]
    report = json.loads((out / "emulation.json").read_text())
    assert report["stopped_by"] == "programs"
    assert [p["exit_code"] for p in report["programs"]] == [0, 0]
    engine = report["engine"]
    assert engine["packets_in"] > BYTES / 1500 and engine["packets_out"] > BYTES / 1500
    assert engine["dropped_non_ipv4"] == 0
    # The path's own account of the connection: what the receiver acknowledged.
    # (A first attempt may have been refused, if the client's SYN beat the server's listen():
    # the client retries, so only one connection carries the data.)
    directions = [
        d
        for c in engine["connections"]
        if 5201 in (c.get("dst_port"), c.get("src_port"))
        for d in (c["forward"], c["reverse"])
        if d["data_bytes"] > 0
    ]
    assert len(directions) == 1, engine["connections"]
    data = directions[0]
    assert data["bytes_delivered"] >= BYTES
    assert 2e6 < data["goodput_bps"] < 25e6 * 1.05
    # RTT at the path: at least the 2 × (20 + 3 + 5) ms of propagation of the chain.
    assert data["rtt"]["min_s"] >= 0.056

    # The terminal report names the goodput; the capture holds the real packets.
    assert "goodput" in res.stdout
    assert pcap.stat().st_size > BYTES


def test_ctrl_c_stops_an_emulation_and_keeps_its_outputs(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celltcp.cli",
            "emulate",
            str(WIRED),
            "--host",
            "ue",
            "--duration",
            "60s",
            "--out",
            str(out),
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline_ok = _wait_registered(proc.pid)
        assert deadline_ok, "the emulation did not register within 20 s"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert json.loads((out / "emulation.json").read_text())["stopped_by"] == "SIGINT"
    assert leftovers(proc.pid) == []


def _wait_registered(pid: int, timeout: float = 20.0) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(leftovers(pid)) >= 2:  # namespace and registration
            time.sleep(0.5)  # the engine starts right after the set-up
            return True
        time.sleep(0.05)
    return False


def test_bad_host_creates_nothing(tmp_path):
    res, pid = run_celltcp("emulate", WIRED, "--host", "enb", "--out", tmp_path / "o")
    assert res.returncode == 2 and "--host enb" in res.stderr
    assert not (tmp_path / "o").exists()
    assert leftovers(pid) == []


def test_programs_that_fail_give_exit_status_1(tmp_path):
    out = tmp_path / "out"
    res, pid = run_celltcp(
        "emulate",
        WIRED,
        "--host",
        "ue",
        "--duration",
        "20s",
        "--out",
        out,
        "--quiet",
        "--exec",
        "ue=exit 3",
        timeout=60,
    )
    assert res.returncode == 1, res.stderr
    assert leftovers(pid) == []
    report = json.loads((out / "emulation.json").read_text())
    assert report["programs"][0]["exit_code"] == 3
    assert report["stopped_by"] == "programs"
    assert not os.path.exists(out.parent / f".{out.name}.partial-{os.getpid()}")
