"""The private module's contract with the Python layer (celltcp._core)."""

from __future__ import annotations

import json

import pytest

from celltcp import _core
from conftest import CHAIN_TOML

WIDTHS = {"f64": 8, "u64": 8, "u32": 4}


def test_run_output_shape() -> None:
    raw = _core.run(CHAIN_TOML, [], None, 0, None, [])
    assert set(raw) == {"summary", "events", "series"}
    assert isinstance(json.loads(raw["summary"]), dict)
    assert isinstance(raw["events"], int) and raw["events"] > 0
    for name, columns in raw["series"].items():
        lengths = set()
        for column, (dtype, payload) in columns.items():
            if dtype == "cat":
                codes, names = payload
                assert isinstance(codes, bytes) and len(codes) % 4 == 0
                assert all(isinstance(n, str) for n in names)
                lengths.add(len(codes) // 4)
            else:
                assert isinstance(payload, bytes), (name, column)
                assert len(payload) % WIDTHS[dtype] == 0, (name, column)
                lengths.add(len(payload) // WIDTHS[dtype])
        assert len(lengths) <= 1, f"series {name} has columns of different lengths"


def test_summary_text_is_deterministic() -> None:
    a = _core.run(CHAIN_TOML, [], 7, 3, None, [])
    b = _core.run(CHAIN_TOML, [], 7, 3, None, [])
    assert a["summary"] == b["summary"] and a["series"] == b["series"]


def test_validate_and_errors() -> None:
    text, warnings = _core.validate(CHAIN_TOML, [])
    echo = json.loads(text)
    assert "video" in echo["flows"] and warnings == []
    with pytest.raises(_core.ScenarioError) as e:
        _core.validate(CHAIN_TOML, [("links.access.rate", "0Mbps")])
    message, key = e.value.args
    assert key.startswith("links.access.rate") and message and not message.startswith(key)


def test_schema_is_json() -> None:
    schema = json.loads(_core.schema())
    assert isinstance(schema, dict) and schema


def test_bench_event_queue() -> None:
    assert _core.bench_event_queue(1_000, 10_000, 1) > 0
    with pytest.raises(ValueError):
        _core.bench_event_queue(0, 10, 1)


def test_io_error_is_an_oserror_naming_the_file(tmp_path) -> None:
    missing = tmp_path / "absent"
    with pytest.raises(FileNotFoundError) as e:
        _core.run(CHAIN_TOML, [], None, 0, str(missing), ["access"])
    assert e.value.filename == str(missing / "access.pcap")
    assert e.value.strerror == "No such file or directory"
    assert not missing.exists()


def test_python_reads_units_and_prbs_from_the_core():
    # The scenario format's own parser and the radio model's own TS 36.101 table.
    assert _core.quantity_of("rate", "20Mbps") == 2e7
    assert _core.quantity_of("time", "1min") == 60.0
    with pytest.raises(ValueError, match="'20Mbps' is not a time; use e.g. '20ms'"):
        _core.quantity_of("time", "20Mbps")
    with pytest.raises(ValueError, match='unknown kind of quantity "furlongs"'):
        _core.quantity_of("furlongs", "1m")
    assert [_core.lte_prbs(b) for b in (1.4, 3, 5, 10, 15, 20)] == [6, 15, 25, 50, 75, 100]
    assert _core.lte_prbs(7.0) is None
