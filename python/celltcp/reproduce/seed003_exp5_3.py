"""Seed `003_…` experiment 5-3 (§5.4.3): one UE driving along five LTE cells at 25–100 km/h.

``celltcp/examples/003/exp5-3.toml`` is run for NewReno, Westwood+ and PETRA at the four speeds of
Table 5.8 (overrides ``mobility.ue.speed`` and ``flows.bulk.cc``), as a third experiment of the
seed-003 reproduction (:mod:`celltcp.reproduce.seed003`), a declaration on :mod:`celltcp.study`.
This module declares what is particular to it: the sweep, the figures, the checks that the
scenario behaves as intended (handovers at the cell borders, radio link failures only beyond
the last eNB), the claims it adds to the reproduction's comparison table, each with its test,
and its own section of the report.

The seed's Fig. 5.12 (throughput per speed and controller) has no numbers in its text, only
two claims (throughput falls with speed; PETRA is highest); Table 5.9's delays and loss ratios
are copied below. Figures per run are those of experiment 5-1: throughput = IP bytes delivered
· 8 / run length (Mb/s), mean one-way delay (ms), loss = dropped / (delivered + dropped) (%).
The mapping of the set-up and the doubts about the published numbers are in docs/seed-003.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import pandas as pd

from celltcp.outputs import label
from celltcp.study import (
    AtEvery,
    Block,
    Blocks,
    Claim,
    Evaluation,
    Metric,
    Replications,
    Runs,
    Scenario,
    Section,
    Sweep,
    Table,
    Text,
    Welch,
)

if TYPE_CHECKING:
    from celltcp.reproduce.seed003 import Stat
    from celltcp.study import Results as StudyResults
    from celltcp.summary_types import HandoverEntry

#: The handover causes the study tells apart.
_A3 = label("handover_cause", "a3")
_RLF = label("handover_cause", "rlf")

__all__ = [
    "CLAIMS",
    "EXP_5_3",
    "SECTION",
    "SEED_5_9",
    "SPEEDS_KMH",
    "Check",
    "Results",
    "a3_offsets",
    "delay_note",
    "drive",
    "extreme",
    "figures_of",
    "highest_by_speed",
    "results",
    "section",
    "seed_points",
    "sweep",
    "trend",
]

#: The seed's three controllers, its TCPW being the original Westwood of ns-3.19
#: (docs/seed-003.md); Westwood+ is run beside them (:data:`CONTROLLERS`) but takes no part in
#: the seed's claims.
SEED_CONTROLLERS = ("newreno", "westwood-original", "petra")
CONTROLLERS = (*SEED_CONTROLLERS, "westwood")
LABEL = {
    "newreno": "NewReno",
    "westwood-original": "TCPW (original Westwood)",
    "petra": "PETRA",
    "westwood": "Westwood+",
}
SHORT = {"newreno": "N", "westwood-original": "T", "petra": "P", "westwood": "W+"}
#: UE speeds of Table 5.8, km/h.
SPEEDS_KMH = (25, 50, 75, 100)
#: Table 5.9: mean delay (ms) and packet loss ratio (%) at 25, 50, 75 and 100 km/h.
SEED_5_9 = {
    "newreno": {"delay": (6.90, 4.13, 3.35, 3.30), "loss": (7.37, 11.08, 30.45, 35.24)},
    "westwood-original": {"delay": (5.30, 8.82, 7.20, 7.39), "loss": (15.31, 25.11, 32.44, 40.63)},
    "petra": {"delay": (8.43, 7.80, 7.54, 7.18), "loss": (9.20, 13.01, 25.21, 30.53)},
}
#: x coordinate of each eNB in exp5-3.toml (a line layout from the origin, 250 m apart), m.
ENB_X_M = {"enb1": 0.0, "enb2": 250.0, "enb3": 500.0, "enb4": 750.0, "enb5": 1000.0}
#: The UE's start (x, under eNB1), m.
START_X_M = 0.0
#: How far past a cell border an A3 handover may be decided and still count as "at the
#: border": the 3 dB hysteresis, time-to-trigger (256 ms) and the layer-3 filter put it
#: 10–30 m past at these speeds (docs/seed-003.md), m.
BORDER_TOLERANCE_M = 50.0
#: One-way propagation of Table 5.2's wired path (20 ms + 3 ms), the floor of any delay, ms.
WIRED_FLOOR_MS = 23.0

_SPEED = "mobility.ue.speed"
_CC = "flows.bulk.cc"


#: The sweep's name: that of its run count in ``claims.json``.
EXP_5_3 = "experiment 5-3"


def _scaled(
    path: str, name: str, times: float = 1.0, per: float = 1.0, unit: str = ""
) -> tuple[Metric, Metric]:
    """A summary metric kept under its path, and the same in the seed's unit (``name``):
    times ``times`` over ``per`` (Mb/s over 1e6, not times 1e-6: the figures as the report
    has always computed them, to the last digit)."""
    return (
        Metric(path, summary=path),
        Metric(name, derived=lambda rows, _r: rows[path].astype(float) * times / per, unit=unit),
    )


def _count(cause: str) -> Callable[[pd.DataFrame, StudyResults], list[int]]:
    """Per run: its handovers of one cause."""
    return lambda rows, _r: [
        sum(h.get("cause") == cause for h in hl) for hl in rows["handovers.list"]
    ]


def sweep(seed: int, runs: Replications, duration: str) -> Sweep:
    """The sweep: every controller at every speed, ``runs`` replications of ``duration``, from
    the master seed ``seed``."""
    return Sweep(
        name=EXP_5_3,
        scenario=Scenario("003/exp5-3", {"simulation.duration": duration}),
        axes={_CC: CONTROLLERS, _SPEED: tuple(f"{v}km/h" for v in SPEEDS_KMH)},
        metrics=(
            *_scaled("flows.bulk.throughput_bps", "thr", per=1e6, unit="Mb/s"),
            *_scaled("flows.bulk.delay_mean_s", "delay", 1e3, unit="ms"),
            *_scaled("flows.bulk.loss_ratio", "loss", 100.0, unit="%"),
            *_scaled("flows.bulk.sender.timeouts", "timeouts"),
            Metric("handovers.list", summary="handovers.list"),
            Metric("simulated_time_s", summary="simulated_time_s"),
            Metric("a3", derived=_count(_A3)),
            Metric("rlf", derived=_count(_RLF)),
        ),
        replications=runs,
        seed=seed,
    )


# -- the scenario's geometry -------------------------------------------------------------------


def a3_offsets(handovers: Sequence[HandoverEntry], speed_kmh: float) -> list[float] | None:
    """Metres past the border between source and target at which each A3 handover of one run
    was decided (the UE at START_X_M + v·t); None when one of them is not to the next eNB
    along the road."""
    v = speed_kmh / 3.6
    out = []
    for h in handovers:
        if h.get("cause") != _A3:
            continue
        source, target = ENB_X_M.get(h.get("source", "")), ENB_X_M.get(h.get("target", ""))
        if source is None or target is None or not math.isclose(target - source, 250.0):
            return None
        out.append(START_X_M + v * float(h["decision_s"]) - (source + target) / 2.0)
    return out


def _rlf_positions(handovers: Sequence[HandoverEntry], speed_kmh: float) -> list[float]:
    """Where the UE was at each radio link failure of one run, m."""
    v = speed_kmh / 3.6
    return [START_X_M + v * float(h["decision_s"]) for h in handovers if h.get("cause") == _RLF]


@dataclass(frozen=True)
class Check:
    """How the scenario behaved at one speed, over every run of every controller.

    Attributes:
        speed_kmh: the UE's speed.
        end_x_m: where the UE is at the end of a run.
        a3: A3 handovers per run (mean).
        a3_ordered: every A3 handover went to the next eNB along the road.
        offset_min_m, offset_max_m: range of the A3 decisions' distance past the border.
        rlf: radio link failures per run (mean).
        first_rlf_x_m: where the earliest radio link failure of any run happened (NaN: none).
    """

    speed_kmh: int
    end_x_m: float
    a3: float
    a3_ordered: bool
    offset_min_m: float
    offset_max_m: float
    rlf: float
    first_rlf_x_m: float

    @property
    def a3_at_borders(self) -> bool:
        return self.a3_ordered and (
            self.a3 == 0 or 0.0 <= self.offset_min_m <= self.offset_max_m <= BORDER_TOLERANCE_M
        )

    @property
    def rlf_beyond_last_enb(self) -> bool:
        return self.rlf == 0 or self.first_rlf_x_m > max(ENB_X_M.values())


@dataclass(frozen=True)
class Results:
    """Experiment 5-3's figures: ``figures[cc][speed][name]`` (``thr`` Mb/s, ``delay`` ms,
    ``loss`` %, ``timeouts``, ``a3``, ``rlf`` per run) and one :class:`Check` per speed."""

    figures: dict[str, dict[int, dict[str, Stat]]]
    checks: tuple[Check, ...]
    runs: int
    duration_s: float


def _speed_of(text: str) -> int:
    value = text.strip().removesuffix("km/h").strip()
    return round(float(value))


def results(frame: pd.DataFrame) -> Results:
    """Figures and checks from the sweep's rows (successful runs only)."""
    from celltcp.reproduce.seed003 import Stat

    frame = frame.assign(_speed=frame[_SPEED].map(_speed_of))
    duration_s = float(frame["simulated_time_s"].max())
    figures: dict[str, dict[int, dict[str, Stat]]] = {}
    for cc in CONTROLLERS:
        figures[cc] = {}
        for v in SPEEDS_KMH:
            rows = frame[(frame[_CC] == cc) & (frame["_speed"] == v)]
            lists = list(rows["handovers.list"])
            figures[cc][v] = {
                "thr": Stat.of(rows["flows.bulk.throughput_bps"] / 1e6),
                "delay": Stat.of(rows["flows.bulk.delay_mean_s"] * 1e3),
                "loss": Stat.of(rows["flows.bulk.loss_ratio"] * 100.0),
                "timeouts": Stat.of(rows["flows.bulk.sender.timeouts"]),
                "a3": Stat.of([sum(h.get("cause") == _A3 for h in hl) for hl in lists]),
                "rlf": Stat.of([sum(h.get("cause") == _RLF for h in hl) for hl in lists]),
            }
    checks = []
    for v in SPEEDS_KMH:
        lists = list(frame[frame["_speed"] == v]["handovers.list"])
        offsets = [a3_offsets(hl, v) for hl in lists]
        flat = [o for run in offsets if run is not None for o in run]
        rlfs = [x for hl in lists for x in _rlf_positions(hl, v)]
        checks.append(
            Check(
                speed_kmh=v,
                end_x_m=START_X_M + v / 3.6 * duration_s,
                a3=sum(len(o) for o in offsets if o is not None) / max(len(lists), 1),
                a3_ordered=all(o is not None for o in offsets),
                offset_min_m=min(flat, default=math.nan),
                offset_max_m=max(flat, default=math.nan),
                rlf=len(rlfs) / max(len(lists), 1),
                first_rlf_x_m=min(rlfs, default=math.nan),
            )
        )
    return Results(figures, tuple(checks), int(frame["run"].nunique()), duration_s)


