"""``celltcp.run``: run a scenario from Python."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from celltcp import _core
from celltcp.errors import scenario_error
from celltcp.scenario import Scenario, toml_value

if TYPE_CHECKING:
    # pandas and pyarrow, imported when a result is made.
    from celltcp.result import RunResult

__all__ = ["as_scenario", "parse_overrides", "run"]

ScenarioLike = Union[Scenario, str, "os.PathLike[str]"]
#: ``{"key": value}``, or ``"key=value"`` strings and ``(key, value)`` pairs.
Overrides = Union[Mapping[str, Any], Iterable[Union[str, "tuple[str, Any]"]], None]  # noqa: UP007


def _override_text(key: str, value: Any) -> str:
    """The text form of an override value, as it would be written after ``--set key=``.

    A string is that text itself (``"10Mbps"``, ``"['cwnd']"``), read by the core as ``--set``
    reads it; any other value TOML can hold (a number, a boolean, a list, a dict, a date) is
    written as inline TOML by the core (:func:`celltcp.scenario.toml_value`), so that
    ``run(set={k: v})`` accepts every value ``Scenario.set(k, v)`` does and means the same by it.
    """
    if isinstance(value, str):
        return value
    return toml_value(value, key)


def parse_overrides(overrides: Overrides, *, origin: str = "set") -> list[tuple[str, str]]:
    """Normalises overrides to ``[(dotted_key, value_text)]``: the one parser of ``--set``,
    ``run(set=...)`` and, for its keys, ``Scenario.set``.

    Accepts a mapping ``{"links.access.rate": "10Mbps", "trace.queues": ["access"]}``, or an
    iterable of strings ``"links.access.rate=10Mbps"`` (split at the first ``=``) or of
    ``(key, value)`` pairs. Keys are checked where they are applied, by the core's one rule for
    dotted keys (docs/scenarios.md). A string without ``=`` raises ScenarioError whose key is
    ``origin`` followed by the offending text.
    """
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        items: list[tuple[Any, Any]] = list(overrides.items())
    elif isinstance(overrides, str):
        raise scenario_error(origin, "overrides are a dict or a list of 'key=value' strings")
    else:
        items = []
        for item in overrides:
            if isinstance(item, tuple) and len(item) == 2:
                items.append(item)
                continue
            key, sep, value = str(item).partition("=")
            if not sep or not key.strip():
                raise scenario_error(
                    f"{origin} {item!r}", "expected KEY=VALUE, e.g. links.access.rate=10Mbps"
                )
            items.append((key.strip(), value.strip()))
    pairs = []
    for key, value in items:
        if not isinstance(key, str):
            raise scenario_error(
                f"{origin} {key!r}", "a key is a dotted path such as flows.video.rate"
            )
        pairs.append((key, _override_text(key, value)))
    return pairs


def as_scenario(scenario: ScenarioLike) -> Scenario:
    """A Scenario from a Scenario, a path, or TOML text.

    A ``str`` is taken as a path when it has no line break and ends in ``.toml`` or names an
    existing file; otherwise it is TOML text.
    """
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, os.PathLike):
        return Scenario.load(scenario)
    if isinstance(scenario, str):
        looks_like_path = "\n" not in scenario and (
            scenario.endswith(".toml") or Path(scenario).is_file()
        )
        return Scenario.load(scenario) if looks_like_path else Scenario.from_toml(scenario)
    raise TypeError(f"expected a Scenario, a path or TOML text, not {type(scenario).__name__}")


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    run: int = 0,
    set: Overrides = None,
    capture: str | Iterable[str] | None = None,
    capture_dir: str | os.PathLike[str] | None = None,
    keep_partial: bool = False,
    progress: Callable[[float, float, int], bool | None] | None = None,
    on_interval: Callable[[dict[str, Any]], bool | None] | None = None,
    interval: str | None = None,
) -> RunResult:
    """Runs a scenario and returns its :class:`RunResult`.

    Args:
        scenario: a :class:`Scenario`, a path to a scenario file, or TOML text.
        seed: master seed; overrides ``simulation.seed``.
        run: replication number; each run number draws independent random streams.
        set: overrides by dotted key, a dict or a list of ``"key=value"`` strings.
        capture: name(s) to capture into ``capture_dir``: a link to ``<link>.pcap``; a cell to
            ``<cell>.pcapng`` (IP packets per UE) and ``<cell>.mac-lte.pcap`` (MAC PDUs for
            Wireshark's mac-lte dissector); a dedicated channel to ``<dch>.pcapng``
            (docs/captures.md in the documentation).
        capture_dir: existing directory for pcap files (required with ``capture``).
        keep_partial: on Ctrl-C (SIGINT), return what was simulated until then, with the
            summary's ``stop_reason`` ``"interrupted"``, instead of raising KeyboardInterrupt.
            The engine looks for signals at least every 100 ms of wall time either way.
        progress: called about every 50 ms of wall time with ``(simulated_s, end_s, events)``:
            the simulated time reached, the run's end and the events handled so far (e.g.
            :class:`celltcp.progress.RunProgressLine`, or a notebook's own display). Returning
            ``False`` ends the run there: the result holds what was simulated, with
            ``stop_reason`` ``"stopped"``; an exception it raises ends the run with that
            exception. Calls cost about a microsecond each (one every 50 ms).
        on_interval: called at every multiple of ``interval`` of simulated time (and at the end
            when it falls on one) with the figures of the interval that ends there, a dict::

                {"start_s": 0.9, "end_s": 1.0,
                 "flows": {NAME: {"goodput_bps", "throughput_bps",
                                  "cwnd_bytes", "srtt_s", "retransmissions"}},   # TCP
                 "cells": {NAME: {"throughput_bps", "prb_utilization", "queue_bytes"}},
                 "queues": {"LINK.a_to_b": {"packets", "bytes", "drops", "throughput_bps"}}}

            Rates are over the interval, ``cwnd_bytes``/``srtt_s``/``packets``/``bytes``/
            ``queue_bytes`` are the values at its end, ``retransmissions`` and ``drops`` count
            the interval's. Returning ``False`` ends the run there, with ``stop_reason``
            ``"stopped"``; an exception it raises ends the run with that exception. The results
            are those of the same run without the callback (docs/cli.md, "Watching a run",
            states the cost).
        interval: simulated time between two ``on_interval`` calls, e.g. ``"100ms"``.

    Raises:
        ScenarioError: bad input; the exception names the key.
        SimulationError: a failure inside the simulator (a bug).
        KeyboardInterrupt: Ctrl-C during the run, unless ``keep_partial``.
    """
    sc = as_scenario(scenario)
    overrides = parse_overrides(set)
    links = [capture] if isinstance(capture, str) else list(capture or [])
    if seed is not None and (not isinstance(seed, int) or seed < 0):
        raise scenario_error("seed", f"{seed!r} is not an integer >= 0")
    if not isinstance(run, int) or run < 0:
        raise scenario_error("run", f"{run!r} is not an integer >= 0")
    if links and capture_dir is None:
        raise scenario_error("capture", "capture_dir is needed to write pcap files")
    if on_interval is not None and not callable(on_interval):
        raise scenario_error("on_interval", f"{on_interval!r} is not callable")
    if interval is not None and not isinstance(interval, str):
        raise scenario_error("interval", f"{interval!r} is not a time such as '100ms'")
    watch = None
    if on_interval is not None:
        import json

        def watch(text: str) -> bool | None:
            return on_interval(json.loads(text))

    raw = _core.run(
        sc._doc,
        overrides,
        seed,
        run,
        None if capture_dir is None else os.fspath(capture_dir),
        links,
        sc.base_dir,
        bool(keep_partial),
        progress,
        watch,
        interval,
    )
    from celltcp.result import RunResult

    return RunResult._from_core(raw)
