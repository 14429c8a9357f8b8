"""The determinism and crash-safety checks of ``tests/python/reliability.py`` with small counts
(docs/reliability.md gives the long runs): the same sweep with 1 and 2 workers, twice, and two
``celltcp run``s give byte-identical outputs; a sweep SIGKILLed at a random instant and resumed
holds exactly what an uninterrupted sweep holds."""

from __future__ import annotations

import shutil
from pathlib import Path

import reliability
from conftest import EXAMPLES


def test_outputs_are_byte_identical_across_worker_counts_and_runs(tmp_path, capsys):
    ok = reliability.determinism([EXAMPLES / "wired-chain-tcp.toml"], 2, "2s", tmp_path)
    out = capsys.readouterr().out
    assert ok, out
    assert "identical across 1, 2 and 2 workers: True" in out


def test_sigkilled_sweeps_resume_with_nothing_lost_or_duplicated(tmp_path, capsys):
    ok = reliability.kill_resume(2, 1, tmp_path)
    out = capsys.readouterr().out
    assert ok, out
    assert "2/2 stores hold exactly the 16 runs" in out


def test_the_check_fails_on_a_store_that_lost_a_run(tmp_path):
    """The store check is no verdict that cannot fail: a deleted row is found."""
    import duckdb

    (tmp_path / "kill.toml").write_text(reliability.KILL_SCENARIO, encoding="utf-8")
    sweep = tmp_path / "kill-sweep.toml"
    sweep.write_text(reliability.KILL_SWEEP, encoding="utf-8")
    res = reliability.celltcp("sweep", sweep, "--store", tmp_path / "fresh", "--quiet")
    assert res.returncode == 0, res.stderr
    fresh_stats = reliability.celltcp("stats", tmp_path / "fresh", "--json").stdout
    store: Path = tmp_path / "store"
    shutil.copytree(tmp_path / "fresh", store)
    assert reliability._check_store(store, tmp_path / "fresh", fresh_stats) == []
    with duckdb.connect(str(store / "results.duckdb")) as con:
        con.execute("DELETE FROM runs WHERE run = 0 AND key = (SELECT min(key) FROM runs)")
    problems = reliability._check_store(store, tmp_path / "fresh", fresh_stats)
    assert any("15 rows" in p for p in problems), problems
