"""`celltcp reproduce`: the list, a quick reproduction of seed 003, and bad names."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pandas as pd
import pytest

from celltcp.cli import main
from celltcp.reproduce import ReproductionError, available, default_store, find
from celltcp.reproduce.document import Document, Table, fmt_ci, mean_ci
from celltcp.reproduce.seed003 import (
    EXP_5_1,
    READINGS,
    STUDY,
    at,
    ber_for_byte_error_rate,
    cwnd_figures,
    jain_index,
    lowest,
    ordering,
    packet_error_rate,
)
from celltcp.reproduce.verdict import Verdict
from celltcp.study import Results


def test_list_names_every_reproduction_on_one_line_each(capsys):
    assert main(["reproduce", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(available()) >= 1
    assert lines[0].startswith("003-petra-lte (also 003): ")


def test_alias_and_name_find_the_same_reproduction():
    assert find("003") is find("003-petra-lte")
    with pytest.raises(ReproductionError):
        find("999")


def test_unknown_name_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "sub" / "rep"
    assert main(["reproduce", "no-such-study", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("celltcp: error: no reproduction named")
    assert list(tmp_path.iterdir()) == []


def test_missing_name_is_a_user_error(capsys):
    assert main(["reproduce"]) == 2
    assert "--list" in capsys.readouterr().err


def test_quick_reproduction_writes_the_report(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["reproduce", "003", "--quick", "--out", str(out), "--workers", "2"]) == 0
    md = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    # What was run, and the comparison table with a verdict per row.
    assert "celltcp/examples/003/exp5-1.toml" in md and "run numbers 0–4" in md
    assert "536-byte segments without timestamps" in md and "`westwood-original`" in md
    assert "| where | claim | seed | celltcp: mean [95 % CI] (n) | ours / seed | verdict |" in md
    rows = [line for line in md.splitlines() if re.match(r"\| (5\.[457]|Fig\. 5\.[89]) \|", line)]
    # 5.4: 4 throughput rows (faithful, 2 set-up ablations, Westwood+), delay ×2, loss;
    # 5.5: 5 rates, 3 delay/loss rows; Fig. 5.9; Fig. 5.8: 4; 5.7: 4.
    assert len(rows) == 7 + 8 + 1 + 4 + 4
    assert all(re.search(r"\*\*(reproduced|not significant|contradicted)\*\*", r) for r in rows)
    # "TCPW resets five times" is tested against the seed's 5 (within ×1.5), not against none;
    # Table 5.5's delays and losses are judged at every rate and controller.
    resets = next(r for r in rows if "TCPW resets its window" in r)
    assert "equivalence test (TOST) within ×1.5 of 5" in resets and "[3.33, 7.50]" in resets
    delay = next(r for r in rows if "delay: NewReno lowest at every rate" in r)
    assert re.search(r"\| \d\.\d\d–\d\.\d\d \|", delay)
    assert re.search(r"\| magnitude (off at \d+ of 15 points|within ×1\.5 at every point)", delay)
    # Seed numbers beside celltcp's mean [CI].
    assert "N 21.63 / T 81.23 / P 99.33" in md and " ± " in md and "[" in md
    # The two readings' loss ratios beside the seed's.
    assert "## Which reading of the packet size reproduces the seed's loss ratios" in md
    assert "| 5e-05 | 3.1 / 3.2 / 3 | 2.84 |" in md
    # Self-contained HTML: figures inline as PNG, nothing fetched from elsewhere.
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 3
    assert all(base64.b64decode(i).startswith(b"\x89PNG") for i in images)
    assert "<table>" in page and 'src="http' not in page
    # The store sits beside the output and is reused: a second run executes nothing new.
    store = default_store(out)
    assert store.is_dir()
    assert not any(p.name.startswith(".rep.partial") for p in tmp_path.iterdir())
    assert main(["reproduce", "003-petra-lte", "--quick", "--out", str(out)]) == 0
    assert (out / "report.md").read_text().split("## The seed")[1] == md.split("## The seed")[1]


def test_failed_reproduction_leaves_nothing(tmp_path, monkeypatch):
    from celltcp import reproduce as rep

    def broken(options):
        raise ReproductionError("experiment 5-1: 3 runs failed")

    entry = rep.Reproduction("003-petra-lte", ("003",), "x", broken)
    monkeypatch.setattr(rep, "_REPRODUCTIONS", (entry,))
    with pytest.raises(ReproductionError):
        rep.reproduce("003", tmp_path / "rep", quick=True)
    assert not (tmp_path / "rep").exists()


def _results_5_1(thr: dict[str, list[float]]) -> Results:
    """Experiment 5-1's rows at 5e-5 on the faithful set-up, one per given throughput (Mb/s)."""
    rows = []
    for cc, values in thr.items():
        where = at(5e-5, cc).where
        for run, v in enumerate(values):
            rows.append({**where, "point": cc, "run": run, "thr": v})
    return Results(STUDY, True, {EXP_5_1: pd.DataFrame(rows)})


