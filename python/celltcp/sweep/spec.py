"""Sweep files: the base scenario, the parameter space, replications, metrics and series.

A sweep file is TOML::

    scenario = "../wired-chain-tcp.toml"   # relative to this file; or an inline [scenario] table
    name = "access-rate"                   # optional; the file's stem by default
    seed = 1                               # optional master seed (simulation.seed)
    runs = 10                              # run numbers 0..9, or an explicit list [0, 4, 7]
    metrics = ["flows.*.goodput_bps", "links.access.a_to_b.drops.queue_full"]
    series = ["tcp"]                       # optional: time series kept per run ("*" for all)

    [grid]                                 # cartesian product, first key outermost
    "links.access.rate" = ["10Mbps", "25Mbps"]
    "flows.bulk.cc" = ["newreno", "cubic"]

    [zip]                                  # lists advanced together (or [[zip]] for several groups)
    "links.access.delay" = ["5ms", "50ms"]
    "flows.bulk.tcp.rcv_buf" = ["64KB", "1MB"]

    [[points]]                             # explicit points, one table each
    "links.access.queue.kind" = "codel"

The parameter space is the product of the blocks present, in the order grid, zip groups, points;
no key may be set by two blocks. Keys are dotted paths into the scenario, exactly as after
``celltcp run --set`` (docs/scenarios.md); unquoted dotted keys (``links.access.rate = [...]``)
mean the same as quoted ones. Each point's scenario is resolved by the core before anything runs
(:func:`resolve_points`), so a misspelt key or a value without its unit is reported up front,
naming the key and the point.

The sweep file is read and parsed by the core, with the scenario file's guards (a regular file,
bounded nesting, 64-bit integers); each point's parameters are set on a copy of the base
scenario through the core's setter, the one ``--set`` uses, and the resolved scenario the
workers run is written as TOML by the core.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from celltcp import _core
from celltcp.errors import ScenarioError, scenario_error
from celltcp.scenario import Scenario, read_toml, toml_value
from celltcp.sweep.metrics import DEFAULT_METRICS, MetricPattern, parse_patterns

__all__ = [
    "Point",
    "ResolvedPoint",
    "SweepSpec",
    "expand_points",
    "load_spec",
    "resolve_points",
    "scenario_key",
    "toml_value",
]

#: Keys a sweep file may have at its top level.
_TOP_LEVEL = (
    "scenario",
    "name",
    "seed",
    "runs",
    "max_runs",
    "metrics",
    "series",
    "grid",
    "zip",
    "points",
)
#: Most runs (points × replications) a sweep may expand to unless its file raises the bound
#: with ``max_runs``: a mistyped ``runs = 1000000000`` is refused before anything is expanded.
DEFAULT_MAX_RUNS = 100_000
#: Names of series: the characters allowed in output file names.
_NAME = re.compile(r"[A-Za-z0-9_-]+\Z")

SpecLike = Union["SweepSpec", Mapping[str, Any], str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Point:
    """One point of the parameter space.

    Attributes:
        index: position in expansion order (0 for the first point).
        parameters: dotted key → value as written in the sweep file, in the sweep's key order.
    """

    index: int
    parameters: dict[str, Any]

    def describe(self) -> str:
        """``point 3: links.access.rate = "10Mbps", flows.bulk.cc = "cubic"``."""
        if not self.parameters:
            return f"point {self.index}"
        body = ", ".join(f"{k} = {toml_value(v)}" for k, v in self.parameters.items())
        return f"point {self.index}: {body}"


@dataclass(frozen=True)
class ResolvedPoint:
    """A point whose scenario the core has validated.

    Attributes:
        point: the point itself.
        scenario: the resolved scenario (the core's echo: parameters set, defaults filled in).
        toml: that scenario as TOML text, written by the core; this is what the workers run.
        key: hash of the resolved scenario and the celltcp version (see :func:`scenario_key`).
    """

    point: Point
    scenario: dict[str, Any]
    toml: str
    key: str


@dataclass
class SweepSpec:
    """A parsed sweep file (see the module documentation for the format).

    Attributes:
        base: the base scenario.
        name: a label for progress and reports.
        seed: master seed applied to every point (``simulation.seed``), or None to keep the base's.
        runs: replication (run) numbers, each ≥ 0, without repeats.
        metrics: dotted paths into summary.json, ``*`` matching one level.
        series: names of the time series kept per run; ``("*",)`` keeps every series.
        grid: key → list of values, crossed.
        zips: groups of key → list of values; the lists of a group advance together.
        points: explicit points (key → value).
    """

    base: Scenario
    name: str = "sweep"
    seed: int | None = None
    runs: tuple[int, ...] = (0,)
    metrics: tuple[MetricPattern, ...] = field(
        default_factory=lambda: parse_patterns(DEFAULT_METRICS)
    )
    series: tuple[str, ...] = ()
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zips: list[dict[str, list[Any]]] = field(default_factory=list)
    points: list[dict[str, Any]] = field(default_factory=list)
    #: Most runs (points × replications) the sweep may expand to.
    max_runs: int = DEFAULT_MAX_RUNS

    def count_points(self) -> int:
        """The number of points of the parameter space, without expanding it."""
        count = 1
        for values in self.grid.values():
            count *= len(values)
        for group in self.zips:
            count *= len(next(iter(group.values()), []))
        if self.points:
            count *= len(self.points)
        return count

    @property
    def parameter_names(self) -> list[str]:
        """Every swept key, in order of first appearance (grid, zip groups, points)."""
        names: dict[str, None] = dict.fromkeys(self.grid)
        for group in self.zips:
            names.update(dict.fromkeys(group))
        for p in self.points:
            names.update(dict.fromkeys(p))
        return list(names)


# -- TOML values -----------------------------------------------------------------------------------


def _file_digests(node: Any, out: dict[str, str]) -> dict[str, str]:
    """SHA-256 of every file the resolved scenario names by absolute path (the core anchors
    relative file references, such as link traces, to the scenario's directory)."""
    if isinstance(node, Mapping):
        for v in node.values():
            _file_digests(v, out)
    elif isinstance(node, list):
        for v in node:
            _file_digests(v, out)
    elif isinstance(node, str) and node not in out and os.path.isabs(node) and os.path.isfile(node):
        digest = hashlib.sha256()
        with open(node, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        out[node] = digest.hexdigest()
    return out


def scenario_key(scenario: Mapping[str, Any], version: str | None = None) -> str:
    """The store key of a resolved scenario: SHA-256 (first 32 hex digits) of the canonical JSON
    (sorted keys, no spaces, ASCII) of ``{"celltcp_version": ..., "scenario": ...}``, plus
    ``"files"`` (path → SHA-256 of the content) when the scenario reads files.

    Two points that resolve to the same scenario share their runs; a new celltcp version, or an
    edited trace file, never reuses the runs made before. (Runs of the same key that another
    build of celltcp made are run again too: the store records each run's build.)
    """
    document: dict[str, Any] = {
        "celltcp_version": version or _core.__version__,
        "scenario": scenario,
    }
    files = _file_digests(scenario, {})
    if files:
        document["files"] = files
    text = json.dumps(
        document, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:32]


# -- parsing ---------------------------------------------------------------------------------------


def _check_path(key: str, where: str) -> None:
    parts = key.split(".")
    if any(not p for p in parts):
        raise scenario_error(
            f"{where}.{key}" if where else key, "a key is a dotted path such as links.access.rate"
        )


def _flatten_lists(table: Mapping[str, Any], where: str, prefix: str = "") -> dict[str, list[Any]]:
    """``{"links": {"access": {"rate": [..]}}}`` → ``{"links.access.rate": [..]}``: nested tables
    are followed down to the lists of values, so quoted and unquoted dotted keys agree."""
    out: dict[str, list[Any]] = {}
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(_flatten_lists(v, where, f"{path}."))
            continue
        if not isinstance(v, (list, tuple)):
            example = f", e.g. {path} = [{toml_value(v)}]" if _is_value(v) else ""
            raise scenario_error(f"{where}.{path}", f"takes a list of values{example}")
        if not v:
            raise scenario_error(f"{where}.{path}", "an empty list; give at least one value")
        _check_path(path, where)
        out[path] = list(v)
    return out


def _is_value(v: Any) -> bool:
    try:
        toml_value(v)
    except ScenarioError:
        return False
    return True


def _flatten_point(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A point's nested tables down to the values (a table value sets the keys inside it)."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(_flatten_point(v, f"{path}."))
        else:
            out[path] = v
    return out


def _parse_max_runs(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise scenario_error("max_runs", f"{value!r} is not a number of runs (an integer >= 1)")
    return value


def _parse_runs(value: Any, max_runs: int) -> tuple[int, ...]:
    if isinstance(value, bool):
        raise scenario_error("runs", f"{value!r} is not a number of runs or a list of run numbers")
    if isinstance(value, int):
        if value < 1:
            raise scenario_error("runs", f"{value} runs; a sweep needs at least 1")
        if value > max_runs:
            # Checked before the run numbers are made: range(10**9) would not fit in memory.
            raise scenario_error("runs", _too_many(value, 1, max_runs))
        return tuple(range(value))
    if isinstance(value, (list, tuple)):
        if not value:
            raise scenario_error("runs", "an empty list; give at least one run number")
        seen: set[int] = set()
        for i, r in enumerate(value):
            if isinstance(r, bool) or not isinstance(r, int) or r < 0:
                raise scenario_error(f"runs[{i}]", f"{r!r} is not a run number (an integer >= 0)")
            if r in seen:
                raise scenario_error(f"runs[{i}]", f"run {r} is listed twice")
            seen.add(r)
        return tuple(value)
    raise scenario_error("runs", f"{value!r} is not a number of runs or a list of run numbers")


def _too_many(runs: int, points: int, max_runs: int) -> str:
    return (
        f"{runs} runs at {points} point{'s' if points != 1 else ''} make {runs * points} runs, "
        f"more than max_runs = {max_runs}; sweep fewer points or runs, or raise max_runs in the "
        "sweep file"
    )


def check_size(spec: SweepSpec) -> None:
    """Refuses a sweep whose points × runs exceed ``spec.max_runs``, before anything is
    expanded (a grid of ten keys with ten values each is 10^10 points)."""
    points = spec.count_points()
    if points * len(spec.runs) > spec.max_runs:
        raise scenario_error("max_runs", _too_many(len(spec.runs), points, spec.max_runs))


def _parse_series(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise scenario_error("series", 'a list of series names, e.g. ["tcp", "queue"]')
    names: list[str] = []
    for i, name in enumerate(value):
        if not isinstance(name, str) or not (name == "*" or _NAME.match(name)):
            raise scenario_error(f"series[{i}]", f'{name!r} is not a series name (or "*")')
        if name in names:
            raise scenario_error(f"series[{i}]", f"{name!r} is listed twice")
        names.append(name)
    return tuple(names)


def _parse_base(data: Mapping[str, Any], base_dir: Path, sweep_file: Path | None) -> Scenario:
    if "scenario" not in data:
        raise scenario_error(
            "scenario", "missing: a path to the base scenario, or a [scenario] table"
        )
    base = data["scenario"]
    if isinstance(base, Scenario):
        return base.copy()
    if isinstance(base, Mapping):
        # Named after the sweep file, so that relative file references in the inline scenario
        # resolve against the sweep file's directory.
        scenario = Scenario.from_dict(base)
        if sweep_file is not None:
            scenario.source = str(sweep_file)
        return scenario
    if isinstance(base, (str, os.PathLike)):
        path = Path(base)
        if not path.is_absolute():
            path = base_dir / path
        try:
            return Scenario.load(path)
        except OSError as e:
            raise scenario_error("scenario", f"{path}: cannot read: {e.strerror or e}") from None
    raise scenario_error("scenario", f"a path or a table, not {type(base).__name__}")


def _parse_zips(value: Any) -> list[dict[str, list[Any]]]:
    groups = [value] if isinstance(value, Mapping) else value
    if not isinstance(groups, (list, tuple)) or not groups:
        raise scenario_error("zip", "a table of equal-length lists, or an array of such tables")
    out = []
    for g, group in enumerate(groups):
        where = "zip" if isinstance(value, Mapping) else f"zip[{g}]"
        if not isinstance(group, Mapping) or not group:
            raise scenario_error(
                where, "an empty zip; give at least one key with its list of values"
            )
        lists = _flatten_lists(group, where)
        lengths = {k: len(v) for k, v in lists.items()}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
            raise scenario_error(where, f"lists advance together and need equal lengths: {shown}")
        out.append(lists)
    return out


def _parse_points(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, (list, tuple)) or not value:
        raise scenario_error("points", "a non-empty array of tables ([[points]])")
    out = []
    for i, p in enumerate(value):
        if not isinstance(p, Mapping) or not p:
            raise scenario_error(f"points[{i}]", "an empty point; give at least one key = value")
        flat = _flatten_point(p)
        for k, v in flat.items():
            _check_path(k, f"points[{i}]")
            if not _is_value(v):
                raise scenario_error(f"points[{i}].{k}", f"a {type(v).__name__} is not a value")
        out.append(flat)
    return out


def _check_keys(spec: SweepSpec) -> None:
    """No key set by two blocks; no key inside another (their order would be ambiguous)."""
    owner: dict[str, str] = {}
    for k in spec.grid:
        owner[k] = "grid"
    for g, group in enumerate(spec.zips):
        for k in group:
            if k in owner:
                raise scenario_error(f"zip.{k}", f"also swept by {owner[k]}")
            owner[k] = "zip" if len(spec.zips) == 1 else f"zip[{g}]"
    point_keys: dict[str, int] = {}
    for i, p in enumerate(spec.points):
        for k in p:
            if k in owner:
                raise scenario_error(f"points[{i}].{k}", f"also swept by {owner[k]}")
            point_keys.setdefault(k, i)
    names = sorted(set(owner) | set(point_keys))
    for a, b in itertools.pairwise(names):
        if b.startswith(a + "."):
            raise scenario_error(b, f"inside the swept key {a}; sweep one or the other")
    if spec.seed is not None and "simulation.seed" in names:
        raise scenario_error("seed", "simulation.seed is also swept; drop one of them")


def spec_from_dict(
    data: Mapping[str, Any],
    *,
    base_dir: str | os.PathLike[str] = ".",
    name: str = "sweep",
    sweep_file: Path | None = None,
) -> SweepSpec:
    """Parses the tables of a sweep file (see the module documentation). A relative
    ``scenario`` path is taken from ``base_dir``."""
    if not isinstance(data, Mapping):
        raise scenario_error("sweep", f"a sweep is a table, not a {type(data).__name__}")
    unknown = [k for k in data if k not in _TOP_LEVEL]
    if unknown:
        raise scenario_error(unknown[0], f"unknown key; expected one of: {', '.join(_TOP_LEVEL)}")
    # Nested tables are flattened recursively below: the core bounds the depth (and refuses
    # what a TOML file cannot hold) first. The scenario is a path, a Scenario or a table that
    # Scenario checks itself.
    _core.Document({k: v for k, v in data.items() if k != "scenario"})
    base = _parse_base(data, Path(base_dir), sweep_file)
    label = data.get("name", name)
    if not isinstance(label, str) or not label.strip():
        raise scenario_error("name", f"{label!r} is not a name")
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise scenario_error("seed", f"{seed!r} is not an integer >= 0")
    metrics_raw = data.get("metrics", list(DEFAULT_METRICS))
    max_runs = _parse_max_runs(data.get("max_runs", DEFAULT_MAX_RUNS))
    spec = SweepSpec(
        base=base,
        name=label,
        seed=seed,
        max_runs=max_runs,
        runs=_parse_runs(data.get("runs", 1), max_runs),
        metrics=parse_patterns(metrics_raw),
        series=_parse_series(data.get("series", [])),
    )
    if "grid" in data:
        if not isinstance(data["grid"], Mapping) or not data["grid"]:
            raise scenario_error(
                "grid", "an empty grid; give at least one key with its list of values"
            )
        spec.grid = _flatten_lists(data["grid"], "grid")
    if "zip" in data:
        spec.zips = _parse_zips(data["zip"])
    if "points" in data:
        spec.points = _parse_points(data["points"])
    _check_keys(spec)
    check_size(spec)
    return spec


def load_spec(spec: SpecLike) -> SweepSpec:
    """A :class:`SweepSpec` from a SweepSpec, a path to a sweep file, or a dict of its tables
    (relative scenario paths then start from the current directory)."""
    if isinstance(spec, SweepSpec):
        return spec
    if isinstance(spec, Mapping):
        return spec_from_dict(spec)
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        try:
            data = read_toml(path)
        except IsADirectoryError:
            raise scenario_error(str(path), "is a directory, not a sweep file") from None
        except OSError as e:
            raise scenario_error(str(path), f"cannot read: {e.strerror or e}") from None
        return spec_from_dict(data, base_dir=path.parent, name=path.stem, sweep_file=path)
    raise TypeError(f"expected a sweep file path, a dict or a SweepSpec, not {type(spec).__name__}")


# -- expansion and resolution ----------------------------------------------------------------------


def expand_points(spec: SweepSpec) -> list[Point]:
    """Every point of the parameter space, in order: the grid's product (first key outermost),
    then each zip group, then the explicit points, crossed in that order. A sweep larger than
    its ``max_runs`` raises ScenarioError before anything is expanded."""
    check_size(spec)
    blocks: list[list[dict[str, Any]]] = []
    if spec.grid:
        keys = list(spec.grid)
        blocks.append(
            [
                dict(zip(keys, combo, strict=True))
                for combo in itertools.product(*spec.grid.values())
            ]
        )
    for group in spec.zips:
        keys = list(group)
        blocks.append(
            [dict(zip(keys, values, strict=True)) for values in zip(*group.values(), strict=True)]
        )
    if spec.points:
        blocks.append([dict(p) for p in spec.points])
    points = []
    for i, combo in enumerate(itertools.product(*blocks)):
        params: dict[str, Any] = {}
        for part in combo:
            params.update(part)
        points.append(Point(i, params))
    return points


def point_scenario(spec: SweepSpec, point: Point) -> Scenario:
    """The base scenario with the sweep's seed and the point's parameters set, in that order,
    by the core's setter (the rules of ``--set``)."""
    scenario = spec.base.copy()
    if spec.seed is not None:
        scenario.set("simulation.seed", spec.seed)
    for key, value in point.parameters.items():
        scenario.set(key, value)
    return scenario


def resolve_points(spec: SweepSpec, points: Sequence[Point] | None = None) -> list[ResolvedPoint]:
    """Validates every point's scenario with the core and computes its store key.

    Raises ScenarioError on the first point that does not validate; the key is the scenario key
    at fault and the message names the point.
    """
    points = expand_points(spec) if points is None else points
    total = len(points)
    resolved = []
    for point in points:
        try:
            echo: dict[str, Any] = point_scenario(spec, point).validate()
        except ScenarioError as e:
            where = point.describe() if total > 1 or point.parameters else "the base scenario"
            raise scenario_error(e.key, f"{e.message} (in {where})") from None
        toml = Scenario.from_dict(echo).to_toml()
        resolved.append(ResolvedPoint(point, echo, toml, scenario_key(echo)))
    return resolved
