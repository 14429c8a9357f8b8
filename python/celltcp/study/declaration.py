"""What a study declares: scenarios, sweeps, metrics, claims with their tests, tables, figures.

A declaration holds no loop over runs and computes no statistic: it names the runs
(:class:`Sweep`), what to read from each (:class:`Metric`), which runs to compare and by which
test of :mod:`celltcp.reproduce.verdict` (:class:`Welch`, :class:`Paired`, :class:`Fisher`,
:class:`NonInferior`, :class:`MeanAgainst`, :class:`Equivalent`, :class:`WithinFactor`,
:class:`Ratio`, :class:`Single`, :class:`Untestable`, over several
points :class:`AtEvery` and :class:`AnyOf`), what to derive from the runs (:class:`Derived`) and,
when the engine's layout will not do, the report's own blocks (:class:`Section`, :class:`Text`,
:class:`Items`, :class:`Claims`, :class:`Table`, :class:`Figure`, :class:`Blocks`); the engine
(:mod:`celltcp.study.engine`) does the rest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from celltcp.reproduce.verdict import (
    MAGNITUDE_FACTOR,
    Decision,
    Estimate,
    Proportion,
    Sample,
    any_of,
    combine,
    decide,
    equivalence,
    fisher_test,
    noninferiority,
    one_sample_test,
    point_decision,
    ratio_test,
    unavailable,
    welch_test,
    within_factor,
)
from celltcp.study.dependent import After, check_order, keys_of

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from celltcp.scenario import Scenario as CoreScenario
    from celltcp.study.engine import Results

__all__ = [
    "AnyOf",
    "AtEvery",
    "Block",
    "Blocks",
    "Claim",
    "Claims",
    "Derived",
    "Equivalent",
    "Evaluation",
    "Figure",
    "Fisher",
    "Items",
    "MeanAgainst",
    "Metric",
    "NonInferior",
    "Paired",
    "Ratio",
    "Replications",
    "Runs",
    "Scenario",
    "Section",
    "Single",
    "Study",
    "Sweep",
    "Table",
    "Test",
    "Text",
    "Untestable",
    "Welch",
    "WithinFactor",
]


@dataclass(frozen=True)
class Scenario:
    """A scenario file with dotted-key overrides (the keys of ``celltcp run --set``).

    Attributes:
        source: an example's name (``"004/ack-copies"``, :mod:`celltcp.examples`) or the path
            of a scenario file.
        overrides: dotted key → value, set on the file before a sweep's axes.
        tables: dotted key → table, each set whole on the file first, by the core's setter
            (:meth:`celltcp.scenario.Scenario.set`): the table replaces the file's, so that an
            entry it lacks is gone (a variant with fewer UEs: ``nodes``, ``flows`` and
            ``cells.target.ues`` without them). ``overrides`` and a sweep's points, by contrast,
            set the values inside a table and keep the rest.
    """

    source: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    tables: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def path(self) -> Path:
        """The scenario file: ``source`` itself when it names a file, else the example."""
        from celltcp import examples

        own = Path(self.source)
        if own.suffix == ".toml" and own.is_file():
            return own
        return examples.path(self.source)

    def base(self) -> CoreScenario:
        """The file with :attr:`tables` set (the base a sweep's points are set on); the
        scenario's errors name the dotted key."""
        from celltcp.scenario import Scenario as Loaded

        scenario = Loaded.load(self.path())
        for key, table in self.tables.items():
            scenario.set(key, dict(table))
        return scenario


@dataclass(frozen=True)
class Replications:
    """Replications per point in each mode, and why that many: the power statement the report
    prints beside them (which effect the tests can see at that size).

    Attributes:
        quick: replications in quick mode (the tests' smoke runs).
        full: replications in full mode.
        why: the power statement, e.g. "Welch's t-test has power 0.8 for a 20 % difference at
            the spread measured on 2026-12-01".
    """

    quick: int
    full: int
    why: str

    def __post_init__(self) -> None:
        if self.quick < 1 or self.full < 1:
            raise ValueError("replications: at least one run per point in each mode")

    def of(self, quick: bool) -> int:
        """The replications of the mode."""
        return self.quick if quick else self.full


@dataclass(frozen=True)
class Metric:
    """A named number per run: a dotted path into the run's ``summary.json`` (typed by
    :mod:`celltcp.outputs`, matched as sweep metrics are, :mod:`celltcp.sweep.metrics`), a
    function of one of its kept series (read back from the results store), or a number derived
    from the sweep's rows once every sweep has run (``derived``: the rows, with the other
    metrics as columns, and the results → one value per row; a ratio of two metrics, or a
    statistic of a series that needs the mode or the run's axes).

    Attributes:
        name: the column name the claims and tables refer to.
        summary: the dotted path (``flows.bulk.goodput_bps``); None for a series metric.
        series: the kept series (``handovers``, ``tcp``) ``of`` reads.
        of: the series' DataFrame → the number.
        derived: (the sweep's rows, the results) → a value per row, in the rows' order.
        label: how tables head the metric (default ``name``).
        unit: the unit printed after it.
        scale: the factor applied for display only (1e-6 for Mb/s from bit/s).
    """

    name: str
    summary: str | None = None
    series: str | None = None
    of: Callable[[pd.DataFrame], float] | None = None
    derived: Callable[[pd.DataFrame, Results], Sequence[float] | np.ndarray] | None = None
    label: str = ""
    unit: str = ""
    scale: float = 1.0

    def __post_init__(self) -> None:
        sources = (
            (self.summary is not None) + (self.series is not None) + (self.derived is not None)
        )
        if sources != 1 or (self.series is None) != (self.of is None):
            raise ValueError(
                f"metric {self.name!r}: give one of a summary path, a series with its function, "
                "or a derivation"
            )

    @property
    def heading(self) -> str:
        """The table heading: label and unit."""
        text = self.label or self.name
        return f"{text} ({self.unit})" if self.unit else text


@dataclass(frozen=True)
class Runs:
    """The runs of one sweep at the points whose axes take the given values (every point of the
    sweep when ``where`` is empty); a test reads a metric of them in run order, so that two sets
    of the same sweep pair up run by run (common random numbers). ``sweep`` may also name a
    derived frame (:class:`Derived`) whose rows are not runs: one row per handover of runs
    that make several, the rows of two sweeps that answer one question together; ``where``
    then selects on its columns.

    Attributes:
        sweep: the sweep's name, or the name of a derived frame of one row per run
            (:class:`Derived`, :meth:`celltcp.study.Results.frame`).
        where: axis key → value (as written in the sweep's axes), or a derived frame's column
            → value.
        label: how the report names the set (default: the values, ``"cubic, 0.01"``).
    """

    sweep: str
    where: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""

    def name(self) -> str:
        """The set's label in the report."""
        return self.label or ", ".join(f"{v}" for v in self.where.values()) or self.sweep


@dataclass(frozen=True)
class Evaluation:
    """What a test found: its decision, the statistic with its interval and the figures behind
    it (``detail``), for the claims table; a test over several points keeps each point's
    evaluation in ``parts`` (label → evaluation), for a claim's own detail or estimate."""

    decision: Decision
    estimate: Estimate | None
    detail: str = ""
    parts: Mapping[str, Evaluation] = field(default_factory=dict)


class Test(Protocol):
    """A claim's statistic and its statistical test, evaluated on the study's results."""

    def evaluate(self, results: Results) -> Evaluation:
        """The decision and the estimate on these results."""
        ...


def _mean_text(metric: str, runs: Runs, results: Results) -> str:
    """``label mean unit``; a column of a derived frame, which no :class:`Metric` declares, is
    printed unscaled and without a unit."""
    try:
        m = results.metric(metric)
        scale, unit = m.scale, m.unit
    except KeyError:
        scale, unit = 1.0, ""
    values = results.values(metric, runs)
    mean = float(values.mean()) * scale if len(values) else math.nan
    return f"{runs.name()} {mean:.3g}{' ' + unit if unit else ''}"


@dataclass(frozen=True)
class Welch:
    """``mean(a) relation mean(b)`` for a metric, by Welch's t-test on independent runs. The
    statistic is mean(a)/mean(b) (``statistic="ratio"``, the scale of a source's "×2") or
    mean(a) − mean(b) (``"difference"``); the power is stated for ``effect`` (absolute, in the
    metric's unit) or ``relative`` × the larger mean."""

    metric: str
    a: Runs
    b: Runs
    relation: Literal[">", "<"]
    effect: float | None = None
    relative: float = 0.2
    statistic: Literal["ratio", "difference"] = "ratio"

    def evaluate(self, results: Results) -> Evaluation:
        a = Sample.of(results.values(self.metric, self.a))
        b = Sample.of(results.values(self.metric, self.b))
        test = welch_test(a, b, effect=self.effect, relative=self.relative)
        estimate = (
            Estimate.of_ratio(a, b) if self.statistic == "ratio" else Estimate.of_difference(a, b)
        )
        detail = "; ".join(_mean_text(self.metric, r, results) for r in (self.a, self.b))
        return Evaluation(decide(test, self.relation), estimate, detail)


@dataclass(frozen=True)
class Paired:
    """``a relation b`` run by run: the one-sample t-test of the per-run differences a − b
    against 0, for two sets of the same sweep that meet the same random numbers. Power for a
    true difference of ``effect_share`` × mean(b)."""

    metric: str
    a: Runs
    b: Runs
    relation: Literal[">", "<"]
    effect_share: float = 0.2

    def evaluate(self, results: Results) -> Evaluation:
        b = results.values(self.metric, self.b)
        diff = Sample.of(results.paired(self.metric, self.a, self.b))
        effect = self.effect_share * float(b.mean()) if len(b) else None
        test = one_sample_test(diff, 0.0, effect=effect)
        detail = "; ".join(_mean_text(self.metric, r, results) for r in (self.a, self.b))
        return Evaluation(decide(test, self.relation), Estimate.of_sample(diff), detail)


def _share(results: Results, events: str, trials: str, runs: Runs) -> Proportion:
    return Proportion(
        int(results.values(events, runs).sum()), int(results.values(trials, runs).sum())
    )


@dataclass(frozen=True)
class Fisher:
    """``share(a) relation share(b)`` where a share is the sum of ``events`` over the sum of
    ``trials`` of a set of runs (timeouts per handover, say), by Fisher's exact test."""

    events: str
    trials: str
    a: Runs
    b: Runs
    relation: Literal[">", "<"]
    effect: float | None = None

    def evaluate(self, results: Results) -> Evaluation:
        a = _share(results, self.events, self.trials, self.a)
        b = _share(results, self.events, self.trials, self.b)
        detail = f"{self.a.name()} {a.k}/{a.n}; {self.b.name()} {b.k}/{b.n}"
        return Evaluation(
            decide(fisher_test(a, b, effect=self.effect), self.relation),
            Estimate.of_proportion(a),
            detail,
        )


@dataclass(frozen=True)
class NonInferior:
    """``share(a)`` no larger than ``share(b)`` up to ``margin`` of probability: the
    non-inferiority test on the difference (Newcombe interval, one-sided 5 %)."""

    events: str
    trials: str
    a: Runs
    b: Runs
    margin: float

    def evaluate(self, results: Results) -> Evaluation:
        a = _share(results, self.events, self.trials, self.a)
        b = _share(results, self.events, self.trials, self.b)
        detail = f"{self.a.name()} {a.k}/{a.n}; {self.b.name()} {b.k}/{b.n}"
        return Evaluation(noninferiority(a, b, self.margin), Estimate.of_proportion(a), detail)


@dataclass(frozen=True)
class MeanAgainst:
    """``mean(runs) relation reference`` by the one-sample t-test; power for ``effect`` (default
    a fifth of the reference)."""

    metric: str
    runs: Runs
    reference: float
    relation: Literal[">", "<"]
    effect: float | None = None

    def evaluate(self, results: Results) -> Evaluation:
        values = Sample.of(results.values(self.metric, self.runs))
        test = one_sample_test(values, self.reference, effect=self.effect)
        return Evaluation(
            decide(test, self.relation),
            Estimate.of_sample(values),
            _mean_text(self.metric, self.runs, results),
        )


@dataclass(frozen=True)
class Equivalent:
    """``mean(runs)`` equal to ``reference`` within ±``margin`` × reference: the two one-sided
    tests (TOST) on the runs' values over the reference. A margin in the metric's own unit (a
    reference of 0) is :class:`celltcp.study.Equal`'s."""

    metric: str
    runs: Runs
    reference: float
    margin: float

    def evaluate(self, results: Results) -> Evaluation:
        values = results.values(self.metric, self.runs)
        return Evaluation(
            equivalence(Sample.of(values / self.reference), 1.0, self.margin),
            Estimate.of_sample(Sample.of(values)),
            _mean_text(self.metric, self.runs, results),
        )


@dataclass(frozen=True)
class WithinFactor:
    """``mean(runs)`` is the source's number ``reference`` (> 0) within a factor ``factor``
    (the magnitude rule's ×1.5): the two one-sided tests (TOST) on [reference/factor,
    reference·factor] (:func:`celltcp.reproduce.verdict.within_factor`); contradicted when
    the mean is significantly outside. The estimate is the runs' mean."""

    metric: str
    runs: Runs
    reference: float
    factor: float = MAGNITUDE_FACTOR

    def evaluate(self, results: Results) -> Evaluation:
        values = Sample.of(results.values(self.metric, self.runs))
        return Evaluation(
            within_factor(values, self.reference, self.factor),
            Estimate.of_sample(values),
            _mean_text(self.metric, self.runs, results),
        )


@dataclass(frozen=True)
class Ratio:
    """``mean(a)/mean(b) relation reference`` for a metric of independent runs: the t-test of
    the ratio on the log scale with the delta-method standard error
    (:func:`celltcp.reproduce.verdict.ratio_test`), for a claim stated as a ratio ("P/T above
    1"); power for a ``relative`` change of the ratio."""

    metric: str
    a: Runs
    b: Runs
    relation: Literal[">", "<"]
    reference: float = 1.0
    relative: float = 0.2

    def evaluate(self, results: Results) -> Evaluation:
        a = Sample.of(results.values(self.metric, self.a))
        b = Sample.of(results.values(self.metric, self.b))
        test = ratio_test(a, b, self.reference, relative=self.relative)
        detail = "; ".join(_mean_text(self.metric, r, results) for r in (self.a, self.b))
        return Evaluation(decide(test, self.relation), Estimate.of_ratio(a, b), detail)


@dataclass(frozen=True)
class Single:
    """``value(a) relation value(b)`` on one run each (a traced run per point, say): a point
    estimate that never reproduces a claim, only agrees or disagrees with it
    (:func:`celltcp.reproduce.verdict.point_decision`). Both sets must hold exactly one run."""

    metric: str
    a: Runs
    b: Runs
    relation: Literal[">", "<"]
    kind: str = "a single run"

    def evaluate(self, results: Results) -> Evaluation:
        a, b = (results.values(self.metric, r) for r in (self.a, self.b))
        if len(a) != 1 or len(b) != 1:
            raise ValueError(
                f"{self.a.name()} and {self.b.name()}: {len(a)} and {len(b)} runs, not one each"
            )
        detail = "; ".join(_mean_text(self.metric, r, results) for r in (self.a, self.b))
        return Evaluation(
            point_decision(float(a[0]), float(b[0]), self.relation, self.kind), None, detail
        )


@dataclass(frozen=True)
class Untestable:
    """A claim the runs cannot test (the set-up never samples what it is about): never
    reproduced or contradicted, not significant with ``why`` as the test's note (words, or the
    results → words with the figures that show it), under the test ``kind`` it would take."""

    kind: str
    why: Words

    def evaluate(self, results: Results) -> Evaluation:
        return Evaluation(unavailable(self.kind, words(self.why, results)), None)


#: The tests of a claim over several points: label → test, or a function of the results giving
#: them (the points of the mode's grid, :meth:`celltcp.study.Results.axis`).
Parts = Mapping[str, Test] | Callable[["Results"], Mapping[str, Test]]


def _points(parts: Parts, results: Results) -> dict[str, Evaluation]:
    tests = parts(results) if callable(parts) else parts
    return {label: t.evaluate(results) for label, t in tests.items()}


def _over_points(found: Mapping[str, Evaluation], decision: Decision) -> Evaluation:
    first = next(iter(found.values()), None)
    detail = "; ".join(
        f"{label}: {e.estimate.text(2) if e.estimate else e.detail}" for label, e in found.items()
    )
    return Evaluation(decision, first.estimate if first else None, detail, dict(found))


@dataclass(frozen=True)
class AtEvery:
    """One claim checked at several points, each by its own test: reproduced when every point
    is (the intersection–union test of :func:`celltcp.reproduce.verdict.combine`). The
    estimate is that of the first point; the detail lists every point's. ``parts`` may be a
    function of the results, for points that depend on the mode's grid; with no point to test
    the claim is not significant, for the reason ``otherwise``."""

    parts: Parts
    otherwise: str = "no point to test in this grid"

    def evaluate(self, results: Results) -> Evaluation:
        found = _points(self.parts, results)
        if not found:
            return Evaluation(unavailable("a test at every point", self.otherwise), None)
        return _over_points(found, combine({label: e.decision for label, e in found.items()}))


@dataclass(frozen=True)
class AnyOf:
    """One claim that holds at some point ("may do worse at a low error rate"), each point
    by its own test: reproduced when some point is at α/m (Bonferroni over the m points),
    contradicted when every point is (:func:`celltcp.reproduce.verdict.any_of`). Estimate
    and detail as :class:`AtEvery`'s."""

    parts: Parts
    otherwise: str = "no point to test in this grid"

    def evaluate(self, results: Results) -> Evaluation:
        found = _points(self.parts, results)
        if not found:
            return Evaluation(unavailable("a test at some point", self.otherwise), None)
        return _over_points(found, any_of({label: e.decision for label, e in found.items()}))


@dataclass(frozen=True)
class Claim:
    """One claim: the source's statement and number, the test that decides it, and what fills
    the reason slot when the verdict is not "reproduced" or the magnitude is off.

    Attributes:
        key: a short identifier (``"fewer_timeouts"``), the key of :meth:`Results.decisions`.
        where: the source's figure, table or section ("question" for a study of one's own).
        claim: the claim in words (or the results → the words: a claim stated at a value
            the runs measured, the span of a slow start found by a probe).
        test: the statistic and its test.
        source_text: how the source states it (its number with its unit, or its words); or
            the results → the text, for a model's value at the parameters the runs measured.
        source_value: the source's number on the statistic's scale; the magnitude check
            (within ×1.5, :data:`celltcp.reproduce.verdict.MAGNITUDE_FACTOR`) needs it. Or the
            results → the number (the model's value at the runs' parameters; None: none).
        reason: the data → words on why it differs; the engine puts the test's own shortfall
            (points that did not hold, the power the runs had) first.
        registered: False for a secondary, descriptive comparison, reported in its own table
            and left out of ``claims.json``'s claims.
        digits: decimals of the estimate; unit: its unit.
        detail: (evaluation, results) → the "ours" cell, in place of the test's figures.
        estimate: (evaluation, results) → the estimate the claims table shows and the magnitude
            check uses, in place of the test's (None for a claim stated in direction only).
        point: the words before a point's label where the reason lists the points that did not
            hold (``"p_err "``).
        shortfall: False to leave the test's own shortfall out of the reason (a claim whose
            reason already says why the test cannot reproduce it).
        points: (evaluation, results) → (ours, source) at each point where the source gives a
            number at several points (a table's rows): the magnitude is then judged at every
            point (:func:`celltcp.reproduce.verdict.magnitudes`) and the ratio column gives
            their range.
        when: results → whether the claim exists in this mode (an ablation whose runs only
            the full mode's grid has); None: always.
    """

    key: str
    where: str
    claim: Words
    test: Test
    source_text: Words = "–"
    source_value: float | Callable[[Results], float | None] | None = None
    reason: Callable[[Evaluation, Results], str] | None = None
    registered: bool = True
    digits: int = 3
    unit: str = ""
    detail: Callable[[Evaluation, Results], str] | None = None
    estimate: Callable[[Evaluation, Results], Estimate | None] | None = None
    point: str = ""
    shortfall: bool = True
    points: Callable[[Evaluation, Results], Sequence[tuple[float, float]]] | None = None
    when: Callable[[Results], bool] | None = None

    def exists(self, results: Results) -> bool:
        """Whether the claim is made on these results (:attr:`when`)."""
        return self.when is None or bool(self.when(results))

    def source(self, results: Results) -> tuple[str, float | None]:
        """The source's text and number on these results."""
        value = self.source_value(results) if callable(self.source_value) else self.source_value
        return words(self.source_text, results), value


@dataclass(frozen=True)
class Derived:
    """A frame computed from the results once, by name, that claims, tables and figures read
    (:meth:`celltcp.study.Results.derived`): the means per point of several sweeps side by
    side, a model evaluated at the parameters the runs measured. ``of`` may read other derived
    frames; a cycle is an error."""

    name: str
    of: Callable[[Results], pd.DataFrame]


#: Text of the report: fixed, or a function of the results.
Words = str | Callable[["Results"], str]


def words(text: Words, results: Results) -> str:
    """The text of a :data:`Words` on these results."""
    return text(results) if callable(text) else text


@dataclass(frozen=True)
class Table:
    """A table of the report built from the results (rows of strings), under ``heading`` and
    ``text`` when they are given (in a study's own layout a table may follow another under the
    same heading: ``claims.json`` then names it ``heading (2)``)."""

    heading: str
    header: tuple[str, ...]
    rows: Callable[[Results], Sequence[Sequence[str]]]
    text: Words = ""


@dataclass(frozen=True)
class Figure:
    """A figure of the report: ``draw`` returns a matplotlib figure of the results."""

    file: str
    caption: Words
    draw: Callable[[Results], Any]


@dataclass(frozen=True)
class Section:
    """A heading of a study's own layout (:attr:`Study.report`), at ``level`` (2 for a
    section, 3 for a subsection)."""

    heading: str
    level: int = 2


@dataclass(frozen=True)
class Text:
    """A paragraph of a study's own layout."""

    text: Words


@dataclass(frozen=True)
class Items:
    """A bulleted list of a study's own layout: the results → its items (what was run, say)."""

    items: Callable[[Results], Sequence[str]]


@dataclass(frozen=True)
class Claims:
    """The table of the registered claims, with their verdicts, in a study's own layout."""


@dataclass(frozen=True)
class Blocks:
    """Blocks that depend on the results (a figure per run of a sweep, or none when a trace is
    missing): the results → declared blocks, rendered in order."""

    make: Callable[[Results], Sequence[Block]]


#: What a study's own layout is made of.
Block = Section | Text | Items | Claims | Table | Figure | Blocks


def _hashable(value: Any) -> Any:
    """A point's value as a key (lists and tables of a point compared by their text)."""
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def _first_with(
    points: Sequence[Mapping[str, Any]], key: str, values: Sequence[Any]
) -> list[Mapping[str, Any]]:
    """For each of ``values`` (of :func:`_hashable`), the first point that sets ``key`` to it."""
    found: dict[Any, Mapping[str, Any]] = {}
    for p in points:
        found.setdefault(_hashable(p.get(key)), p)
    return [found[v] for v in values]


@dataclass(frozen=True)
class Sweep:
    """Runs of one scenario over a grid of axes, with replications per point.

    Attributes:
        name: the sweep's name (in the store and in ``claims.json``'s run counts).
        scenario: the scenario and its overrides.
        axes: dotted key → values, a cartesian grid, first key outermost.
        metrics: what each run is read for.
        replications: runs per point and mode, with the power statement.
        quick_axes: axes replaced in quick mode (a coarser grid).
        quick: overrides in quick mode only (shorter runs); full: in full mode only.
        seed: the master seed (``simulation.seed``; None keeps the scenario's).
        keep: series kept in the store beyond those the metrics read (for derived metrics,
            derived frames and figures that read them).
        points: explicit points (dotted key → value) in place of the axes' cartesian grid, in
            run order: a grid whose set-ups depend on another axis, or a point that sets many
            keys at once (the controller of fifteen flows); ``axes`` must then be empty.
        quick_points: the points in quick mode (default ``points``). Either may be
            :class:`~celltcp.study.After`: points computed from earlier sweeps' results when the
            engine reaches this sweep (:mod:`celltcp.study.dependent`).
        count_as: the name ``claims.json``'s run counts give the sweep's runs (default the
            sweep's name): two sweeps that are the arms of one experiment, each reading the
            metrics its runs have, counted as that experiment.
    """

    name: str
    scenario: Scenario
    axes: Mapping[str, Sequence[Any]]
    metrics: tuple[Metric, ...]
    replications: Replications
    quick_axes: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    quick: Mapping[str, Any] = field(default_factory=dict)
    full: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    keep: tuple[str, ...] = ()
    points: Sequence[Mapping[str, Any]] | After = ()
    quick_points: Sequence[Mapping[str, Any]] | After | None = None
    count_as: str = ""

    def __post_init__(self) -> None:
        if (self.points or self.quick_points) and (self.axes or self.quick_axes):
            raise ValueError(f"sweep {self.name!r}: give axes or explicit points, not both")

    def points_of(self, quick: bool) -> list[dict[str, Any]] | None:
        """The explicit points of the mode, or None for a grid of axes."""
        chosen = self.quick_points if quick and self.quick_points is not None else self.points
        if isinstance(chosen, After):
            raise ValueError(
                f"sweep {self.name!r}: its points are computed from {chosen.needs} once they "
                "have run (celltcp.study.dependent.resolve)"
            )
        return [dict(p) for p in chosen] if chosen else None

    def axes_of(self, quick: bool) -> dict[str, list[Any]]:
        """The grid of the mode; for explicit points, every key they set to more than one
        value, with its values in the order of the points."""
        points = self.points_of(quick)
        if points is None:
            return {
                k: list(self.quick_axes.get(k, v) if quick else v) for k, v in self.axes.items()
            }
        keys = list(dict.fromkeys(k for p in points for k in p))
        out: dict[str, list[Any]] = {}
        for k in keys:
            values = list(dict.fromkeys(_hashable(p.get(k)) for p in points))
            if len(values) > 1:
                out[k] = [p.get(k) for p in _first_with(points, k, values)]
        return out

    def varied(self) -> set[str]:
        """Every key the sweep sets itself (its axes, or its points' keys, in either mode)."""
        keys = set(self.axes) | set(self.quick_axes) | keys_of(self)
        for chosen in (self.points, self.quick_points):
            if chosen is not None and not isinstance(chosen, After):
                for p in chosen:
                    keys |= set(p)
        return keys

    def overrides_of(self, quick: bool) -> dict[str, Any]:
        """The scenario overrides of the mode (the scenario's, then the mode's)."""
        return {**self.scenario.overrides, **(self.quick if quick else self.full)}

    def series(self) -> tuple[str, ...]:
        """The series the metrics read (kept in the store)."""
        return tuple(dict.fromkeys((*(m.series for m in self.metrics if m.series), *self.keep)))


@dataclass(frozen=True)
class Study:
    """A study: its sweeps, its claims with their tests, and its report's tables and figures.

    Attributes:
        name: a short name (file and directory names).
        title: the report's title.
        question: what the study asks, in a paragraph.
        sweeps: the runs.
        claims: the claims, each with its test.
        tables: descriptive tables beyond the per-sweep metric tables the engine writes.
        figures: the report's figures.
        derived: frames computed from the results, by name (:class:`Derived`).
        report: the report's own layout, in reading order, in place of the engine's (what was
            run, the question, the claims, the metrics per point, ``tables``, ``figures``):
            for a study whose report has a form of its own, a seed reproduction's, say.
    """

    name: str
    title: str
    question: str
    sweeps: tuple[Sweep, ...]
    claims: tuple[Claim, ...]
    tables: tuple[Table, ...] = ()
    figures: tuple[Figure, ...] = ()
    derived: tuple[Derived, ...] = ()
    report: tuple[Block, ...] | None = None

    def __post_init__(self) -> None:
        names = [s.name for s in self.sweeps]
        if len(set(names)) != len(names):
            raise ValueError(f"study {self.name!r}: two sweeps share a name")
        keys = [c.key for c in self.claims]
        if len(set(keys)) != len(keys):
            raise ValueError(f"study {self.name!r}: two claims share a key")
        derived = [d.name for d in self.derived]
        if len(set(derived)) != len(derived):
            raise ValueError(f"study {self.name!r}: two derived frames share a name")
        check_order(self)

    def sweep(self, name: str) -> Sweep:
        """The sweep called ``name``."""
        for s in self.sweeps:
            if s.name == name:
                return s
        raise KeyError(f"study {self.name!r} has no sweep {name!r}")

    def with_overrides(self, overrides: Mapping[str, Any]) -> Study:
        """The same study with ``overrides`` set in every sweep's scenario (an ablation on the
        same replications). ValueError for a key a sweep varies itself."""
        for s in self.sweeps:
            for key in overrides:
                if key in keys_of(s):
                    raise ValueError(
                        f"{key}: the sweep {s.name!r} sets it itself, in the points it computes "
                        "from earlier sweeps"
                    )
                if key in s.varied():
                    values = s.axes.get(key) or s.axes_of(False).get(key) or ()
                    raise ValueError(
                        f"{key}: the sweep {s.name!r} sets it itself, to each of {tuple(values)}"
                    )
        return replace(
            self,
            sweeps=tuple(
                replace(
                    s,
                    scenario=replace(s.scenario, overrides={**s.scenario.overrides, **overrides}),
                )
                for s in self.sweeps
            ),
        )

    def with_scenario(self, source: str) -> Study:
        """The same study on another scenario file (every sweep)."""
        return replace(
            self,
            sweeps=tuple(
                replace(s, scenario=replace(s.scenario, source=source)) for s in self.sweeps
            ),
        )

    def with_replications(self, runs: int) -> Study:
        """The same study with ``runs`` replications per point in both modes."""
        return replace(
            self,
            sweeps=tuple(
                replace(s, replications=replace(s.replications, quick=runs, full=runs))
                for s in self.sweeps
            ),
        )
