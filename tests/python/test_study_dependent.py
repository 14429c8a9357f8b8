"""Sweeps whose points are computed from earlier sweeps' results (celltcp.study.After,
docs/studies.md): the engine runs the probe first and hands its results to the later sweep's
points; the report, the axes and the run counts are those of the points computed; a sweep that
needs one declared after it, a computed point setting an undeclared key and an override of a
computed key are refused."""

from __future__ import annotations

import json

import pytest

from celltcp.reproduce.registry import Options
from celltcp.study import (
    After,
    Claim,
    Metric,
    Replications,
    Results,
    Runs,
    Scenario,
    Study,
    Sweep,
    Welch,
    run,
    write,
)

RATE = "links.access.rate"
GOODPUT = Metric("goodput", summary="flows.bulk.goodput_bps", unit="Mb/s", scale=1e-6)
ONE = Replications(1, 1, "deterministic: the wired chain draws no random numbers")
#: The probe's access rates (Mb/s); the later sweep runs at half of the goodput each measured.
PROBE_MBPS = (20, 10)


def _probe() -> Sweep:
    return Sweep(
        "probe",
        Scenario("wired-chain-tcp", {"simulation.duration": "2s"}),
        {RATE: tuple(f"{r}Mbps" for r in PROBE_MBPS)},
        (GOODPUT,),
        ONE,
    )


def _halved(results: Results) -> list[dict[str, str]]:
    """Half the goodput each probe point measured, as an access rate in whole kb/s."""
    frame = results.frames["probe"]
    return [{RATE: f"{round(g / 2e3)}kbps"} for g in frame["goodput"]]


def _later(points: After) -> Sweep:
    return Sweep(
        "later",
        Scenario("wired-chain-tcp", {"simulation.duration": "2s"}),
        {},
        (GOODPUT,),
        ONE,
        points=points,
    )


def _study(*sweeps: Sweep) -> Study:
    claim = Claim(
        "faster",
        "the probe",
        "the probe's first point has more goodput than the later sweep's",
        Welch("goodput", Runs("probe", {RATE: "20Mbps"}), Runs("later"), ">"),
        registered=False,
    )
    return Study(
        "dependent", "Dependent sweeps", "Does a later sweep see the probe?", sweeps, (claim,)
    )


def test_a_later_sweep_runs_at_points_computed_from_the_probe():
    seen: list[list[str]] = []

    def halved(results: Results) -> list[dict[str, str]]:
        seen.append([s.name for s in results.study.sweeps])
        return _halved(results)

    study = _study(_probe(), _later(After(("probe",), halved, (RATE,))))
    results = run(study, Options(quick=True))
    # The points function saw the probe, and only the probe.
    assert seen == [["probe"]]
    probe, later = results.frames["probe"], results.frames["later"]
    expected = [f"{round(g / 2e3)}kbps" for g in probe["goodput"]]
    assert list(later[RATE]) == expected
    assert results.study.sweep("later").axes_of(True) == {RATE: expected}
    # The runs were made at the computed rates: each gets about half the probe's goodput.
    for g_probe, g_later in zip(probe["goodput"], later["goodput"], strict=True):
        assert 0.3 < g_later / g_probe < 0.6
    assert results.runs == {"probe": 2, "later": 2}


def test_the_report_names_the_points_computed(tmp_path):
    study = _study(_probe(), _later(After(("probe",), _halved, (RATE,))))
    out = tmp_path / "report"
    write(study, out, quick=True)
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "sweep 'later'" in report and "kbps" in report
    claims = json.loads((out / "claims.json").read_text(encoding="utf-8"))
    assert claims["runs"] == {"probe": 2, "later": 2}


def test_a_sweep_may_only_need_sweeps_declared_before_it():
    later = _later(After(("probe",), _halved, (RATE,)))
    with pytest.raises(ValueError, match="'later' needs 'probe'"):
        _study(later, _probe())
    with pytest.raises(ValueError, match="needs 'nowhere'"):
        _study(_probe(), _later(After(("nowhere",), _halved, (RATE,))))
    with pytest.raises(ValueError, match="needs="):
        After((), _halved, (RATE,))
    with pytest.raises(ValueError, match="keys="):
        After(("probe",), _halved, ())


def test_a_computed_point_may_set_only_its_declared_keys():
    def loud(results: Results) -> list[dict[str, str]]:
        return [{**p, "simulation.duration": "1s"} for p in _halved(results)]

    study = _study(_probe(), _later(After(("probe",), loud, (RATE,))))
    with pytest.raises(ValueError, match="sets simulation.duration, not among"):
        run(study, Options(quick=True))


def test_an_override_of_a_computed_key_is_refused_before_anything_runs():
    study = _study(_probe(), _later(After(("probe",), _halved, (RATE, "flows.bulk.cc"))))
    with pytest.raises(ValueError, match="flows.bulk.cc: the sweep 'later' sets it itself"):
        study.with_overrides({"flows.bulk.cc": "cubic"})
    # A key neither sweep sets is an ordinary override.
    assert (
        study.with_overrides({"links.wire.delay": "5ms"})
        .sweeps[1]
        .scenario.overrides["links.wire.delay"]
        == "5ms"
    )


def test_the_other_modes_points_may_be_explicit():
    later = Sweep(
        "later",
        Scenario("wired-chain-tcp", {"simulation.duration": "2s"}),
        {},
        (GOODPUT,),
        ONE,
        points=After(("probe",), _halved, (RATE,)),
        quick_points=({RATE: "3Mbps"},),
    )
    results = run(_study(_probe(), later), Options(quick=True))
    assert list(results.frames["later"][RATE]) == ["3Mbps"]


def _stored_runs(store) -> list[tuple[str, int, float]]:
    """(key, run, wall time) of every stored run: a run made again has another wall time."""
    import duckdb

    with duckdb.connect(str(store / "results.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT key, run, wall_s FROM runs ORDER BY key, run").fetchall()
    return [(str(k), int(r), float(w)) for k, r, w in rows]


def test_a_second_invocation_computes_the_same_points_from_the_stored_probe(tmp_path):
    study = _study(_probe(), _later(After(("probe",), _halved, (RATE,))))
    store = tmp_path / "runs"
    first = run(study, Options(quick=True, store=store))
    stored = _stored_runs(store)
    assert len(stored) == 4
    second = run(study, Options(quick=True, store=store))
    # The same points, hence the same store keys: nothing was run again.
    assert _stored_runs(store) == stored
    for name in ("probe", "later"):
        assert list(second.frames[name]["key"]) == list(first.frames[name]["key"])
        assert list(second.frames[name]["goodput"]) == list(first.frames[name]["goodput"])