def highest_by_speed(
    figures: Mapping[str, Mapping[int, Mapping[str, Stat]]], name: str, lowest: bool = False
) -> dict[int, str]:
    """The seed's controller with the highest (or lowest) mean of figure ``name`` at each
    speed."""
    pick = min if lowest else max
    return {v: pick(SEED_CONTROLLERS, key=lambda c: figures[c][v][name].mean) for v in SPEEDS_KMH}


_SEED_SHORT = SHORT


def _who_at(best: Mapping[int, str], short: Mapping[str, str] = SHORT) -> str:
    return ", ".join(f"{v} km/h {short[c]}" for v, c in best.items())


def _seed_extreme(name: str, lowest: bool) -> dict[int, str]:
    """The seed's controller with the highest (or lowest) Table 5.9 value at each speed."""
    pick = min if lowest else max
    return {
        v: pick(SEED_CONTROLLERS, key=lambda c: SEED_5_9[c][name][i])
        for i, v in enumerate(SPEEDS_KMH)
    }


def _means(
    figures: Mapping[str, Mapping[int, Mapping[str, Stat]]], name: str
) -> dict[str, list[float]]:
    return {c: [figures[c][v][name].mean for v in SPEEDS_KMH] for c in CONTROLLERS}


def _arrows(values: Sequence[float], digits: int) -> str:
    return " → ".join(f"{x:.{digits}f}" for x in values)


