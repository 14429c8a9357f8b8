"""Metrics of a sweep: dotted paths into a run's summary.json, with ``*`` matching one level.

``flows.bulk.goodput_bps`` names one value; ``flows.*.goodput_bps`` names the goodput of every
flow, and each match becomes its own column named by its concrete path
(``flows.bulk.goodput_bps``, ``flows.video.goodput_bps``). Flow, link and node names cannot
contain dots (docs/scenarios.md), so a concrete path always reads back unambiguously. A pattern
keeps values only (numbers, strings, booleans, nulls); a wildcard that meets a table skips it,
while a pattern without wildcards that ends on a table is an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from celltcp.errors import scenario_error

__all__ = ["DEFAULT_METRICS", "MetricPattern", "check_against", "extract", "parse_patterns"]

#: Kept when a sweep names no metrics: the headline figures of every flow.
DEFAULT_METRICS = ("flows.*.goodput_bps", "flows.*.delay_mean_s", "flows.*.loss_ratio")

_SEGMENT = re.compile(r"(\*|[A-Za-z0-9_-]+)\Z")

#: The summary's tables whose second level is a name from the scenario.
_NAMED_TABLES = ("flows", "links")


@dataclass(frozen=True)
class MetricPattern:
    """A parsed metric path; ``segments`` may contain ``"*"``."""

    text: str
    segments: tuple[str, ...]

    @property
    def has_wildcard(self) -> bool:
        return "*" in self.segments

    def named(self) -> tuple[str, str] | None:
        """``("flows", "bulk")`` when the pattern names a flow or a link of the scenario."""
        if (
            len(self.segments) >= 2
            and self.segments[0] in _NAMED_TABLES
            and self.segments[1] != "*"
        ):
            return self.segments[0], self.segments[1]
        return None


def parse_patterns(raw: Any) -> tuple[MetricPattern, ...]:
    """Parses the ``metrics`` list; errors name the entry (``metrics[2]``)."""
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, (list, tuple)) or not raw:
        raise scenario_error("metrics", "a non-empty list of dotted paths into summary.json")
    patterns: list[MetricPattern] = []
    for i, text in enumerate(raw):
        if not isinstance(text, str):
            raise scenario_error(f"metrics[{i}]", f"{text!r} is not a dotted path")
        segments = tuple(text.split("."))
        if not all(_SEGMENT.match(s) for s in segments):
            raise scenario_error(
                f"metrics[{i}]",
                f"{text!r} is not a dotted path of names and '*' (e.g. flows.*.goodput_bps)",
            )
        if any(p.text == text for p in patterns):
            raise scenario_error(f"metrics[{i}]", f"{text!r} is listed twice")
        patterns.append(MetricPattern(text, segments))
    return tuple(patterns)


def _walk(node: Any, segments: Sequence[str], prefix: str, out: dict[str, Any]) -> None:
    if not segments:
        if not isinstance(node, Mapping):
            out.setdefault(prefix, node)
        return
    if not isinstance(node, Mapping):
        return
    head, rest = segments[0], segments[1:]
    keys: Iterable[str] = sorted(node) if head == "*" else ([head] if head in node else [])
    for k in keys:
        _walk(node[k], rest, f"{prefix}.{k}" if prefix else k, out)


def extract(summary: Mapping[str, Any], patterns: Sequence[MetricPattern]) -> dict[str, Any]:
    """Concrete path → value for every match of every pattern, in pattern order (matches of a
    wildcard in sorted key order). Paths that are absent are simply not in the result."""
    out: dict[str, Any] = {}
    for p in patterns:
        _walk(summary, p.segments, "", out)
    return out


def _lookup(summary: Mapping[str, Any], segments: Sequence[str]) -> tuple[Any, int]:
    """The node at the longest existing prefix of ``segments`` and that prefix's length."""
    node: Any = summary
    for depth, s in enumerate(segments):
        if not isinstance(node, Mapping) or s not in node:
            return node, depth
        node = node[s]
    return node, len(segments)


def check_against(summary: Mapping[str, Any], patterns: Sequence[MetricPattern]) -> None:
    """Checks patterns against one run's summary: a pattern without wildcards must reach a
    value. Raises ScenarioError naming the metric and listing the keys where the path stops.

    Patterns naming a flow or link that this run does not have are not checked (another point
    of the sweep may add it); wildcards are not checked (they may match nothing in one run).
    """
    for i, p in enumerate(patterns):
        if p.has_wildcard:
            continue
        named = p.named()
        if named is not None and named[1] not in (summary.get(named[0]) or {}):
            continue
        node, depth = _lookup(summary, p.segments)
        if depth < len(p.segments):
            where = ".".join(p.segments[:depth]) or "summary.json"
            if isinstance(node, Mapping):
                known = ", ".join(sorted(node)) or "nothing"
                raise scenario_error(
                    f"metrics[{i}]",
                    f"{p.text}: {where} has no {p.segments[depth]!r} (it has: {known})",
                )
            raise scenario_error(f"metrics[{i}]", f"{p.text}: {where} is a value, not a table")
        if isinstance(node, Mapping):
            example = next(iter(sorted(node)), "x")
            raise scenario_error(
                f"metrics[{i}]",
                f"{p.text} is a table; name a value inside "
                f"it (e.g. {p.text}.{example}) or use {p.text}.*",
            )
