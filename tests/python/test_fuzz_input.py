"""The bounded run of the input fuzzer (tests/python/fuzz_input.py; docs/reliability.md,
"Hostile input"): cases from seed 0 on for 40 s, each with the invariant exit 0, or exit 2 with
one bounded line naming a key or file; never a traceback, panic, hang or leftover directory."""

from __future__ import annotations

from fuzz_input import fuzz


def test_the_input_boundary_holds_under_mutation() -> None:
    report = fuzz(seconds=40.0, first_seed=0)
    assert report.cases >= 20, f"only {report.cases} cases in 40 s"
    # Both outcomes occur: the mutations reach past the parser and also break things.
    assert report.exits.get(0, 0) > 0 and report.exits.get(2, 0) > 0, report.exits
    failures = "\n".join(
        f"seed {f.case.seed} ({f.case.kind}: {f.case.detail}): {f.what}" for f in report.failures
    )
    assert not report.failures, f"{len(report.failures)} of {report.cases} cases:\n{failures}"
