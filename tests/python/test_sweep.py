"""Sweeps: expansion of the parameter space, validation before anything runs, the results store
(resume, failed runs, changed metrics), and independence from the number of workers."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import celltcp
from celltcp import ScenarioError
from celltcp.sweep import Store, expand_points, load_spec, resolve_points
from celltcp.sweep.spec import toml_value
from conftest import CHAIN_TOML

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def _spec(tmp_path: Path, text: str, name: str = "sweep.toml") -> Path:
    """Writes chain.toml (the shared test scenario) and a sweep file beside it."""
    (tmp_path / "chain.toml").write_text(CHAIN_TOML, encoding="utf-8")
    path = tmp_path / name
    path.write_text('scenario = "chain.toml"\n' + text, encoding="utf-8")
    return path


GRID = """\
runs = 2
metrics = ["flows.video.goodput_bps", "flows.video.loss_ratio", "links.*.a_to_b.packets_sent"]

[grid]
"links.access.rate" = ["4Mbps", "8Mbps"]
"flows.video.packet_size" = ["500B", "1200B"]
"""


# -- expansion -------------------------------------------------------------------------------------


def test_grid_is_the_cartesian_product_first_key_outermost(tmp_path):
    spec = load_spec(_spec(tmp_path, GRID))
    points = expand_points(spec)
    assert [p.parameters for p in points] == [
        {"links.access.rate": "4Mbps", "flows.video.packet_size": "500B"},
        {"links.access.rate": "4Mbps", "flows.video.packet_size": "1200B"},
        {"links.access.rate": "8Mbps", "flows.video.packet_size": "500B"},
        {"links.access.rate": "8Mbps", "flows.video.packet_size": "1200B"},
    ]
    assert [p.index for p in points] == [0, 1, 2, 3]
    assert spec.runs == (0, 1)


def test_zip_advances_lists_together_and_crosses_the_grid(tmp_path):
    spec = load_spec(
        _spec(
            tmp_path,
            """
runs = [3, 7]
[grid]
"links.access.rate" = ["4Mbps", "8Mbps"]
[zip]
"links.core.delay" = ["1ms", "20ms", "40ms"]
"flows.video.rate" = ["1Mbps", "2Mbps", "3Mbps"]
""",
        )
    )
    points = [p.parameters for p in expand_points(spec)]
    assert len(points) == 6
    assert points[0] == {
        "links.access.rate": "4Mbps",
        "links.core.delay": "1ms",
        "flows.video.rate": "1Mbps",
    }
    assert points[4] == {
        "links.access.rate": "8Mbps",
        "links.core.delay": "20ms",
        "flows.video.rate": "2Mbps",
    }
    assert spec.runs == (3, 7)


def test_several_zip_groups_are_crossed(tmp_path):
    spec = load_spec(
        _spec(
            tmp_path,
            """
[[zip]]
"links.core.delay" = ["1ms", "2ms"]
"flows.video.rate" = ["1Mbps", "2Mbps"]
[[zip]]
"links.access.rate" = ["4Mbps", "8Mbps", "9Mbps"]
""",
        )
    )
    assert len(expand_points(spec)) == 6


def test_points_are_explicit_and_may_set_different_keys(tmp_path):
    spec = load_spec(
        _spec(
            tmp_path,
            """
[[points]]
"links.access.rate" = "4Mbps"
[[points]]
links.access.queue = { kind = "codel" }
flows.video.arrival = "cbr"
""",
        )
    )
    points = [p.parameters for p in expand_points(spec)]
    # Unquoted dotted keys and inline tables are followed down to the values.
    assert points == [
        {"links.access.rate": "4Mbps"},
        {"links.access.queue.kind": "codel", "flows.video.arrival": "cbr"},
    ]
    assert spec.parameter_names == [
        "links.access.rate",
        "links.access.queue.kind",
        "flows.video.arrival",
    ]


def test_unquoted_dotted_keys_in_a_grid_mean_the_quoted_ones(tmp_path):
    quoted = load_spec(_spec(tmp_path, '[grid]\n"links.access.rate" = ["4Mbps"]\n', "a.toml"))
    bare = load_spec(_spec(tmp_path, '[grid]\nlinks.access.rate = ["4Mbps"]\n', "b.toml"))
    assert quoted.grid == bare.grid == {"links.access.rate": ["4Mbps"]}


def test_a_list_of_tables_sweeps_whole_tables(tmp_path):
    spec = load_spec(
        _spec(
            tmp_path,
            """
