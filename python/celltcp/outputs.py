"""The output contract of a run, as the Rust core declares it (docs/outputs.md).

``summary.json`` and the series are typed in Rust; this module hands their description to
Python instead of Python keeping copies of it:

* :data:`LABELS` and the constants below it: every name a categorical output value can take
  (handover causes, results and policies, TCP outcome classes, drop causes and places, stop
  reasons, link directions, trace variables), from ``celltcp._core.output_labels()``;
* :func:`output_schema`: the JSON Schema of the outputs (``celltcp schema --output``);
* :func:`series_columns`: a series' columns, in order;
* :func:`summary_schema_at`: what the schema says about a dotted path into the summary
  (``flows.*.sender.timeouts``), which is how the tests check every path Python reads;
* :mod:`celltcp.summary_types`: the summary as ``TypedDict`` classes, generated from the schema
  by :func:`typed_dicts_source` (``python -m celltcp.outputs > python/celltcp/summary_types.py``;
  a test fails when the file is not what the schema gives).
"""

from __future__ import annotations

import json
import keyword
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from types import MappingProxyType
from typing import Any

from celltcp import _core

__all__ = [
    "DROP_CAUSES",
    "HANDOVER_CAUSES",
    "HANDOVER_DROP_PLACES",
    "HANDOVER_POLICIES",
    "HANDOVER_RESULTS",
    "LABELS",
    "LINK_DIRECTIONS",
    "STOP_REASONS",
    "TCP_OUTCOMES",
    "TRACE_VARS",
    "label",
    "output_schema",
    "series_columns",
    "summary_schema_at",
    "typed_dicts_source",
]

#: Every label set of the outputs by key, each in the order of the outputs' category lists.
LABELS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {key: tuple(labels) for key, labels in _core.output_labels().items()}
)
#: Why a handover started (``cause`` of a handover record and of the ``handovers`` series).
HANDOVER_CAUSES = LABELS["handover_cause"]
#: How a handover ended (``result``; the summary's ``handovers.by_result`` keys).
HANDOVER_RESULTS = LABELS["handover_result"]
#: The data-path policy of a handover (``policy``).
HANDOVER_POLICIES = LABELS["handover_policy"]
#: The TCP outcome classes of a flow across a handover, in the order of seed ``000_…`` Fig. 8
#: (``outcome``; the summary's ``handovers.outcomes`` keys).
TCP_OUTCOMES = LABELS["tcp_outcome"]
#: Why the network dropped a packet (``dropped_<cause>`` of the ``handovers`` series).
DROP_CAUSES = LABELS["drop_cause"]
#: Where a flow's packets were lost during a handover (``dropped_<place>``).
HANDOVER_DROP_PLACES = LABELS["handover_drop_place"]
#: Why a run ended (the summary's ``stop_reason``).
STOP_REASONS = LABELS["stop_reason"]
#: The directions of a point-to-point link (``links.<link>.<direction>``, the ``queue``
#: series' ``direction``).
LINK_DIRECTIONS = LABELS["link_direction"]
#: The traced TCP variables (the ``tcp`` series' ``var``).
TRACE_VARS = LABELS["trace_var"]


def label(kind: str, name: str) -> str:
    """``name``, checked to be a label of the set ``kind`` (a key of :data:`LABELS`): for code
    that compares a value with one label, so that a label renamed in the core fails here, at
    import, instead of comparing unequal for ever."""
    if name not in LABELS[kind]:
        raise ValueError(f"{name!r} is not a {kind} label; the labels are {LABELS[kind]}")
    return name


@cache
def _schema() -> Mapping[str, Any]:
    schema: Mapping[str, Any] = json.loads(_core.output_schema())
    return schema


def output_schema() -> dict[str, Any]:
    """The JSON Schema of a run's outputs (draft 2020-12): ``properties.summary`` is
    ``summary.json``, ``properties.series`` the series by name, each an object of column
    arrays (``x-columns`` their order, ``x-dtype`` the core's type); the label sets and the
    summary's sections are in ``$defs``. A fresh copy on every call."""
    copy: dict[str, Any] = json.loads(json.dumps(_schema()))
    return copy


def series_columns(name: str) -> tuple[str, ...]:
    """The columns of series ``name`` in order (``time_s``, which Python adds after
    ``time_ns``, not included). Raises KeyError for a series the core does not write."""
    series = _schema()["properties"]["series"]["properties"]
    return tuple(series[name]["x-columns"])


@cache
def _input_schema() -> Mapping[str, Any]:
    schema: Mapping[str, Any] = json.loads(_core.schema())
    return schema


