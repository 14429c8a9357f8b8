"""Studies declared on celltcp.study (docs/studies.md): the lossy-link example runs in quick mode
through the engine, every claim gets its verdict from a test that can fail (shown on synthetic
runs where the claim is contradicted), the output is the reproductions' claims.json, and a
second invocation with the same store reuses every run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from celltcp.cli import main
from celltcp.reproduce.registry import ReproductionError
from celltcp.reproduce.verdict import Verdict
from celltcp.studies import lossy_link
from celltcp.study import (
    Claim,
    Metric,
    Options,
    Replications,
    Results,
    Runs,
    Scenario,
    Study,
    Sweep,
    Welch,
    evaluate,
    load,
    points_of,
    write,
)

STUDY = lossy_link.STUDY
#: Quick mode: 3 controllers × 3 loss rates × 3 replications.
QUICK_RUNS = 27


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("lossy") / "report"
    write(STUDY, out, quick=True, workers=2)
    return out, json.loads((out / "claims.json").read_text(encoding="utf-8"))


def test_the_example_runs_in_quick_mode_and_writes_the_reproductions_files(written):
    out, record = written
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == {
        "report.md",
        "report.html",
        "claims.json",
        "goodput-vs-loss.png",
    }
    assert record["study"] == "lossy-link" and record["mode"] == "quick"
    assert record["runs"] == {"lossy-link": QUICK_RUNS} and record["runs_total"] == QUICK_RUNS
    # The registered claims only; the secondary comparison has its own table.
    assert [c["claim"] for c in record["claims"]] == [c.claim for c in STUDY.claims if c.registered]
    assert "lossy-link: metrics per point" in record["tables"]


def test_every_claim_has_a_verdict_from_a_test_that_can_fail(written):
    _, record = written
    for c in record["claims"]:
        assert c["verdict"] in {v.value for v in Verdict}
        # A test with a p-value on at least two runs per set, and its power stated.
        assert c["p"] is not None and 0 <= c["p"] <= 1, c
        assert min(c["n"]) >= 2 and c["power"] is not None, c
    mathis = next(c for c in record["claims"] if c["seed"] is not None)
    assert mathis["magnitude"].startswith("magnitude")


def _synthetic(bbr: list[float], newreno: list[float]) -> Results:
    """Results of the lossy-link sweep at 1 % loss made up by hand, bbr and newreno only."""
    rows = [
        {"point": i, "run": r, lossy_link.CC: cc, lossy_link.LOSS: 0.01, "goodput": g}
        for i, (cc, values) in enumerate((("bbr", bbr), ("newreno", newreno)))
        for r, g in enumerate(values)
    ]
    return Results(STUDY, True, {"lossy-link": pd.DataFrame(rows)})


def test_a_claim_is_contradicted_when_the_runs_say_the_opposite():
    claim = next(c for c in STUDY.claims if c.key == "bbr_survives")
    against = _synthetic([2.0e6, 2.1e6, 1.9e6], [9.0e6, 9.2e6, 8.8e6])
    assert claim.test.evaluate(against).decision.verdict is Verdict.CONTRADICTED
    level = _synthetic([5.0e6, 6.0e6, 4.0e6], [5.1e6, 4.2e6, 5.9e6])
    assert claim.test.evaluate(level).decision.verdict is Verdict.NOT_SIGNIFICANT
    ahead = _synthetic([22e6, 22.5e6, 21.8e6], [2.6e6, 2.7e6, 2.5e6])
    assert claim.test.evaluate(ahead).decision.verdict is Verdict.REPRODUCED


def test_a_second_invocation_with_the_same_store_reuses_every_run(written, tmp_path):
    out, record = written
    again = tmp_path / "again"
    write(STUDY, again, quick=True, workers=1, store=Path(f"{out}.runs"))
    second = json.loads((again / "claims.json").read_text(encoding="utf-8"))
    assert second["wall"]["store_reused"] is True
    assert second["claims"] == record["claims"]


def test_points_follow_the_axes_with_the_modes_overrides():
    sweep = STUDY.sweep("lossy-link")
    quick = points_of(sweep, quick=True)
    assert len(quick) == len(lossy_link.CONTROLLERS) * len(lossy_link.LOSS_RATES)
    assert quick[0] == {
        "simulation.duration": "10s",
        lossy_link.CC: "newreno",
        lossy_link.LOSS: 0.001,
    }
    assert points_of(sweep, quick=False)[-1]["simulation.duration"] == "30s"


def test_an_override_may_not_set_a_key_the_study_varies():
    with pytest.raises(ValueError, match="flows.bulk.cc"):
        STUDY.with_overrides({lossy_link.CC: "vegas"})
    changed = STUDY.with_overrides({"links.access.rate": "10Mbps"})
    assert points_of(changed.sweeps[0], True)[0]["links.access.rate"] == "10Mbps"


def test_a_declaration_is_checked_when_it_is_made():
    with pytest.raises(ValueError, match="one of a summary path"):
        Metric("x")
    with pytest.raises(ValueError, match="at least one run"):
        Replications(0, 1, "")
    sweep = Sweep("s", Scenario("wired-chain-tcp"), {}, (), Replications(1, 1, "one"))
    claim = Claim("k", "w", "c", Welch("m", Runs("s"), Runs("s"), ">"))
    with pytest.raises(ValueError, match="share a key"):
        Study("n", "t", "q", (sweep,), (claim, claim))


def test_load_reads_a_module_or_a_file(tmp_path):
    assert load("celltcp.studies.lossy_link") is STUDY
    file = tmp_path / "mine.py"
    file.write_text(
        "from celltcp.studies.lossy_link import STUDY as BASE\nSTUDY = BASE.with_replications(2)\n",
        encoding="utf-8",
    )
    assert load(str(file)).sweeps[0].replications.quick == 2
    with pytest.raises(ReproductionError, match="declares no STUDY"):
        load("celltcp.studies")
    with pytest.raises(ReproductionError, match="no such study file"):
        load(str(tmp_path / "absent.py"))


def test_the_command_runs_a_study_file(tmp_path, capsys):
    file = tmp_path / "two.py"
    # Two replications of BBR against NewReno at one loss rate: 4 runs.
    file.write_text(
        "from celltcp.studies.lossy_link import STUDY as BASE, CC, LOSS\n"
        "from dataclasses import replace\n"
        "sweep = replace(BASE.sweeps[0], axes={CC: ('newreno', 'bbr'), LOSS: (0.01,)})\n"
        "STUDY = replace(BASE.with_replications(2), sweeps=(replace(sweep, replications="
        "BASE.with_replications(2).sweeps[0].replications),), claims=BASE.claims[:1], "
        "figures=())\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert main(["study", str(file), "--quick", "--out", str(out), "--workers", "1"]) == 0
    record = json.loads((out / "claims.json").read_text(encoding="utf-8"))
    assert record["runs_total"] == 4 and record["command"].startswith("celltcp study ")
    assert len(record["claims"]) == 1
    assert str(out / "report.md") in capsys.readouterr().out


def test_evaluate_decides_every_claim_by_its_key():
    results = _synthetic([22e6, 22.5e6, 21.8e6], [2.6e6, 2.7e6, 2.5e6])
    only = Study("one", "t", "q", STUDY.sweeps, STUDY.claims[:1])
    found = evaluate(only, results)
    assert list(found) == ["bbr_survives"]
    assert np.isclose(found["bbr_survives"].estimate.value, 22.1e6 / 2.6e6)


def test_options_are_the_reproductions():
    assert Options is not None and Options().quick is False
