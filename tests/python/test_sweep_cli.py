"""``celltcp sweep`` and ``celltcp stats`` as a user runs them, including crashes: the parent
or a worker killed with SIGKILL mid-sweep, then the same command run again."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from conftest import CHAIN_TOML, EXAMPLES

SWEEP = """\
scenario = "chain.toml"
runs = 3
metrics = ["flows.video.goodput_bps", "stop_reason"]

[grid]
"links.access.rate" = ["4Mbps", "8Mbps"]
"""


def _files(tmp_path: Path, sweep: str = SWEEP) -> Path:
    (tmp_path / "chain.toml").write_text(CHAIN_TOML, encoding="utf-8")
    path = tmp_path / "sweep.toml"
    path.write_text(sweep, encoding="utf-8")
    return path


def _assert_user_error(res, *needles: str) -> None:
    assert res.returncode == 2, res
    assert len(res.stderr_lines) == 1, res.stderr
    line = res.stderr_lines[0]
    assert line.startswith("celltcp: error: ") and "Traceback" not in res.stderr
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"


def test_sweep_prints_statistics_and_stats_reads_them_back(tmp_path, cli):
    path = _files(tmp_path)
    store = tmp_path / "store"
    res = cli("sweep", path, "--store", store, "--workers", "2")
    assert res.returncode == 0, res.stderr
    assert "means with Student-t 95% confidence intervals" in res.stdout
    assert "outcome probabilities with Wilson 95% score intervals" in res.stdout
    assert "flows.video.goodput_bps" in res.stdout and "duration" in res.stdout
    assert "6 runs at 2 points: 6 run now (6 ok, 0 failed), 0 already stored" in res.stderr
    assert "[########################] 6/6 runs" in res.stderr  # the progress bar's last state

    again = cli("sweep", path, "--store", store, "--quiet")
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")

    stats = cli("stats", store)
    assert stats.returncode == 0, stats.stderr
    assert "4Mbps" in stats.stdout and "8Mbps" in stats.stdout and "3/3" in stats.stdout
    data = json.loads(cli("stats", store, "--json", "--confidence", "0.9").stdout)
    assert data["confidence"] == 0.9
    assert {m["metric"] for m in data["metrics"]} == {"flows.video.goodput_bps"}
    assert all(m["n"] == 3 and m["ci_low"] < m["mean"] < m["ci_high"] for m in data["metrics"])
    assert [o["p"] for o in data["outcomes"]] == [1.0, 1.0]


def test_the_default_store_is_out_slash_the_file_stem(tmp_path, cli):
    path = _files(tmp_path)
    res = cli("sweep", path, "--quiet", "--workers", "1", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "out" / "sweep" / "results.duckdb").is_file()


@pytest.mark.parametrize(
    ("edit", "needles"),
    [
        (
            lambda s: s.replace('"links.access.rate"', '"links.acces.rate"'),
            ["links.acces.rate", "no link 'acces'", "point 0"],
        ),
        (
            lambda s: s.replace('"8Mbps"', '"8 Mbit"'),
            ["links.access.rate: '8 Mbit' is not a rate", 'point 1: links.access.rate = "8 Mbit"'],
        ),
        (lambda s: s.replace('["4Mbps", "8Mbps"]', "[]"), ["grid.links.access.rate", "empty list"]),
    ],
)
def test_bad_input_is_one_line_exit_2_and_no_store(tmp_path, cli, edit, needles):
    path = _files(tmp_path, edit(SWEEP))
    store = tmp_path / "store"
    res = cli("sweep", path, "--store", store)
    _assert_user_error(res, *needles)
    assert not store.exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_ray_address_is_a_user_error(tmp_path, cli):
    store = tmp_path / "store"
    port = _closed_port()
    res = cli(
        "sweep",
        _files(tmp_path),
        "--store",
        store,
        "--backend",
        "ray",
        "--address",
        f"127.0.0.1:{port}",
    )
    try:
        import ray  # noqa: F401
    except ImportError:
        _assert_user_error(res, "needs Ray")
    else:
        _assert_user_error(res, f"127.0.0.1:{port}: cannot reach a Ray cluster")
    assert not store.exists()


def test_an_incompatible_store_is_a_user_error(tmp_path, cli):
    path = _files(tmp_path)
    store = tmp_path / "store"
    assert cli("sweep", path, "--store", store, "--quiet").returncode == 0
    with duckdb.connect(str(store / "results.duckdb")) as con:
        con.execute("UPDATE meta SET value = '2' WHERE name = 'store_format'")
    _assert_user_error(cli("sweep", path, "--store", store), "store format 2")
    _assert_user_error(cli("stats", store), "store format 2")
    _assert_user_error(cli("stats", tmp_path / "nothing"), "no sweep store here")


# -- crashes ---------------------------------------------------------------------------------------

#: 16 runs of about 0.15 s each (a 60 s TCP download), series kept, so that a crash lands mid-way.
CRASH_SWEEP = f"""\
scenario = {json.dumps(str(EXAMPLES / "wired-chain-tcp.toml"))}
runs = 8
metrics = ["flows.bulk.goodput_bps", "flows.bulk.sender.retransmissions"]
series = ["flow_rate", "tcp"]

