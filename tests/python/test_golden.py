"""The outputs of the examples and of the quick reproductions are those pinned in
tests/python/data/golden.json (tests/python/golden.py says how to renew a pin, with a note)."""

from __future__ import annotations

import pytest

from golden import REPRODUCTIONS, differences, example_hashes, examples, load, reproduction_hashes

PINS = load()


def test_every_example_is_pinned():
    assert sorted(PINS["examples"]) == examples(), (
        "renew the pins: python tests/python/golden.py --update --only examples --note ..."
    )


@pytest.mark.parametrize("name", examples())
def test_an_example_writes_its_pinned_outputs(name):
    assert differences(PINS["examples"].get(name, {}), example_hashes(name)) == []


@pytest.mark.slow
@pytest.mark.parametrize("seed", REPRODUCTIONS)
def test_a_quick_reproduction_stores_its_pinned_results(seed):
    assert differences(PINS["reproductions"].get(seed, {}), reproduction_hashes(seed)) == []


def test_differences_names_what_changed():
    assert differences({"a": "1", "b": "2"}, {"a": "1", "b": "3", "c": "4"}) == [
        "c: new output",
        "b: changed",
    ]
    assert differences({"a": "1"}, {}) == ["a: no longer written"]
    assert differences({"a": "1"}, {"a": "1"}) == []
