"""The Ray backend gives the local pool's results, on a local Ray instance started here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Keep the test instance on the loopback interface: with this set, Ray takes 127.0.0.1 as the
# node's address instead of the machine's network address. Read when ray is first imported.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

ray = pytest.importorskip(
    "ray", reason="the Ray backend is optional; install it with pip install 'celltcp[ray]'"
)

import celltcp  # noqa: E402  (after the environment variable above)
from conftest import CHAIN_TOML  # noqa: E402

SWEEP = """\
scenario = "chain.toml"
runs = 3
metrics = ["flows.*.goodput_bps", "flows.video.delay_p95_s", "stop_reason"]
series = ["queue"]

[grid]
"links.access.rate" = ["4Mbps", "8Mbps"]
"flows.video.arrival" = ["poisson", "cbr"]
"""


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_backend_equals_the_local_pool(tmp_path: Path, local_ray):
    (tmp_path / "chain.toml").write_text(CHAIN_TOML, encoding="utf-8")
    path = tmp_path / "sweep.toml"
    path.write_text(SWEEP, encoding="utf-8")
    on_ray = celltcp.sweep(path, store=tmp_path / "ray", backend="ray")
    assert local_ray.is_initialized()  # an instance started by the caller is left running
    local = celltcp.sweep(path, store=tmp_path / "local", workers=2)
    assert len(on_ray) == 12 and (on_ray["status"] == "ok").all()
    assert on_ray.equals(local)
    kept = sorted(p.relative_to(tmp_path / "ray") for p in (tmp_path / "ray").rglob("*.parquet"))
    assert len(kept) == 12
    for rel in kept:
        assert (tmp_path / "ray" / rel).read_bytes() == (tmp_path / "local" / rel).read_bytes()