def _span(values: Sequence[float], digits: int) -> str:
    """The range of ``values`` as "low–high", for a reason that quotes the measured figures."""
    finite = [x for x in values if not math.isnan(x)]
    if not finite:
        return "–"
    return f"{min(finite):.{digits}f}–{max(finite):.{digits}f}"


def _per_controller(series: Mapping[str, Sequence[float]], digits: int, seed: bool = False) -> str:
    short = _SEED_SHORT if seed else SHORT
    return " / ".join(
        f"{short[c]} {_arrows(series[c], digits)}" for c in CONTROLLERS if c in series
    )


def seed_points(
    figures: Mapping[str, Mapping[int, Mapping[str, Stat]]], name: str
) -> tuple[tuple[float, float], ...]:
    """(celltcp's mean, Table 5.9's value) of figure ``name`` for each of the seed's
    controllers at each speed: the points whose magnitudes the claim's row judges."""
    return tuple(
        (figures[c][v][name].mean, SEED_5_9[c][name][i])
        for c in SEED_CONTROLLERS
        for i, v in enumerate(SPEEDS_KMH)
    )


#: Speeds at which the seed's Table 5.9 has PETRA's delay the longest (its text: "some").
SEED_PETRA_LONGEST_DELAY_KMH = (25, 75)


