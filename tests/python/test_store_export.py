"""The results store as others read it: a DuckDB file older DuckDB releases open, parameters as
numbers in SI base units, ``celltcp export --parquet``, and statistics printed with units."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import celltcp
from celltcp import _core
from celltcp.report import format_metric
from celltcp.sweep import sweep
from celltcp.sweep.store import DB_FILE, Store, parameter_values
from conftest import CHAIN_TOML

SWEEP = """\
scenario = "chain.toml"
runs = 2
metrics = ["flows.video.goodput_bps", "flows.video.delay_mean_s", "stop_reason"]

[grid]
"links.access.rate" = ["20Mbps", "5Mbps", "10Mbps"]
"links.access.delay" = ["5ms"]
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("export")
    (root / "chain.toml").write_text(CHAIN_TOML, encoding="utf-8")
    (root / "sweep.toml").write_text(SWEEP, encoding="utf-8")
    sweep(root / "sweep.toml", store=root / "store", workers=1)
    return root / "store"


def test_the_unit_parser_is_the_scenario_formats():
    assert _core.quantity("20Mbps") == ("rate", "bit/s", 2e7)
    assert _core.quantity("5ms") == ("time", "s", 0.005)
    # The SI symbol kB beside KB and KiB.
    assert _core.quantity("200kB") == ("size", "B", 2e5)
    assert _core.quantity("200KB") == ("size", "B", 2e5)
    assert _core.quantity("2KiB") == ("size", "B", 2048.0)
    assert _core.quantity("100p") == ("packets", "packets", 100.0)
    assert _core.quantity("36km/h") == ("speed", "m/s", 10.0)
    assert _core.quantity("reno") is None and _core.quantity("20") is None
    assert parameter_values({"a": "5Mbps", "b": 3, "c": "cubic", "d": "1s"}) == [
        ("a", "bit/s", 5e6),
        ("d", "s", 1.0),
    ]


def test_the_database_file_is_in_duckdb_v1_0_storage(store):
    # Bytes 8-11 "DUCK", then the storage version (uint64 little-endian): 64 is v0.10/v1.0's,
    # which every later release reads; the library's newest format is not.
    head = (store / DB_FILE).read_bytes()[:20]
    assert head[8:12] == b"DUCK"
    assert int.from_bytes(head[12:20], "little") == 64


def test_parameters_are_stored_and_framed_as_numbers_in_si_units(store):
    con = duckdb.connect(str(store / DB_FILE), read_only=True)
    try:
        rates = con.execute(
            "SELECT DISTINCT value FROM parameter_values WHERE name = 'links.access.rate' "
            "AND unit = 'bit/s' ORDER BY value"
        ).fetchall()
    finally:
        con.close()
    # Numeric order (5 < 10 < 20 Mb/s), not the strings' ("10Mbps" < "20Mbps" < "5Mbps").
    assert [r[0] for r in rates] == [5e6, 1e7, 2e7]
    frame = sweep_frame(store)
    assert frame.attrs["parameter_values"] == {
        "links.access.rate": "links.access.rate [bit/s]",
        "links.access.delay": "links.access.delay [s]",
    }
    by_text = dict(zip(frame["links.access.rate"], frame["links.access.rate [bit/s]"], strict=True))
    assert by_text == {"5Mbps": 5e6, "10Mbps": 1e7, "20Mbps": 2e7}
    assert set(frame["links.access.delay [s]"]) == {0.005}
    # The twin columns are not parameters of their own: statistics group as before.
    assert frame.attrs["parameters"] == ["links.access.rate", "links.access.delay"]


def test_the_store_has_each_parameter_as_a_column_named_with_its_unit(store, tmp_path):
    original = store
    con = duckdb.connect(str(store / DB_FILE), read_only=True)
    try:
        view = con.execute(
            'SELECT DISTINCT "links.access.rate [bit/s]", "links.access.delay [s]" '
            'FROM run_parameters ORDER BY "links.access.rate [bit/s]"'
        ).fetchall()
        rows = con.execute("SELECT count(*) FROM run_parameters").fetchone()[0]
        runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        con.close()
    assert view == [(5e6, 0.005), (1e7, 0.005), (2e7, 0.005)]
    assert rows == runs
    # A later sweep into the store (a copy: the fixture is shared) with a parameter the view
    # lacks gets its column.
    import shutil

    from celltcp.sweep import execute_sweep

    store = tmp_path / "copy"
    shutil.copytree(original, store)

    (tmp_path / "chain.toml").write_text(CHAIN_TOML, encoding="utf-8")
    more = tmp_path / "more.toml"
    more.write_text(
        'scenario = "chain.toml"\nruns = 1\n[grid]\n"links.core.delay" = ["1ms", "3ms"]\n',
        encoding="utf-8",
    )
    execute_sweep(more, store=store, workers=1)
    con = duckdb.connect(str(store / DB_FILE), read_only=True)
    try:
        delays = con.execute(
            'SELECT "links.core.delay [s]" FROM run_parameters '
            'WHERE "links.core.delay [s]" IS NOT NULL ORDER BY 1'
        ).fetchall()
    finally:
        con.close()
    assert delays == [(0.001,), (0.003,)]


