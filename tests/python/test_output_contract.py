"""The output contract (docs/outputs.md): the outputs are what the output schema says, and Python
reads nothing the schema lacks.

* Every example, and a few variants that reach the figures the examples do not write, is run
  once; each summary validates against the schema, every key it writes is declared (strictly:
  a figure table lists its figures), every declared figure is written by one of the runs, and
  every series has the columns and types of its column set.
* Every read of the summary in python/celltcp (tests/python/summary_reads.py: dotted metric
  paths, subscript and ``.get`` chains, comparisons with labels) resolves in the schema.
* The label constants and the generated TypedDicts (celltcp.summary_types) are the core's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from celltcp import _core, outputs
from summary_reads import scan

EXAMPLES = Path(__file__).resolve().parents[2] / "python" / "celltcp" / "examples"

#: Variants of the examples that write the figures the examples themselves do not: each an
#: example and its overrides.
VARIANTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "snoop": (
        "004/ack-copies.toml",
        [("middleboxes.snoop", '{kind = "snoop", node = "bs"}')],
    ),
    "eln": (
        "004/ack-copies.toml",
        [("middleboxes.eln", '{kind = "eln", node = "bs"}'), ("flows.bulk.tcp.eln", "true")],
    ),
    "split_tcp": (
        "001/ftp-dch.toml",
        [("middleboxes.pep", '{kind = "split_tcp", node = "ggsn", mobile = ["ue"]}')],
    ),
    "bulk bytes": (
        "wired-chain-tcp.toml",
        [("flows.bulk.app", '{kind = "bulk", bytes = "100kB"}')],
    ),
    "onoff": (
        "wired-chain-tcp.toml",
        [("flows.bulk.app", '{kind = "onoff", on = "1s", off = "1s", rate = "1Mbps"}')],
    ),
    "downlink loss": (
        "lte-single-cell.toml",
        [
            ("cells.cell1.downlink_loss", '{kind = "bernoulli", p = 0.01}'),
            ("trace.cells", '["cell1"]'),
        ],
    ),
    "dch series": ("001/bulk-dch384.toml", [("trace.dch", '["radio"]')]),
}


def _scenarios() -> Iterator[tuple[str, Path, list[tuple[str, str]]]]:
    for path in sorted(EXAMPLES.rglob("*.toml")):
        if "sweeps" not in path.relative_to(EXAMPLES).parts:
            yield str(path.relative_to(EXAMPLES)), path, []
    for name, (example, overrides) in VARIANTS.items():
        yield name, EXAMPLES / example, overrides


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, Any]]:
    """Every scenario's raw core output, its summary parsed."""
    out = {}
    for name, path, overrides in _scenarios():
        raw = _core.run(path.read_text(), overrides, base_dir=str(path.parent))
        out[name] = {"summary": json.loads(raw["summary"]), "series": raw["series"]}
    return out


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return outputs.output_schema()


def _summary_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"$ref": "#/$defs/Summary", "$defs": schema["$defs"]}


def test_the_output_schema_is_a_json_schema_and_the_cli_prints_it(cli, schema) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validators.validator_for(schema).check_schema(schema)
    res = cli("schema", "--output")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == schema
    # `celltcp schema` is still the input schema.
    assert json.loads(cli("schema").stdout) == json.loads(_core.schema())
    assert set(schema["properties"]["series"]["properties"]) >= {"queue", "tcp", "handovers"}


def test_every_summary_validates_against_the_schema(runs, schema) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    summary_schema = _summary_schema(schema)
    validator = jsonschema.validators.validator_for(summary_schema)(summary_schema)
    for name, run in runs.items():
        errors = [
            f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(run["summary"])
        ]
        assert errors == [], name


def _is_figure(node: Mapping[str, Any]) -> bool:
    return node.get("type") == ["number", "null"]


def _figure_tables(defs: Mapping[str, Any]) -> dict[str, set[str]]:
    """The declared figures of every figure table (a section with declared figures and room for
    more), by its name in ``$defs``."""
    return {
        name: {k for k, v in d["properties"].items() if _is_figure(v)}
        for name, d in defs.items()
        if isinstance(d.get("additionalProperties"), Mapping) and d.get("properties")
    }