# -- claims ------------------------------------------------------------------------------------


def drive(cc: str, speed_kmh: int) -> Runs:
    """The runs of one controller at one speed."""
    return Runs(EXP_5_3, {_CC: cc, _SPEED: f"{speed_kmh}km/h"}, label=f"{SHORT[cc]} {speed_kmh}")


def trend(metric: str, rising: bool = False) -> AtEvery:
    """The claim that ``metric`` falls (or rises) from each speed to the next for every one of
    the seed's controllers: Welch's t-test at each step, all of which must hold."""
    return AtEvery(
        {
            f"{SHORT[c]} {a}→{b}": Welch(metric, drive(c, b), drive(c, a), ">" if rising else "<")
            for c in SEED_CONTROLLERS
            for a, b in itertools.pairwise(SPEEDS_KMH)
        }
    )


def extreme(
    metric: str, who: str, speeds: Sequence[int] = SPEEDS_KMH, lowest: bool = False
) -> AtEvery:
    """The claim that ``who`` has the highest (or lowest) ``metric`` at each of ``speeds``:
    Welch's t-test against each other of the seed's controllers there, all of which must hold."""
    relation: Literal[">", "<"] = "<" if lowest else ">"
    return AtEvery(
        {
            f"{v} km/h {SHORT[who]} {relation} {SHORT[o]}": Welch(
                metric, drive(who, v), drive(o, v), relation
            )
            for v in speeds
            for o in SEED_CONTROLLERS
            if o != who
        }
    )


def _figures(found: StudyResults) -> dict[str, dict[int, dict[str, Stat]]]:
    return figures_of(found).figures


def figures_of(found: StudyResults) -> Results:
    """Experiment 5-3's figures and checks on a study's results."""
    return results(found.frames[EXP_5_3])


Figures = dict[str, dict[int, dict[str, "Stat"]]]


def _words(make: Callable[[Figures], str]) -> Callable[[Evaluation, StudyResults], str]:
    """A claim's "ours" cell or reason: words on experiment 5-3's figures."""
    return lambda _e, found: make(_figures(found))


def _text(text: str) -> Callable[[Evaluation, StudyResults], str]:
    return lambda _e, _found: text


def _points(name: str) -> Callable[[Evaluation, StudyResults], tuple[tuple[float, float], ...]]:
    return lambda _e, found: seed_points(_figures(found), name)


def _none(_e: Evaluation, _results: StudyResults) -> None:
    return None


_TCPW = "westwood-original"


def _timeout_ratios(f: Mapping[str, Mapping[int, Mapping[str, Stat]]]) -> list[float]:
    """PETRA's timeouts over NewReno's at each speed (where NewReno has any)."""
    timeouts = _means(f, "timeouts")
    return [p / n for p, n in zip(timeouts["petra"], timeouts["newreno"]) if n > 0]