def sweep_frame(store: Path) -> pd.DataFrame:
    from celltcp.sweep.runner import collect_store

    with Store.open(store, read_only=True) as s:
        return collect_store(s)


def test_a_store_written_before_the_table_gets_it_when_opened_for_writing(store, tmp_path):
    import shutil

    old = tmp_path / "old"
    shutil.copytree(store, old)
    con = duckdb.connect(str(old / DB_FILE))
    con.execute("DROP TABLE parameter_values")
    con.close()
    # Read-only: computed from the stored parameters.
    with Store.open(old, read_only=True) as s:
        assert len(s.tables()["parameter_values"]) == 12
    with Store.open(old) as s:
        assert s._has_parameter_values()
        assert len(s.tables()["parameter_values"]) == 12


def test_export_writes_parquet_that_other_tools_read(store, tmp_path, cli):
    out = tmp_path / "exported"
    res = cli("export", store, "--parquet", out)
    assert res.returncode == 0, res.stderr
    assert re.search(r"6 runs, 3 scenarios, 12 parameter values and \d+ series files", res.stderr)
    runs = pd.read_parquet(out / "runs.parquet")
    assert len(runs) == 6
    assert list(runs.columns[:8]) == [
        "key",
        "run",
        "point",
        "seed",
        "status",
        "error",
        "events",
        "wall_s",
    ]
    assert runs.columns[-1] == "summary"
    assert sorted(set(runs["links.access.rate [bit/s]"])) == [5e6, 1e7, 2e7]
    assert (runs["status"] == "ok").all()
    summary = json.loads(runs["summary"].iloc[0])
    assert summary["flows"]["video"]["goodput_bps"] == runs["flows.video.goodput_bps"].iloc[0]
    scenarios = pd.read_parquet(out / "scenarios.parquet")
    assert len(scenarios) == 3 and set(scenarios["key"]) == set(runs["key"])
    values = pd.read_parquet(out / "parameter_values.parquet")
    assert len(values) == 12 and set(values["unit"]) == {"bit/s", "s"}
    # DuckDB reads the export directly too.
    query = f"SELECT count(*) FROM '{out / 'runs.parquet'}'"
    n = duckdb.connect().execute(query).fetchall()[0][0]
    assert n == 6


def test_export_of_a_missing_store_is_a_user_error(tmp_path, cli):
    res = cli("export", tmp_path / "nothing", "--parquet", tmp_path / "out")
    assert res.returncode == 2 and len(res.stderr_lines) == 1
    assert "no sweep store here" in res.stderr
    assert not (tmp_path / "out").exists()


def test_statistics_are_printed_with_units(store, cli):
    res = cli("stats", store)
    assert res.returncode == 0, res.stderr
    line = next(
        ln for ln in res.stdout.splitlines() if "flows.video.goodput_bps" in ln and "5Mbps" in ln
    )
    assert re.search(r"\d\.\d{3} Mbps", line), line
    assert "e+0" not in res.stdout
    delay = next(ln for ln in res.stdout.splitlines() if "flows.video.delay_mean_s" in ln)
    assert re.search(r"\d+\.\d\d ms", delay), delay


@pytest.mark.parametrize(
    ("name", "value", "shown"),
    [
        ("flows.a.goodput_bps", 4756780.0, "4.757 Mbps"),
        ("flows.a.delay_mean_s", 0.0213, "21.30 ms"),
        ("simulated_time_s", 12.5, "12.500 s"),
        ("queue_max_bytes", 125000.0, "125.000 kB"),
        ("tcp.retransmissions", 17, "17"),
        ("ratio", 0.123456789, "0.123457"),
        ("flows.a.goodput_bps", float("nan"), "-"),
    ],
)
def test_format_metric(name, value, shown):
    assert format_metric(name, value) == shown


def test_a_result_renders_as_html_tables():
    result = celltcp.run(CHAIN_TOML)
    html = result._repr_html_()
    assert html.startswith("<div>") and html.count("<table>") == 2
    assert "video" in html and "Mbps" in html and "access" in html
    assert "<b>RunResult</b>" in html and "events" in html


def test_export_never_replaces_a_users_directory(store, tmp_path, cli):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me", encoding="utf-8")
    res = cli("export", store, "--parquet", mine)
    assert res.returncode == 2 and len(res.stderr_lines) == 1, res.stderr
    assert "--parquet" in res.stderr and "mine" in res.stderr
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    # Its own output is replaced when exported again.
    out = tmp_path / "again"
    assert cli("export", store, "--parquet", out).returncode == 0
    assert cli("export", store, "--parquet", out).returncode == 0
    assert (out / "runs.parquet").is_file()
