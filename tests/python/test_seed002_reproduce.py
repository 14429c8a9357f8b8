"""`celltcp reproduce 002 --quick` end to end: the registry entry, the report and its verdicts."""

from __future__ import annotations

import re

from celltcp.cli import main
from celltcp.reproduce import find


def test_name_and_alias_find_the_seed_002_reproduction(capsys):
    assert find("002") is find("002-handover-buffer")
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("002-handover-buffer (also 002): ") for line in out.splitlines())


def test_quick_reproduction_writes_the_report(tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["reproduce", "002", "--quick", "--out", str(out), "--workers", "2"]) == 0
    assert (tmp_path / "rep.runs" / "results.duckdb").is_file()
    md = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    assert "examples/002/handover-link.toml" in md and "(quick mode)" in md
    # One verdict per claim of the seed, a stated test on the phases.
    rows = [line for line in md.splitlines() if re.match(r"\| (§|Fig)", line)]
    assert len(rows) == 6
    for r in rows:
        assert re.search(r"\| \*\*(reproduced|not significant|contradicted)\*\*", r), r
        assert re.search(r"\| (magnitude (within ×1\.5|off [^|]+|n/a)|direction only) \|", r)
    # The worst case at 100 Mb/s runs in full mode only: not significant, with the reason.
    assert "**not significant** (not run: full mode only)" in md
    # Buffer transfer with the model's extra buffer: nothing lost, TCP undisturbed, and the size
    # is tight (Fisher's exact test against the buffer two packets smaller).
    sized = next(r for r in rows if r.startswith("| §2.2, §3 |"))
    assert "| **reproduced** |" in sized and "the size is tight" in sized
    assert "Fisher's exact test" in sized
    assert "0 drops in all" in md
    # The seed's lost formulas are marked as reconstructions.
    assert md.count("reconstructed formula") >= 3 and "model s (reconstructed)" in md
    # The recovery grid with its ratios, skipping the cell whose BDP is below 4 segments.
    assert "| Mb/s | RTT ms | case | ACKs |" in md and "1 Mb/s × 10 ms" in md
    # The figures beside report.md and embedded in the page.
    for name in ("fig-3-4-recovery-time.png", "fig-6-overrun.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"({name})" in md
    assert page.count('src="data:image/png;base64,') == 2