#: The claims of Fig. 5.12 and Table 5.9, each decided by Welch's t-tests on the runs.
CLAIMS = (
    Claim(
        "Fig. 5.12 falls",
        "Fig. 5.12",
        "throughput falls with speed (Mb/s at 25 → 100 km/h)",
        trend("thr"),
        source_text="yes (figure only, no numbers in the text)",
        estimate=_none,
        detail=_words(lambda f: _per_controller(_means(f, "thr"), 2)),
        reason=_words(
            lambda f: (
                f"the original Westwood is stuck at {_span(_means(f, 'thr')[_TCPW], 2)} "
                "Mb/s whatever the speed (its per-ACK samples read the bursts of ACKs of one "
                "transport block, and its bursts overflow the 10 KiB RLC buffer and the remote "
                f"host's 100-packet queue: {_span(_means(f, 'loss')[_TCPW], 0)} % of its packets "
                "lost)"
            )
        ),
        shortfall=False,
    ),
    Claim(
        "Fig. 5.12 PETRA highest",
        "Fig. 5.12",
        "PETRA has the highest throughput (every speed)",
        extreme("thr", "petra"),
        source_text="yes, at every speed",
        estimate=lambda e, _r: e.parts["100 km/h P > N"].estimate,
        detail=_words(lambda f: "P/N at 100 km/h; highest: " + _who_at(highest_by_speed(f, "thr"))),
        reason=_words(
            lambda f: (
                "NewReno leads at every speed: PETRA loses "
                f"{_span(_means(f, 'loss')['petra'], 1)} % of its packets (NewReno "
                f"{_span(_means(f, 'loss')['newreno'], 1)} %) and has "
                f"{_span(_timeout_ratios(f), 1)} times its timeouts: it overflows the "
                "10 KiB RLC buffer, under half its pipe, and the remote host's queue, which "
                "drains in under 5 ms, so that the overflows come with little queued and are "
                "taken for radio losses (docs/petra.md)"
            )
        ),
        digits=2,
        shortfall=False,
    ),
    Claim(
        "5.9 loss rises",
        "5.9",
        "loss (%) rises with speed",
        trend("loss", rising=True),
        source_text=_per_controller(
            {c: list(SEED_5_9[c]["loss"]) for c in SEED_CONTROLLERS}, 2, seed=True
        ),
        estimate=_none,
        detail=_words(lambda f: _per_controller(_means(f, "loss"), 2)),
        reason=_words(
            lambda f: (
                "the original Westwood's overflows "
                f"({_span(_means(f, 'loss')[_TCPW], 0)} % of its packets) dominate its losses and "
                "fall with speed; out of coverage a TCP sender backs off instead of losing packets"
            )
        ),
        points=_points("loss"),
        shortfall=False,
    ),
    Claim(
        "5.9 PETRA lowest loss",
        "5.9",
        "PETRA has the lowest loss (text: in all experiments)",
        extreme("loss", "petra", lowest=True),
        source_text="lowest: " + _who_at(_seed_extreme("loss", lowest=True), _SEED_SHORT),
        estimate=_none,
        detail=_words(lambda f: "lowest: " + _who_at(highest_by_speed(f, "loss", lowest=True))),
        reason=_words(
            lambda f: (
                "PETRA overflows the RLC buffer, under half its pipe, and the remote "
                "host's queue (docs/petra.md); NewReno hardly does "
                f"({_span(_means(f, 'loss')['newreno'], 1)} % lost)"
            )
        ),
        points=_points("loss"),
        shortfall=False,
    ),
    Claim(
        "5.9 PETRA longest delays",
        "5.9",
        'PETRA has the longest delays (text: "some"; the seed\'s table: 25 and 75 km/h)',
        extreme("delay", "petra", SEED_PETRA_LONGEST_DELAY_KMH),
        source_text="highest: " + _who_at(_seed_extreme("delay", lowest=False), _SEED_SHORT),
        estimate=_none,
        detail=_words(lambda f: "highest: " + _who_at(highest_by_speed(f, "delay"))),
        reason=_text(
            "the original Westwood keeps the RLC buffer fullest; the others lie within 1 ms "
            "of each other"
        ),
        points=_points("delay"),
        shortfall=False,
    ),
)


def delay_note(res: Results) -> str:
    """Why Table 5.9's delay values are not compared."""
    floor_ms = min(min(v) for v in _means(res.figures, "delay").values())
    return (
        f"Table 5.9's delay values are **not comparable**: every one of them (3.3–8.8 ms) is "
        f"below the {WIRED_FLOOR_MS:.0f} ms one-way propagation of Table 5.2's wired path; "
        f"celltcp's lowest is {floor_ms:.1f} ms."
    )


# -- the report section ------------------------------------------------------------------------