def _strict_walk(
    value: Any,
    node: Mapping[str, Any],
    path: str,
    defs: Mapping[str, Any],
    seen: dict[str, set[str]],
) -> Iterator[str]:
    """The keys of ``value`` its schema does not declare (a figure table's undeclared figures
    too); adds the keys written into each figure table to ``seen``."""
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = defs[name]
        if isinstance(value, Mapping) and isinstance(node.get("additionalProperties"), Mapping):
            seen.setdefault(name, set()).update(value)
    if "anyOf" in node:
        # The alternative that declares the value's keys (RanSection: one network or several).
        alts = [a for a in node["anyOf"] if a.get("type") != "null"]
        best = min(alts, key=lambda a: sum(1 for _ in _strict_walk(value, a, path, defs, {})))
        yield from _strict_walk(value, best, path, defs, seen)
        return
    if isinstance(value, Mapping):
        properties = node.get("properties") or {}
        extra = node.get("additionalProperties")
        for key, v in value.items():
            if key in properties:
                yield from _strict_walk(v, properties[key], f"{path}.{key}", defs, seen)
            elif isinstance(extra, Mapping) and not properties:
                yield from _strict_walk(v, extra, f"{path}.*", defs, seen)
            elif not properties and extra in (None, True):
                continue  # an open object: the scenario echo, the emulation record
            else:
                yield f"{path}.{key}"
    elif isinstance(value, list) and isinstance(node.get("items"), Mapping):
        for item in value:
            yield from _strict_walk(item, node["items"], f"{path}.[]", defs, seen)


def test_every_key_written_is_declared_and_every_declared_figure_is_written(runs, schema) -> None:
    defs = schema["$defs"]
    seen: dict[str, set[str]] = {}
    undeclared = {
        f"{name}: {key}"
        for name, run in runs.items()
        for key in _strict_walk(run["summary"], {"$ref": "#/$defs/Summary"}, "summary", defs, seen)
    }
    assert sorted(undeclared) == []
    never = {
        table: sorted(figures - seen.get(table, set()))
        for table, figures in _figure_tables(defs).items()
        if figures - seen.get(table, set())
    }
    assert never == {}, "declared figures no run writes: add a variant that writes them"


def test_every_series_has_the_columns_of_its_column_set(runs, schema) -> None:
    specs = schema["properties"]["series"]["properties"]
    labels = outputs.LABELS
    written = set()
    for name, run in runs.items():
        for series, columns in run["series"].items():
            written.add(series)
            spec = specs[series]
            always = [c for c in spec["x-columns"] if c in spec["required"] or c in columns]
            assert list(columns) == always, (name, series)
            for column, (dtype, payload) in columns.items():
                prop = spec["properties"][column]
                assert dtype == prop["x-dtype"], (name, series, column)
                ref = prop["items"].get("$ref")
                if ref:
                    key = next(
                        k
                        for k, v in labels.items()
                        if schema["$defs"][ref.rsplit("/", 1)[-1]]["enum"] == list(v)
                    )
                    assert payload[1] == list(labels[key]), (name, series, column)
    assert written >= {
        "queue",
        "flow_rate",
        "packets",
        "cells",
        "tcp",
        "dch",
        "handovers",
        "handover_events",
    }


# -- what Python reads ----------------------------------------------------------------------------