[grid]
"flows.bulk.cc" = ["newreno", "cubic"]
"simulation.duration" = ["60s"]
"""


def _start(tmp_path: Path, store: Path, workers: int) -> subprocess.Popen:
    path = tmp_path / "crash.toml"
    path.write_text(CRASH_SWEEP, encoding="utf-8")
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celltcp.cli",
            "sweep",
            str(path),
            "--store",
            str(store),
            "--workers",
            str(workers),
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _finished_series(store: Path) -> int:
    return sum(1 for d in store.glob("series/*/*") if d.is_dir() and not d.name.startswith("."))


def _wait_for(store: Path, count: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while _finished_series(store) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.02)


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _rows(store: Path) -> list[tuple]:
    with duckdb.connect(str(store / "results.duckdb"), read_only=True) as con:
        return con.execute("SELECT key, run, status FROM runs ORDER BY key, run").fetchall()


def _assert_complete(store: Path, tmp_path: Path) -> None:
    rows = _rows(store)
    assert len(rows) == 16 and len({(k, r) for k, r, _ in rows}) == 16
    assert {s for _, _, s in rows} == {"ok"}
    for key, run, _ in rows:
        kept = sorted(p.name for p in (store / "series" / key / str(run)).iterdir())
        assert kept == ["flow_rate.parquet", "tcp.parquet"]
    assert not list(store.glob("series/*/.*"))  # no temporary directory is left


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find worker processes")
def test_parent_killed_mid_sweep_loses_nothing_and_the_rerun_completes(tmp_path, cli):
    store = tmp_path / "store"
    proc = _start(tmp_path, store, workers=1)
    try:
        _wait_for(store, 3, proc)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    res = cli("sweep", tmp_path / "crash.toml", "--store", store, "--workers", "2")
    assert res.returncode == 0, res.stderr
    assert "already stored" in res.stderr
    _assert_complete(store, tmp_path)
    # The interrupted store holds exactly what a sweep without a crash computes.
    fresh = cli("sweep", tmp_path / "crash.toml", "--store", tmp_path / "fresh", "--quiet")
    assert fresh.returncode == 0, fresh.stderr
    assert cli("stats", store, "--json").stdout == cli("stats", tmp_path / "fresh", "--json").stdout


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find worker processes")
def test_a_killed_worker_stops_the_sweep_cleanly_and_the_rerun_completes(tmp_path, cli):
    store = tmp_path / "store"
    proc = _start(tmp_path, store, workers=2)
    try:
        _wait_for(store, 2, proc)
        # Workers are forked by the fork server, itself a child of the sweep's process.
        workers = [w for server in _children(proc.pid) for w in _children(server)]
        assert workers, "no worker process found"
        os.kill(workers[0], signal.SIGKILL)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 1, stderr
    assert "a worker process died" in stderr and "run the same command again" in stderr
    stored = len(_rows(store))
    assert 0 < stored < 16
    res = cli("sweep", tmp_path / "crash.toml", "--store", store, "--workers", "2")
    assert res.returncode == 0, res.stderr
    assert f"{stored} already stored" in res.stderr
    _assert_complete(store, tmp_path)