def _check_rows(res: Results) -> tuple[tuple[str, ...], ...]:
    rows = []
    for c in res.checks:
        offsets = (f"{c.offset_min_m:.0f}–{c.offset_max_m:.0f}" if c.a3 else "–") + (
            "" if c.a3_ordered else " (out of order)"
        )
        rows.append(
            (
                f"{c.speed_kmh}",
                f"{c.end_x_m:.0f}",
                f"{c.a3:g}",
                offsets,
                f"{c.rlf:g}",
                f"{c.first_rlf_x_m:.0f}" if c.rlf else "–",
            )
        )
    return tuple(rows)


def _check_verdicts(res: Results) -> tuple[str, ...]:
    borders = [c.speed_kmh for c in res.checks if not c.a3_at_borders]
    inside = [c.speed_kmh for c in res.checks if not c.rlf_beyond_last_enb]
    with_rlf = [c.speed_kmh for c in res.checks if c.rlf]
    return (
        "**A3 handovers at the cell borders**: "
        + (
            "yes at every speed, each to the next eNB along the road, "
            f"0–{BORDER_TOLERANCE_M:.0f} m past the border"
            if not borders
            else f"**no** at {', '.join(map(str, borders))} km/h"
        ),
        "**radio link failures only beyond the last eNB** (x > 1000 m): "
        + ("yes" if not inside else f"**no** at {', '.join(map(str, inside))} km/h"),
        "speeds with radio link failures: "
        + (", ".join(f"{v} km/h" for v in with_rlf) if with_rlf else "none")
        + " (the UE's end position decides: coverage ends about 800 m past eNB5)",
    )


def section(res: Results) -> list[Block]:
    """The report's experiment 5-3 section, as blocks of a study's layout."""
    f = res.figures
    fig_rows = []
    best = highest_by_speed(f, "thr")
    for v in SPEEDS_KMH:
        fig_rows.append(
            (
                f"{v}",
                *(f[c][v]["thr"].text(2) for c in CONTROLLERS),
                LABEL[best[v]],
            )
        )
    t59 = []
    for i, v in enumerate(SPEEDS_KMH):
        for cc in CONTROLLERS:
            x = f[cc][v]
            seed = SEED_5_9.get(cc)
            t59.append(
                (
                    f"{v}",
                    LABEL[cc],
                    f"{seed['delay'][i]:g}" if seed else "",
                    x["delay"].text(2),
                    f"{seed['loss'][i]:g}" if seed else "",
                    x["loss"].text(2),
                    x["timeouts"].text(1),
                    x["a3"].text(1),
                    x["rlf"].text(1),
                )
            )
    return [
        Section("Experiment 5-3 (one UE along five cells; Fig. 5.12, Table 5.9)"),
        Text(
            f"`celltcp/examples/003/exp5-3.toml`, {res.duration_s:g} s per run, {res.runs} "
            f"replication{'s' if res.runs != 1 else ''} per point: the UE starts under eNB1 and "
            "drives along the line of five eNBs (250 m apart) at 25, 50, 75 or 100 km/h; A3 "
            "handovers with X2 forwarding, radio link monitoring with T310 = 1 s."
        ),
        Section("Is the scenario what it should be?", 3),
        Table(
            "",
            (
                "km/h",
                "UE at the end (m)",
                "A3 handovers per run",
                "decided past the border (m)",
                "radio link failures per run",
                "first failure at (m)",
            ),
            lambda _r: _check_rows(res),
        ),
        *[Text(text) for text in _check_verdicts(res)],
        Section("Fig. 5.12: throughput per speed and controller (Mb/s)", 3),
        Text("The seed's figure is not in its text; its claims are in the table above."),
        Table("", ("km/h", *(LABEL[c] for c in CONTROLLERS), "highest"), lambda _r: fig_rows),
        Section("Table 5.9: delay and loss", 3),
        Table(
            "",
            (
                "km/h",
                "TCP",
                "seed delay ms",
                "delay ms",
                "seed loss %",
                "loss %",
                "timeouts",
                "A3 handovers",
                "radio link failures",
            ),
            lambda _r: t59,
        ),
        Text(delay_note(res)),
    ]


#: The report's experiment 5-3 section, on a study's results.
SECTION: tuple[Block, ...] = (Blocks(lambda found: section(figures_of(found))),)