def _type_paths(schema: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Each section type of the summary with the first path (breadth first) that reaches it."""
    defs = schema["$defs"]
    paths: dict[str, tuple[str, ...]] = {}
    queue: list[tuple[Mapping[str, Any], tuple[str, ...]]] = [(schema["properties"]["summary"], ())]
    while queue:
        node, path = queue.pop(0)
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name in paths:
                continue
            paths[name] = path
            node = defs[name]
        for alt in node.get("anyOf", ()):
            queue.append((alt, path))
        for key, sub in sorted((node.get("properties") or {}).items()):
            queue.append((sub, (*path, key)))
        extra = node.get("additionalProperties")
        if isinstance(extra, Mapping) and not node.get("properties"):
            queue.append((extra, (*path, "*")))
        if isinstance(node.get("items"), Mapping):
            queue.append((node["items"], (*path, "[]")))
    return paths


def _reads(schema: Mapping[str, Any]):
    summary = schema["$defs"]["Summary"]
    roots = frozenset(summary["properties"]) - {"scenario", "run", "seed", "events"}
    return list(scan(roots, _type_paths(schema)))


def test_python_reads_only_keys_the_output_schema_declares(schema) -> None:
    reads = _reads(schema)
    unknown, overrides, checked = [], 0, 0
    for r in reads:
        found = outputs.summary_schema_at(r.path)
        if r.kind == "label":
            enums = [set(f["enum"]) for f in found if "enum" in f]
            if enums and not any(set(r.labels) <= e for e in enums):
                unknown.append(f"{r.where()}: {'.'.join(r.path)} compared with {r.labels}")
            checked += 1
        elif found and not (
            r.prefix and not any(f.get("type") == "object" or "properties" in f for f in found)
        ):
            checked += 1
        elif r.kind == "dotted" and outputs.summary_schema_at(("scenario", *r.path)):
            overrides += 1  # a scenario override path (links.access.rate), not a read
        else:
            unknown.append(f"{r.where()}: {'.'.join(r.path)} ({r.kind})")
    assert unknown == []
    # The scan finds the reads it is meant to (the sweep metrics, RunResult's accessors, the
    # reproductions' metric lists): if it found few, it would prove little.
    # (Comparisons with labels are few: the package compares with celltcp.outputs' constants,
    # checked when they are made; test_the_scan_catches_a_key_the_schema_lacks shows the check.)
    kinds = {k: sum(1 for r in reads if r.kind == k) for k in ("dotted", "chain", "label")}
    assert kinds["dotted"] >= 100 and kinds["chain"] >= 50, kinds
    assert overrides >= 20


def test_the_scan_catches_a_key_the_schema_lacks(tmp_path) -> None:
    (tmp_path / "m.py").write_text(
        "def f(result, h: 'HandoverEntry'):\n"
        "    x = result.summary['flows']['bulk']['goodput_bp']\n"
        "    y = h.get('cause') == 'a4'\n"
        "    return ['flows.*.sender.timeoutz', 'links.access.rate', x, y]\n"
    )
    schema = outputs.output_schema()
    summary = schema["$defs"]["Summary"]
    reads = list(scan(frozenset(summary["properties"]), _type_paths(schema), tmp_path))
    bad = []
    for r in reads:
        found = outputs.summary_schema_at(r.path)
        if r.kind == "label":
            if not any(set(r.labels) <= set(f.get("enum", r.labels)) for f in found):
                bad.append(r.path)
        elif not found and not outputs.summary_schema_at(("scenario", *r.path)):
            bad.append(r.path)
    assert ("flows", "bulk", "goodput_bp") in bad
    assert ("flows", "*", "sender", "timeoutz") in bad
    assert ("handovers", "list", "[]", "cause") in bad  # 'a4' is no cause
    assert ("links", "access", "rate") not in bad  # an override path


# -- labels and types -----------------------------------------------------------------------------


def test_the_label_constants_are_the_cores() -> None:
    core = _core.output_labels()
    assert {k: list(v) for k, v in outputs.LABELS.items()} == core
    assert outputs.TCP_OUTCOMES == ("timeout", "halving", "none")
    assert outputs.LINK_DIRECTIONS == ("a_to_b", "b_to_a")
    assert outputs.label("handover_cause", "a3") == "a3"
    with pytest.raises(ValueError, match="not a handover_cause label"):
        outputs.label("handover_cause", "a4")


def test_summary_types_is_generated_from_the_schema() -> None:
    path = Path(outputs.__file__).with_name("summary_types.py")
    assert path.read_text() == outputs.typed_dicts_source(), (
        "regenerate: python -m celltcp.outputs > python/celltcp/summary_types.py"
    )


def test_run_result_accessors_read_the_summary(runs) -> None:
    from celltcp import RunResult

    raw = runs["handover/drive-60kmh.toml"]
    result = RunResult(raw["summary"], 0, {})
    assert result.stop_reason in outputs.STOP_REASONS
    assert result.simulated_time_s == raw["summary"]["simulated_time_s"]
    section = result.handover_summary
    assert section is not None and section["count"] == len(section["list"])
    assert set(section["outcomes"]) == set(outputs.TCP_OUTCOMES)
    assert set(section["by_result"]) == set(outputs.HANDOVER_RESULTS)
    assert RunResult(runs["wired-chain.toml"]["summary"], 0, {}).handover_summary is None


def test_the_labels_table_of_the_docs_is_the_cores() -> None:
    """docs/outputs.md lists the label sets; a set ending in … lists its first labels."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "outputs.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[0].strip("`") in outputs.LABELS:
            rows[cells[0].strip("`")] = [v.strip().strip("`") for v in cells[1].split(",")]
    assert set(rows) == set(outputs.LABELS)
    for key, listed in rows.items():
        if listed[-1] == "…":
            assert list(outputs.LABELS[key][: len(listed) - 1]) == listed[:-1], key
        else:
            assert list(outputs.LABELS[key]) == listed, key