def _deref(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        node = {**root["$defs"][name], **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _alternatives(node: Mapping[str, Any], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """``node`` with its ``anyOf``/``oneOf``/``allOf`` alternatives spread out, references
    followed."""
    node = _deref(node, root)
    out = [node]
    for key in ("anyOf", "oneOf", "allOf"):
        for alt in node.get(key, ()):
            out.extend(_alternatives(alt, root))
    return out


def _children(
    node: Mapping[str, Any], segment: str, root: Mapping[str, Any]
) -> list[Mapping[str, Any]]:
    """The schemas ``segment`` leads to from ``node``: a declared property, an entry of a table
    named by the scenario (an object with ``additionalProperties`` and no properties), any
    property for ``*``, the items of an array for ``[]``."""
    found: list[Mapping[str, Any]] = []
    for alt in _alternatives(node, root):
        properties = alt.get("properties") or {}
        extra = alt.get("additionalProperties")
        if segment == "[]":
            if isinstance(alt.get("items"), Mapping):
                found.append(alt["items"])
        elif segment in properties:
            found.append(properties[segment])
        elif segment == "*" and properties:
            found.extend(properties.values())
        elif isinstance(extra, Mapping) and not properties:
            found.append(extra)
        elif alt.get("type") == "object" and extra is None and not properties:
            # An object the schema leaves open (the scenario echo, the emulation record).
            found.append({})
    return found


def _walk(
    nodes: Iterable[Mapping[str, Any]], segments: Sequence[str], root: Mapping[str, Any]
) -> list[Mapping[str, Any]]:
    current = list(nodes)
    for segment in segments:
        current = [child for node in current for child in _children(node, segment, root)]
        if not current:
            break
    return [_deref(n, root) for n in current]


def summary_schema_at(path: str | Sequence[str]) -> list[dict[str, Any]]:
    """The schemas of what ``path`` (dotted, or its segments) names in ``summary.json``: empty
    when the output schema has no such key. ``*`` matches any key of a level, ``[]`` the items
    of a list (``handovers.list.[].cause``); the scenario echo (``scenario.…``) is resolved in
    the input schema (``celltcp schema``), whose form it has."""
    segments = path.split(".") if isinstance(path, str) else list(path)
    root = _schema()
    if segments and segments[0] == "scenario":
        inp = _input_schema()
        return [dict(n) for n in _walk([inp], segments[1:], inp)]
    return [dict(n) for n in _walk([root["properties"]["summary"]], segments, root)]


# -- TypedDicts generated from the schema ----------------------------------------------------------

_HEADER = '''"""The summary (``summary.json``) as ``TypedDict`` classes, one per section of the output
schema (``celltcp schema --output``, docs/outputs.md); ``RunResult.summary`` is a
:class:`Summary`.

Generated by ``python -m celltcp.outputs > python/celltcp/summary_types.py`` from the schema of
the compiled core; do not edit (tests/python/test_output_contract.py fails when this file is not
what the schema gives). A figure table (a sender's, a cell's) lists the figures the core
declares; a component of a newer build may write others.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict, Union
'''

_SCALARS = {"integer": "int", "number": "float", "string": "str", "boolean": "bool"}


def _py_type(node: Mapping[str, Any], defs: Mapping[str, Any], labels: set[str]) -> str:
    if "$ref" in node:
        return str(node["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in node:
        return " | ".join(_py_type(alt, defs, labels) for alt in node["anyOf"])
    kinds = node.get("type")
    if isinstance(kinds, list):
        return " | ".join(_py_type({**node, "type": k}, defs, labels) for k in kinds)
    if kinds == "null":
        return "None"
    if kinds in _SCALARS:
        return _SCALARS[kinds]
    if kinds == "array":
        return f"list[{_py_type(node.get('items') or {}, defs, labels)}]"
    if kinds == "object":
        extra = node.get("additionalProperties", True)
        value = _py_type(extra, defs, labels) if isinstance(extra, Mapping) else "Any"
        return f"dict[str, {value}]"
    return "Any"


def _typed_dict(
    name: str, node: Mapping[str, Any], defs: Mapping[str, Any], labels: set[str]
) -> str:
    description = " ".join(str(node.get("description", "")).split())
    properties: Mapping[str, Any] = node["properties"]
    required = set(node.get("required", ()))

    def fields(keys: Iterable[str]) -> list[str]:
        lines = []
        for key in keys:
            if not key.isidentifier() or keyword.iskeyword(key):
                raise ValueError(f"{name}.{key} cannot be a TypedDict field")
            lines.append(f"    {key}: {_py_type(properties[key], defs, labels)}")
        return lines or ["    pass"]

    doc = f'    """{description}"""' if description else None
    must = [k for k in properties if k in required]
    may = [k for k in properties if k not in required]
    out = []
    if must and may:
        out += [f"class _{name}Required(TypedDict):", *fields(must), "", ""]
        out += [f"class {name}(_{name}Required, total=False):"]
        out += [doc] if doc else []
        out += fields(may)
    else:
        out += [f"class {name}(TypedDict{'' if must else ', total=False'}):"]
        out += [doc] if doc else []
        out += fields(must or may)
    return "\n".join(out)


def typed_dicts_source() -> str:
    """The source of :mod:`celltcp.summary_types`: a ``Literal`` alias per label set and a
    ``TypedDict`` per object section of the summary (an optional key absent, a key written as
    ``null`` typed ``… | None``)."""
    root = _schema()
    defs: Mapping[str, Any] = root["$defs"]
    labels = {name for name, d in defs.items() if "enum" in d}
    parts = [_HEADER]
    for name in sorted(labels):
        values = ", ".join(json.dumps(v) for v in defs[name]["enum"])
        parts.append(
            f"#: {' '.join(str(defs[name].get('description', '')).split())}\n"
            f"{name} = Literal[{values}]"
        )
    for name in sorted(defs):
        node = defs[name]
        if name in labels:
            continue
        if "properties" in node:
            parts.append(_typed_dict(name, node, defs, labels))
        else:
            parts.append(
                f"{name} = Union[{', '.join(_py_type(a, defs, labels) for a in node.get('anyOf', [node]))}]"
            )
    return "\n\n\n".join(parts) + "\n"


if __name__ == "__main__":  # pragma: no cover - the generator's command line
    print(typed_dicts_source(), end="")