[grid]
"links.access.queue" = [{ kind = "droptail", limit = "20p" }, { kind = "codel" }]
""",
        )
    )
    resolved = resolve_points(spec)
    assert [rp.scenario["links"]["access"]["queue"]["kind"] for rp in resolved] == [
        "droptail",
        "codel",
    ]
    assert resolved[0].key != resolved[1].key


def test_no_parameters_is_one_point_with_replications(tmp_path):
    spec = load_spec(_spec(tmp_path, "runs = 3\n"))
    assert [p.parameters for p in expand_points(spec)] == [{}]


def test_toml_values_read_back_as_written():
    values = [
        1,
        -2.5,
        1e-05,
        True,
        "10Mbps",
        'a "quoted" \\ \n',
        ["cwnd", "srtt"],
        {"kind": "codel", "odd key": 1, "nested": {"x": [1, 2]}},
        {},
    ]
    for v in values:
        assert tomllib.loads(f"v = {toml_value(v)}")["v"] == v


def test_seed_is_applied_to_every_point_and_changes_the_key(tmp_path):
    a = resolve_points(load_spec(_spec(tmp_path, "seed = 1\n", "a.toml")))[0]
    b = resolve_points(load_spec(_spec(tmp_path, "seed = 2\n", "b.toml")))[0]
    assert a.scenario["simulation"]["seed"] == 1 and b.scenario["simulation"]["seed"] == 2
    assert a.key != b.key


# -- bad input: a clear error, nothing written -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "needle"),
    [
        ('[grid]\n"links.access.rat" = ["4Mbps"]\n', "links.access.rat", "point 0"),
        (
            '[grid]\n"links.access.rate" = ["4Mbps", "8 Mbit"]\n',
            "links.access.rate",
            'links.access.rate = "8 Mbit"',
        ),
        ('[grid]\n"links.access.delay" = [20]\n', "links.access.delay", "no unit"),
        ('[grid]\n"links.access.rate" = []\n', "grid.links.access.rate", "empty list"),
        ("[grid]\n", "grid", "empty grid"),
        ('[grid]\n"links.access.rate" = "4Mbps"\n', "grid.links.access.rate", "list of values"),
        ("[zip]\na = [1, 2]\nb = [1]\n", "zip", "equal lengths"),
        ("points = []\n", "points", "non-empty"),
        (
            '[grid]\n"links.access" = [{}]\n"links.access.rate" = ["1Mbps"]\n',
            "links.access.rate",
            "inside the swept key",
        ),
        ("runs = 0\n", "runs", "at least 1"),
        ("runs = [1, 1]\n", "runs[1]", "twice"),
        ("seed = -1\n", "seed", ">= 0"),
        ("colour = 1\n", "colour", "unknown key"),
        ('metrics = ["flows..x"]\n', "metrics[0]", "dotted path"),
        ('metrics = ["flows.vidoe.goodput_bps"]\n', "metrics[0]", "no flow named 'vidoe'"),
        ('series = ["a/b"]\n', "series[0]", "not a series name"),
    ],
)
def test_bad_sweep_input_names_the_key_and_writes_nothing(tmp_path, text, key, needle):
    path = _spec(tmp_path, text)
    store = tmp_path / "store"
    with pytest.raises(ScenarioError) as info:
        celltcp.sweep(path, store=store, workers=1)
    assert info.value.key == key, str(info.value)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)
    assert not store.exists()


def test_a_misspelt_summary_field_stops_the_sweep_before_anything_is_stored(tmp_path):
    path = _spec(tmp_path, 'runs = 3\nmetrics = ["flows.video.goodput_bp"]\n')
    store = tmp_path / "store"
    with pytest.raises(ScenarioError) as info:
        celltcp.sweep(path, store=store, workers=1)
    assert info.value.key == "metrics[0]"
    assert "flows.video has no 'goodput_bp'" in str(info.value)
    assert "goodput_bps" in str(info.value)  # the existing keys are listed
    assert not (store / "results.duckdb").exists()


def test_a_missing_base_scenario_is_an_error(tmp_path):
    path = tmp_path / "sweep.toml"
    path.write_text('scenario = "nowhere.toml"\n')
    with pytest.raises(ScenarioError) as info:
        celltcp.sweep(path)
    assert info.value.key == "scenario" and "cannot read" in str(info.value)


def test_series_need_a_store_directory(tmp_path):
    with pytest.raises(ScenarioError) as info:
        celltcp.sweep(_spec(tmp_path, 'series = ["queue"]\n'))
    assert info.value.key == "series"


def test_a_store_of_another_format_is_refused_untouched(tmp_path):
    path = _spec(tmp_path, GRID)
    store = tmp_path / "store"
    celltcp.sweep(path, store=store, workers=1)
    with duckdb.connect(str(store / "results.duckdb")) as con:
        con.execute("UPDATE meta SET value = '0' WHERE name = 'store_format'")
        before = con.execute("SELECT count(*) FROM runs").fetchone()
    with pytest.raises(ScenarioError) as info:
        celltcp.sweep(_spec(tmp_path, "runs = 9\n", "other.toml"), store=store, workers=1)
    assert info.value.key == "store"
    assert "store format 0" in str(info.value) and "reads format 1" in str(info.value)
    with duckdb.connect(str(store / "results.duckdb")) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == before


def test_a_foreign_database_is_not_taken_for_a_store(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    with duckdb.connect(str(store / "results.duckdb")) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(ScenarioError, match="not a celltcp sweep store"):
        celltcp.sweep(_spec(tmp_path, ""), store=store, workers=1)


# -- results ---------------------------------------------------------------------------------------


def test_results_are_what_celltcp_run_gives_for_each_point(tmp_path):
    frame = celltcp.sweep(_spec(tmp_path, GRID + "\n"), workers=1)
    assert list(frame.columns) == [
        "point",
        "links.access.rate",
        "links.access.rate [bit/s]",
        "flows.video.packet_size",
        "flows.video.packet_size [B]",
        "run",
        "status",
        "flows.video.goodput_bps",
        "flows.video.loss_ratio",
        "links.access.a_to_b.packets_sent",
        "links.core.a_to_b.packets_sent",
        "error",
        "key",
    ]
    assert frame.attrs["parameters"] == ["links.access.rate", "flows.video.packet_size"]
    assert frame.attrs["parameter_values"] == {
        "links.access.rate": "links.access.rate [bit/s]",
        "flows.video.packet_size": "flows.video.packet_size [B]",
    }
    assert len(frame) == 8 and (frame["status"] == "ok").all()
    row = frame.iloc[5]  # point 2, run 1
    assert (row["point"], row["run"]) == (2, 1)
    direct = celltcp.run(
        CHAIN_TOML, run=1, set={"links.access.rate": "8Mbps", "flows.video.packet_size": "500B"}
    )
    assert row["flows.video.goodput_bps"] == direct.summary["flows"]["video"]["goodput_bps"]
    assert (
        row["links.core.a_to_b.packets_sent"]
        == (direct.summary["links"]["core"]["a_to_b"]["packets_sent"])
    )
    # Replications differ (Poisson arrivals draw from the run's streams).
    assert frame.iloc[4]["flows.video.goodput_bps"] != row["flows.video.goodput_bps"]


def test_identical_results_with_one_and_two_workers(tmp_path):
    path = _spec(tmp_path, 'series = ["queue", "flow_rate"]\n' + GRID)
    one = celltcp.sweep(path, store=tmp_path / "one", workers=1)
    two = celltcp.sweep(path, store=tmp_path / "two", workers=2)
    assert one.equals(two)
    files_one = sorted(
        p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*.parquet")
    )
    files_two = sorted(
        p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*.parquet")
    )
    assert files_one == files_two and len(files_one) == 16
    for rel in files_one:
        assert (tmp_path / "one" / rel).read_bytes() == (tmp_path / "two" / rel).read_bytes()
    with (
        Store.open(tmp_path / "one", read_only=True) as a,
        Store.open(tmp_path / "two", read_only=True) as b,
    ):
        key, run = one.iloc[3]["key"], int(one.iloc[3]["run"])
        assert a.summaries([(key, run)]) == b.summaries([(key, run)])
        queue = a.read_series(key, run, "queue")
        assert list(queue.columns)[:2] == ["time_ns", "time_s"] and len(queue) > 0


def test_a_second_invocation_runs_nothing_and_a_larger_one_only_the_new_runs(tmp_path):
    from celltcp.sweep import execute_sweep

    path = _spec(tmp_path, GRID)
    store = tmp_path / "store"
    first, report = execute_sweep(path, store=store, workers=2)
    assert (report.executed, report.stored_before) == (8, 0)
    again, report = execute_sweep(path, store=store, workers=2)
    assert (report.executed, report.stored_before) == (0, 8)
    assert again.equals(first)
    more = _spec(tmp_path, GRID.replace("runs = 2", "runs = 3"))
    frame, report = execute_sweep(more, store=store, workers=2)
    assert (report.executed, report.stored_before) == (4, 8)
    assert frame[frame["run"] < 2].reset_index(drop=True).equals(first)
    with duckdb.connect(str(store / "results.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*), count(DISTINCT (key, run)) FROM runs").fetchone() == (
            12,
            12,
        )


def test_a_failing_run_is_recorded_and_does_not_stop_the_sweep(tmp_path):
    from celltcp.sweep import execute_sweep

    # A capture asks for an output directory that sweeps do not give: the scenario validates,
    # and the run itself fails.
    path = _spec(tmp_path, 'runs = 2\n[grid]\n"capture.links" = [[], ["access"]]\n')
    store = tmp_path / "store"
    frame, report = execute_sweep(path, store=store, workers=2)
    assert (report.executed, report.failed) == (4, 2)
    assert list(frame["status"]) == ["ok", "ok", "error", "error"]
    assert pd.isna(frame.iloc[0]["error"])
    assert frame.iloc[2]["error"] == "capture.links: captures need an output directory"
    assert math.isnan(frame.iloc[2]["flows.video.goodput_bps"])
    assert frame.iloc[2]["capture.links"] == '["access"]'
    _, report = execute_sweep(path, store=store, workers=2)
    assert report.executed == 0  # a failure is a result, kept like any other
    _, report = execute_sweep(path, store=store, workers=2, retry_failed=True)
    assert (report.executed, report.failed) == (2, 2)
    with duckdb.connect(str(store / "results.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT status, count(*) FROM runs GROUP BY status ORDER BY status")
        assert rows.fetchall() == [("error", 2), ("ok", 2)]


def test_runs_another_build_made_are_run_again_and_replaced(tmp_path):
    from celltcp import _core
    from celltcp.sweep import execute_sweep

    path = _spec(tmp_path, GRID)
    store = tmp_path / "store"
    first, _ = execute_sweep(path, store=store, workers=2)
    with duckdb.connect(str(store / "results.duckdb")) as con:
        assert con.execute("SELECT DISTINCT build FROM runs").fetchall() == [(_core.BUILD_ID,)]
        # Three runs as an earlier build left them, with a result this build would not give.
        con.execute(
            "UPDATE runs SET build = 'f00dfeedf00dfeed', metrics = '{}' WHERE run = 0 AND point < 3"
        )
    again, report = execute_sweep(path, store=store, workers=2)
    assert (report.executed, report.other_build, report.stored_before) == (3, 3, 5)
    assert again.equals(first)
    with duckdb.connect(str(store / "results.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*), count(DISTINCT build) FROM runs").fetchone() == (8, 1)


def test_a_store_from_before_builds_were_recorded_runs_everything_again(tmp_path):
    from celltcp.sweep import execute_sweep

    path = _spec(tmp_path, GRID)
    store = tmp_path / "store"
    first, _ = execute_sweep(path, store=store, workers=2)
    with duckdb.connect(str(store / "results.duckdb")) as con:
        con.execute("ALTER TABLE runs DROP COLUMN build")
    again, report = execute_sweep(path, store=store, workers=2)
    assert (report.executed, report.other_build) == (8, 8)
    assert again.equals(first)


def test_a_worker_of_another_build_stores_no_result(tmp_path):
    import dataclasses

    from celltcp.sweep import execute_sweep
    from celltcp.sweep.worker import execute

    class Elsewhere:
        """Runs the tasks here, answering as a worker with another celltcp installed would."""

        def run(self, tasks, on_outcome):
            for task in tasks:
                on_outcome(dataclasses.replace(execute(task), build="0123456789abcdef"))

        def close(self):
            pass

    path = _spec(tmp_path, "runs = 1\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("celltcp.sweep.runner.make_backend", lambda *a, **k: Elsewhere())
        frame, report = execute_sweep(path, store=tmp_path / "store")
    assert (report.executed, report.failed) == (1, 1)
    assert "build 0123456789abcdef" in frame.iloc[0]["error"]


def test_changed_metrics_are_read_from_the_stored_summaries_without_running(tmp_path):
    from celltcp.sweep import execute_sweep

    store = tmp_path / "store"
    execute_sweep(_spec(tmp_path, GRID), store=store, workers=1)
    wider = GRID.replace("metrics = [", 'metrics = ["flows.*.delay_p95_s", "stop_reason", ')
    frame, report = execute_sweep(_spec(tmp_path, wider, "wider.toml"), store=store, workers=1)
    assert report.executed == 0
    assert frame.attrs["metrics"][:2] == ["flows.video.delay_p95_s", "stop_reason"]
    assert frame["flows.video.delay_p95_s"].notna().all()
    assert set(frame["stop_reason"]) == {"duration"}
    with duckdb.connect(str(store / "results.duckdb"), read_only=True) as con:
        stored = json.loads(con.execute("SELECT metrics FROM runs LIMIT 1").fetchone()[0])
    assert "flows.video.delay_p95_s" in stored


def test_points_that_resolve_to_the_same_scenario_share_their_runs(tmp_path):
    from celltcp.sweep import execute_sweep

    # 10Mbps is the base scenario's own access rate: both points are the same scenario.
    path = _spec(
        tmp_path,
        '[[points]]\n"links.access.rate" = "10Mbps"\n'
        '[[points]]\n"links.access.a_to_b.rate" = "10Mbps"\n'
        '[[points]]\n"links.access.rate" = "10Mbps"\n',
    )
    frame, report = execute_sweep(path, workers=1)
    assert report.points == 3 and report.runs == 2 and report.executed == 2
    assert frame.iloc[0]["key"] == frame.iloc[2]["key"] != frame.iloc[1]["key"]
    assert frame.iloc[0]["flows.video.goodput_bps"] == frame.iloc[2]["flows.video.goodput_bps"]


def test_a_points_store_key_is_that_of_the_same_scenario_given_as_set_overrides(tmp_path):
    # A point's parameters are set on the base scenario by the core's setter; a store made when
    # they were passed as --set text keeps its keys only if both resolve to the same echo.
    from celltcp import _core
    from celltcp.sweep.spec import scenario_key

    spec = load_spec(
        _spec(
            tmp_path,
            "seed = 3\n[grid]\n"
            '"links.access.rate" = ["4Mbps"]\n'
            '"flows.video.packet_size" = ["1200B"]\n'
            '"trace.queues" = [["access"]]\n'
            '"links.access.queue" = [{ kind = "red", limit = "20p", min_th = "5p", max_th = "15p", max_p = 0.1 }]\n'
            '"links.access.a_to_b.loss" = [{ kind = "bernoulli", p = 1e-05 }]\n',
        )
    )
    (point,) = resolve_points(spec)
    as_text = [("simulation.seed", "3")] + [
        (k, toml_value(v)) for k, v in point.point.parameters.items()
    ]
    echo = json.loads(_core.validate(CHAIN_TOML, as_text)[0])
    assert point.scenario == echo
    assert point.key == scenario_key(echo)
    # What the workers run is that scenario.
    assert json.loads(_core.validate(point.toml)[0]) == echo


def test_a_metric_matching_nothing_is_reported(tmp_path):
    path = _spec(tmp_path, 'metrics = ["flows.*.sender.retransmissions", "events"]\n')
    with pytest.warns(
        UserWarning, match=r"metrics\[0\]: flows.\*.sender.retransmissions matched nothing"
    ):
        frame = celltcp.sweep(path, workers=1)
    assert frame.attrs["metrics"] == ["events"]
    assert frame["events"].iloc[0] > 0


def test_an_inline_scenario_and_a_dict_spec_give_the_file_s_results(tmp_path):
    from celltcp import Scenario

    # The same scenario as an inline table: [simulation] becomes [scenario.simulation], etc.
    tables = "\n".join(
        "[scenario." + line[1:] if line.startswith("[") else line
        for line in CHAIN_TOML.splitlines()
    )
    inline = tmp_path / "inline.toml"
    inline.write_text(GRID + "\n" + tables + "\n", encoding="utf-8")
    as_dict = {"scenario": Scenario.from_toml(CHAIN_TOML), **tomllib.loads(GRID)}
    from_file = celltcp.sweep(_spec(tmp_path, GRID), workers=1)
    assert celltcp.sweep(inline, workers=1).equals(from_file)
    assert celltcp.sweep(as_dict, workers=1).equals(from_file)


def test_leftovers_of_a_killed_writer_are_cleaned_and_replaced(tmp_path):
    path = _spec(tmp_path, 'series = ["queue"]\n' + GRID)
    store = tmp_path / "store"
    first = celltcp.sweep(path, store=store, workers=1)
    key = first.iloc[0]["key"]
    good = (store / "series" / key / "0" / "queue.parquet").read_bytes()
    # As if killed: once after renaming the series into place but before inserting the row, and
    # once while writing the temporary directory.
    with duckdb.connect(str(store / "results.duckdb")) as con:
        con.execute("DELETE FROM runs WHERE key = ? AND run = 0", [key])
    (store / "series" / key / "0" / "queue.parquet").write_bytes(b"torn")
    partial = store / "series" / key / ".1.partial-99999"
    partial.mkdir()
    (partial / "queue.parquet").write_bytes(b"torn")
    again = celltcp.sweep(path, store=store, workers=1)
    assert again.equals(first)
    assert (store / "series" / key / "0" / "queue.parquet").read_bytes() == good
    assert not partial.exists()
