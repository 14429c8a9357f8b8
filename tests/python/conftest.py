"""Shared fixtures of the Python tests: a small valid scenario, and a runner for the CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

# pytest-xdist's workers ignore SIGINT, and an ignored signal is inherited across exec: the
# celltcp started by the Ctrl-C tests would never see theirs. A handler, unlike SIG_IGN, is reset
# to the default at exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "python/celltcp/examples"

#: A sender, a router and a receiver in a chain: a fast core link and a 10 Mb/s access link, one
#: Poisson UDP flow (so that the seed and the run number matter), queue and flow series traced.
CHAIN_TOML = """\
[simulation]
duration = "2s"
seed = 1

[nodes.sender]
kind = "host"

[nodes.router]
kind = "router"

[nodes.receiver]
kind = "host"

[links.core]
a = "sender"
b = "router"
rate = "100Mbps"
delay = "10ms"

[links.access]
a = "router"
b = "receiver"
rate = "10Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "50p" }

[flows.video]
kind = "udp"
src = "sender"
dst = "receiver"
rate = "5Mbps"
packet_size = "1200B"
arrival = "poisson"

[trace]
interval = "100ms"
queues = ["access"]
flows = ["video"]
"""


@pytest.fixture
def chain_toml() -> str:
    return CHAIN_TOML


@pytest.fixture
def chain_file(tmp_path: Path) -> Path:
    path = tmp_path / "chain.toml"
    path.write_text(CHAIN_TOML, encoding="utf-8")
    return path


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


def run_cli(
    *args: str | os.PathLike[str], cwd: Path | None = None, timeout: float = 600
) -> CliResult:
    """Runs ``python -m celltcp.cli ARGS`` in a subprocess (what the console script runs)."""
    env = dict(os.environ)
    # A panic's backtrace is noise in these tests' stderr checks; exit codes still tell.
    env.pop("RUST_BACKTRACE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "celltcp.cli", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli():
    return run_cli


def example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("*.toml"))


def pytest_collection_modifyitems(config, items):
    """The emulations keep pace with the wall clock: marked ``realtime`` so that ``make test``
    runs them after the others, one at a time."""
    for item in items:
        if item.path.name.startswith("test_emulate_"):
            item.add_marker(pytest.mark.realtime)
