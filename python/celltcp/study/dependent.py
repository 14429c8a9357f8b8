"""Sweeps whose points depend on earlier sweeps' results: :class:`After`.

Some set-ups are known only once other runs have been made: handovers placed at phases of a
loss-driven sawtooth whose period a run without a handover measures first, a threshold found
by one sweep and probed around by the next. ``Sweep(..., points=After(needs, points, keys))``
declares such a sweep: ``points`` is a function of the results of the sweeps named in
``needs``, which must be declared before it, and ``keys`` are the dotted keys its points may
set (known before anything runs, so that :meth:`celltcp.study.Study.with_overrides` can refuse
an override of one of them).

Call-order contract: the engine (:func:`celltcp.study.run`) runs the sweeps in declaration
order; before a sweep with :class:`After` points it calls ``points`` with a
:class:`~celltcp.study.Results` holding exactly the sweeps run so far (their summary and
series metrics, not the derived ones, which are computed once every sweep has run), and
replaces the sweep by one with the returned explicit points (:func:`resolve`). From then on the
sweep is an ordinary sweep of explicit points: its report, its axes and its store keys are
those of the points computed. Since every run is a function of its resolved scenario, the
points computed, hence the whole study, are as deterministic as the runs they are read from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from celltcp.study.declaration import Study, Sweep
    from celltcp.study.engine import Results

__all__ = ["After", "check_order", "resolve"]


@dataclass(frozen=True)
class After:
    """The points of a sweep, computed from the results of sweeps that ran before it.

    Attributes:
        needs: the sweeps whose results ``points`` reads; each declared before this one.
        points: results → the explicit points (dotted key → value) in run order; the results
            hold the sweeps run so far.
        keys: every dotted key the points may set; a point setting another is refused.
    """

    needs: tuple[str, ...]
    points: Callable[[Results], Sequence[Mapping[str, Any]]]
    keys: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.needs:
            raise ValueError("After: name the sweeps the points are computed from (needs=)")
        if not self.keys:
            raise ValueError("After: name the keys the computed points set (keys=)")

    def compute(self, sweep: str, results: Results) -> list[dict[str, Any]]:
        """The points for ``sweep``; ValueError when one sets a key outside :attr:`keys` or
        when there are none."""
        points = [dict(p) for p in self.points(results)]
        if not points:
            raise ValueError(f"sweep {sweep!r}: its points, computed from {self.needs}, are none")
        allowed = set(self.keys)
        for i, p in enumerate(points):
            extra = sorted(set(p) - allowed)
            if extra:
                raise ValueError(
                    f"sweep {sweep!r}: computed point {i} sets {', '.join(extra)}, not among "
                    f"its declared keys {self.keys}"
                )
        return points


def _dependent(sweep: Sweep) -> list[After]:
    return [p for p in (sweep.points, sweep.quick_points) if isinstance(p, After)]


def check_order(study: Study) -> None:
    """ValueError when an :class:`After` needs a sweep that is not declared before it."""
    earlier: set[str] = set()
    for s in study.sweeps:
        for after in _dependent(s):
            missing = [n for n in after.needs if n not in earlier]
            if missing:
                raise ValueError(
                    f"study {study.name!r}: sweep {s.name!r} needs {', '.join(map(repr, missing))}"
                    ", which is not a sweep declared before it"
                )
        earlier.add(s.name)


def keys_of(sweep: Sweep) -> set[str]:
    """The keys the sweep's computed points may set (empty for a sweep without them)."""
    return {k for after in _dependent(sweep) for k in after.keys}


def resolve(sweep: Sweep, results: Results) -> Sweep:
    """The sweep with the mode's :class:`After` points computed from ``results`` (the sweeps
    run so far), as explicit points; the sweep itself when its points are not computed."""
    chosen = (
        sweep.quick_points if results.quick and sweep.quick_points is not None else sweep.points
    )
    if not isinstance(chosen, After):
        if not _dependent(sweep):
            return sweep
        # The other mode's points are computed: this mode's are explicit already.
        return replace(sweep, points=tuple(chosen), quick_points=None)
    return replace(sweep, points=tuple(chosen.compute(sweep.name, results)), quick_points=None)