def test_verdicts_follow_the_numbers():
    order = ("petra", "westwood-original", "newreno")
    apart = {
        "petra": [10.0, 10.5, 9.5, 10.2, 9.8],
        "westwood-original": [5.0, 5.5, 4.5, 5.2, 4.8],
        "newreno": [1.0, 1.2, 0.8, 1.1, 0.9],
    }

    def decision(thr, test):
        return test.evaluate(_results_5_1(thr)).decision

    def runs(cc):
        return at(5e-5, cc)

    assert decision(apart, ordering("thr", runs, order)).verdict is Verdict.REPRODUCED
    close = {**apart, "westwood-original": [9.9, 10.6, 9.4, 10.1, 9.7]}
    found = decision(close, ordering("thr", runs, order))
    assert found.verdict is Verdict.NOT_SIGNIFICANT
    assert "P > T not significant" in found.text()
    swapped = {**apart, "newreno": [6.0, 6.2, 5.8, 6.1, 5.9]}
    found = decision(swapped, ordering("thr", runs, order))
    assert found.verdict is Verdict.CONTRADICTED and "T > N contradicted" in found.text()
    newreno_lowest = lowest("thr", runs, "newreno", ("petra", "westwood-original"))
    assert decision(apart, newreno_lowest).verdict is Verdict.REPRODUCED
    assert decision(apart, lowest("thr", runs, "petra", ("newreno",))).verdict is (
        Verdict.CONTRADICTED
    )
    # One run each: never reproduced.
    single = {k: v[:1] for k, v in apart.items()}
    assert decision(single, ordering("thr", runs, order)).verdict is Verdict.NOT_SIGNIFICANT


def test_cwnd_resets_and_mean_window():
    # 536-byte segments: 10 → 20 segments at 1 s, a timeout to 1 at 2 s, 2 at 3 s, 1 at 4 s.
    t = [0.0, 1.0, 2.0, 3.0, 4.0]
    w = [5360.0, 10720.0, 536.0, 1072.0, 536.0]
    resets, mean = cwnd_figures(t, w, 536, 5.0)
    assert resets == 2
    assert mean == pytest.approx((10 + 20 + 1 + 2 + 1) / 5)
    assert cwnd_figures([], [], 536, 5.0)[0] == 0


def test_numbers():
    assert jain_index([1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert jain_index([1.0, 0.0]) == pytest.approx(0.5)
    # 5e-5 per byte → 6.25014e-6 per bit (docs/seed-003.md); the packet error rate is equal.
    ber = ber_for_byte_error_rate(5e-5)
    assert ber == pytest.approx(6.25014e-6, rel=1e-5)
    assert 1 - (1 - ber) ** (8 * 1500) == pytest.approx(1 - (1 - 5e-5) ** 1500)
    # The two readings of the packet size: 576-byte packets lose 2.84 %, 1500-byte ones 7.23 %.
    assert READINGS["536"].packet_bytes == 576 and READINGS["1448"].packet_bytes == 1500
    assert packet_error_rate(5e-5, 576) == pytest.approx(0.02839, abs=1e-5)
    assert packet_error_rate(5e-5, 1500) == pytest.approx(0.07226, abs=1e-5)
    mean, half = mean_ci([1.0, 2.0, 3.0])
    assert mean == 2.0 and half == pytest.approx(4.303 * 1.0 / 3**0.5, rel=1e-3)
    assert fmt_ci(mean, half, 2) == "2.00 ± 2.48"


def test_markdown_tables_escape_pipes(tmp_path: Path):
    doc = Document("t", [Table(("a",), (("x | y",),))])
    assert "x \\| y" in doc.markdown()
    assert "x | y" in doc.html()
