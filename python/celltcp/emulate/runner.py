"""One emulation from start to end: check the scenario and the hosts, open the session, start
the programs, run the engine in real time, stop the programs, tear down.

Everything that can be judged without touching the system (the scenario, the host names, the
options) is judged first, so a mistake creates nothing.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from celltcp import _core
from celltcp.emulate import privileges, registry
from celltcp.emulate.errors import EmulationError, RealTimeError
from celltcp.emulate.programs import ExecSpec, ProgramResult, Programs
from celltcp.emulate.session import EmulationSession
from celltcp.errors import SimulationError, scenario_error
from celltcp.runner import Overrides, ScenarioLike, as_scenario, parse_overrides

if TYPE_CHECKING:
    # pandas and pyarrow, imported when a result is made.
    from celltcp.result import RunResult

__all__ = [
    "EmulationRun",
    "Engine",
    "Priority",
    "attachable_hosts",
    "core_engine",
    "emulate",
    "parse_priority",
]

#: ``engine(attachments, stop_fd) -> raw result`` (``_core.emulate`` with the scenario bound).
Engine = Callable[[list[tuple[str, int]], int], Mapping[str, Any]]

#: Default of ``max_lag``, seconds: how far the engine may fall behind the wall clock.
DEFAULT_MAX_LAG_S = 0.1
#: Default MTU of the TUN devices, bytes: Ethernet's (RFC 894), so real stacks choose the
#: 1460-byte MSS they would use on most paths.
DEFAULT_MTU = 1500

#: How the engine's loop is scheduled: ``"auto"`` (SCHED_FIFO at priority 10 when the process
#: may use it, else the default scheduler), ``"off"`` (the default scheduler), or a SCHED_FIFO
#: priority from 1 to 99 (the run fails with OSError when it may not be had).
Priority = str | int


def parse_priority(value: Priority) -> str | int:
    """The core's ``priority`` option for ``value``: ``"auto"``, 0 (``"off"``) or 1 to 99;
    raises ScenarioError (key ``--priority``) for anything else."""
    text = str(value).strip().lower()
    if text == "auto":
        return "auto"
    if text in ("off", "0"):
        return 0
    if text.isdigit() and 1 <= int(text) <= 99:
        return int(text)
    raise scenario_error(
        "--priority", f"{value!r} is not auto, off or a SCHED_FIFO priority from 1 to 99"
    )


def attachable_hosts(resolved: Mapping[str, Any], hosts: Sequence[str]) -> dict[str, str]:
    """``{host: IPv4 address}`` for the named hosts of a resolved scenario; raises ScenarioError
    (key ``--host``) for an unknown name, a node that is not a host, or a repeated name."""
    nodes = resolved.get("nodes") or {}
    if not hosts:
        raise scenario_error("--host", "name at least one host to attach, e.g. --host ue")
    out: dict[str, str] = {}
    known = sorted(n for n, node in nodes.items() if node.get("kind") == "host")
    for host in hosts:
        if host in out:
            raise scenario_error(f"--host {host}", "named twice")
        node = nodes.get(host)
        if node is None:
            raise scenario_error(
                f"--host {host}", f"no such node in the scenario (hosts: {', '.join(known)})"
            )
        if node.get("kind") != "host":
            raise scenario_error(
                f"--host {host}",
                f"is a {node.get('kind')}, only hosts can be attached (hosts: {', '.join(known)})",
            )
        address = node.get("address")
        if not isinstance(address, str):
            raise scenario_error(f"nodes.{host}.address", "the host has no IPv4 address")
        out[host] = address
    return out


def core_engine(
    document: _core.Document,
    overrides: list[tuple[str, str]],
    options: Mapping[str, Any],
) -> Engine:
    """The compiled engine with the scenario bound; raises EmulationError when this build of
    the core has no emulation.

    A descriptor failing under the engine (an ``OSError`` naming the host) is not the user's
    doing: it becomes a SimulationError, reported as an internal error.
    """
    core_emulate = getattr(_core, "emulate", None)
    if core_emulate is None:
        raise EmulationError(
            "this build of celltcp has no real-time engine (celltcp._core.emulate is missing); "
            "rebuild it with 'make build'"
        )

    def engine(attachments: list[tuple[str, int]], stop_fd: int) -> Mapping[str, Any]:
        try:
            figures: Mapping[str, Any] = core_emulate(
                document, list(overrides), attachments, stop_fd, dict(options)
            )
            return figures
        except OSError as e:
            raise SimulationError(f"emulation failed: {e.filename or ''}: {e.strerror or e}") from e
        except SimulationError as e:
            recognised = RealTimeError.recognise(e)
            if recognised is e:
                raise
            raise recognised from e

    return engine


@dataclass
class EmulationRun:
    """The outcome of one emulation.

    Attributes:
        result: the run's summary, tables and series, as for a simulation.
        emulation: the engine's real-time figures (lag, timing error, packets in and out, the
            real TCP connections seen on the path).
        programs: how each ``--exec`` program ended, in the order given.
        hosts: the attached hosts with their namespaces, devices and addresses.
        stopped_by: ``"duration"``, ``"programs"`` (all exited) or a signal name.
        wall_s: seconds from the engine's start to its end; setup_s, teardown_s likewise.
        teardown_errors: problems met while removing namespaces and devices (normally none).
    """

    result: RunResult
    emulation: dict[str, Any]
    programs: list[ProgramResult]
    hosts: dict[str, registry.HostEntry]
    stopped_by: str
    wall_s: float
    setup_s: float
    teardown_s: float = 0.0
    mtu: int = DEFAULT_MTU
    teardown_errors: list[str] = field(default_factory=list)

    @property
    def programs_ok(self) -> bool:
        """True when every program exited with status 0 by itself."""
        return all(p.ok and not p.stopped for p in self.programs)

    def to_json(self) -> dict[str, Any]:
        """The content of ``emulation.json``."""
        return {
            "engine": self.emulation,
            "hosts": {
                name: {"namespace": h.namespace, "device": h.device, "address": h.address}
                for name, h in self.hosts.items()
            },
            "mtu_bytes": self.mtu,
            "programs": [p.to_json() for p in self.programs],
            "stopped_by": self.stopped_by,
            "wall_s": self.wall_s,
            "setup_s": self.setup_s,
            "teardown_s": self.teardown_s,
            "teardown_errors": self.teardown_errors,
        }


def _stop_reason(session: EmulationSession, programs: Programs, raw: Mapping[str, Any]) -> str:
    """Why the engine returned: a stop signal, the programs' exit (both through the stop
    descriptor), or the end of the duration."""
    if session.signals:
        return signal.Signals(session.signals[0]).name
    report = raw.get("emulation")
    stopped_early = report.get("stopped_early", True) if isinstance(report, Mapping) else True
    if stopped_early and programs.all_exited.is_set():
        return "programs"
    return "duration"


def emulate(
    scenario: ScenarioLike,
    hosts: Sequence[str],
    *,
    set: Overrides = None,
    seed: int | None = None,
    run: int = 0,
    duration: float | None = None,
    pcap: str | os.PathLike[str] | None = None,
    max_lag: float = DEFAULT_MAX_LAG_S,
    execs: Iterable[ExecSpec] = (),
    mtu: int = DEFAULT_MTU,
    priority: Priority = "auto",
    registry_dir: Path = registry.RUN_DIR,
    engine: Callable[
        [_core.Document, list[tuple[str, str]], Mapping[str, Any]], Engine
    ] = core_engine,
) -> EmulationRun:
    """Runs ``scenario`` in real time with ``hosts`` attached to network namespaces.

    Args:
        scenario: a Scenario, a path or TOML text; ``celltcp shell`` finds the emulation by the
            scenario's file, so a scenario without a file cannot be reached by it.
        hosts: scenario hosts to attach (at least one).
        set: overrides, as for :func:`celltcp.run`.
        seed, run: master seed (None: the scenario's) and replication number of the simulated
            parts (the scenario's flows, channels); the real programs bring their own timing.
        duration: seconds of real time (None: the scenario's ``simulation.duration``).
        pcap: file for a capture of the real packets entering and leaving the path.
        max_lag: seconds the engine may fall behind real time before it gives up.
        execs: programs to run in the namespaces; the emulation ends once all have exited.
        mtu: MTU of the TUN devices, bytes.
        priority: scheduling of the engine's loop (see :data:`Priority`).
        engine: builds the engine from (TOML text, overrides, options); the compiled one by
            default, a stand-in in tests.

    Raises:
        ScenarioError: bad scenario, override or host name (nothing created).
        EmulationError: missing privileges or a failed set-up step (everything created removed).
        RealTimeError: the engine fell behind real time (a SimulationError).
        SimulationError: any other failure inside the engine.
        Interrupted: a stop signal during set-up (everything created removed).
    """
    sc = as_scenario(scenario)
    overrides = parse_overrides(set)
    resolved = sc.validate(overrides)
    addresses = attachable_hosts(resolved, list(hosts))
    specs = list(execs)
    for spec in specs:
        if spec.host not in addresses:
            raise scenario_error(
                f"--exec {spec.host}",
                f"the host is not attached (attached: {', '.join(addresses)})",
            )
    if duration is not None and not duration > 0:
        raise scenario_error("--duration", f"{duration!r} must be a positive number of seconds")
    if not max_lag > 0:
        raise scenario_error("--max-lag", f"{max_lag!r} must be a positive number of seconds")
    core_priority = parse_priority(priority)
    privileges.check()
    if seed is not None and (not isinstance(seed, int) or seed < 0):
        raise scenario_error("seed", f"{seed!r} is not an integer >= 0")
    if not isinstance(run, int) or run < 0:
        raise scenario_error("run", f"{run!r} is not an integer >= 0")
    options = {
        "duration": duration,
        "pcap": None if pcap is None else os.path.abspath(pcap),
        "max_lag": float(max_lag),
        "seed": seed,
        "run": run,
        "priority": core_priority,
        # Relative file references (trace files) resolve against the scenario file's directory.
        "base_dir": sc.base_dir,
    }
    # The document the scenario was parsed into, not its text: the core parses nothing again.
    run_engine = engine(sc._doc, overrides, options)
    started = time.monotonic()
    names = {
        name: node["address"]
        for name, node in (resolved.get("nodes") or {}).items()
        if isinstance(node.get("address"), str)
    }
    session = EmulationSession(
        addresses, scenario=sc.source, mtu=mtu, names=names, registry_dir=registry_dir
    )
    with session:
        setup_s = time.monotonic() - started
        programs = Programs(session, specs)
        programs.start()
        began = time.monotonic()
        try:
            raw = session.run(run_engine)
            # Judged before finish(): stopping the programs makes them exit too.
            stopped_by = _stop_reason(session, programs, raw)
        finally:
            wall_s = time.monotonic() - began
            # Programs first (they are ours to stop and report); namespaces go at __exit__.
            program_results = programs.finish()
        closing = time.monotonic()
    teardown_s = time.monotonic() - closing
    emulation = dict(raw.get("emulation") or {})
    return EmulationRun(
        result=_result(raw),
        emulation=emulation,
        programs=program_results,
        hosts=dict(session.registration.hosts),
        stopped_by=stopped_by,
        wall_s=wall_s,
        setup_s=setup_s,
        teardown_s=teardown_s,
        mtu=mtu,
        teardown_errors=list(session.teardown_errors),
    )


def _result(raw: Mapping[str, Any]) -> RunResult:
    from celltcp.result import RunResult

    return RunResult._from_core(raw)
