"""An emulation session: namespaces, TUN devices, signals and registry, set up and torn down as
one context manager.

Set-up order (each step registers its undo before the next begins, and teardown runs the undos
in reverse order, in ``__exit__``, whether the body returned, raised, or was interrupted):

1. privileges checked (nothing is created without them);
2. a stop pipe; SIGINT, SIGTERM and SIGHUP handled by this session and
   ``signal.set_wakeup_fd`` pointed at the pipe's write end, so a signal makes the pipe
   readable even while the engine runs in Rust with the GIL released (Python runs its own
   signal handlers only between bytecodes; the C-level handler writes the wakeup byte at once);
3. the registry file naming every namespace and device about to be created;
4. per host: namespace, its /etc/hosts and resolv.conf, IPv6 off, TUN device, moved into the
   namespace, configured;
5. programs started with :meth:`EmulationSession.spawn` (and, from outside, by ``celltcp shell``,
   which records each in the registry; teardown stops those first).

Signals: during set-up a signal is recorded and honoured at the next step boundary (after the
step's undo is registered, so nothing created escapes teardown) by raising :class:`Interrupted`
(a ``KeyboardInterrupt``); between set-up and the engine it raises at once. While the engine
runs (:meth:`EmulationSession.run`) a signal only stops it — the engine returns its results
normally — and from then on, and during teardown, signals are only recorded, so a second
Ctrl-C can neither lose the results nor leave a namespace behind.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from celltcp.emulate import cleanup, netns, privileges, registry
from celltcp.emulate.errors import EmulationError
from celltcp.emulate.tun import TunDevice, open_tun

__all__ = ["STOP_SIGNALS", "Attachment", "EmulationSession", "Interrupted", "environment"]

#: Signals that end an emulation cleanly.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: Seconds a spawned program gets between SIGTERM and SIGKILL at teardown.
_GRACE_S = 2.0

T = TypeVar("T")


class Interrupted(KeyboardInterrupt):
    """A stop signal arrived while no engine was running; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass
class Attachment:
    """One scenario host attached to a namespace through a TUN device."""

    host: str
    address: str
    namespace: str
    device: TunDevice


def environment(hosts: Mapping[str, str], host: str, pid: int) -> dict[str, str]:
    """Variables for programs in ``host``'s namespace, given every attached host's address."""
    env = {"CELLTCP_HOST": host, "CELLTCP_ADDRESS": hosts[host], "CELLTCP_EMULATION_PID": str(pid)}
    for name, address in hosts.items():
        env[f"CELLTCP_ADDR_{re.sub(r'[^A-Za-z0-9]', '_', name).upper()}"] = address
    return env


class EmulationSession:
    """Context manager owning everything an emulation creates on the system.

    Args:
        hosts: scenario host name → its IPv4 address, in attachment order.
        scenario: path of the scenario file (recorded in the registry for ``celltcp shell``;
            None for a scenario that has no file).
        mtu: MTU of the TUN devices, bytes.
        names: node name → IPv4 address for the namespaces' /etc/hosts (default: ``hosts``);
            the scenario's every node, so that programs can name them.
        registry_dir: directory of the registry (default ``/run/celltcp``).

    After ``__enter__``: :attr:`attachments` ``[(host, fd)]`` and :attr:`stop_fd` are what the
    engine takes. Teardown problems do not raise (they would hide the error that caused the
    teardown); they are listed in :attr:`teardown_errors`.
    """

    def __init__(
        self,
        hosts: Mapping[str, str],
        *,
        scenario: str | os.PathLike[str] | None,
        mtu: int = 1500,
        names: Mapping[str, str] | None = None,
        registry_dir: Path = registry.RUN_DIR,
    ):
        if not hosts:
            raise EmulationError("attach at least one host")
        if len(hosts) > netns.MAX_HOSTS:
            raise EmulationError(f"at most {netns.MAX_HOSTS} hosts can be attached")
        if not 68 <= mtu <= 65535:
            # RFC 791: every internet module must handle 68-byte datagrams without fragmenting.
            raise EmulationError(f"MTU {mtu} is out of range (68 to 65535 bytes)")
        for host in hosts:
            netns.check_host_name(host)
        self.pid = os.getpid()
        self.hosts = dict(hosts)
        self.scenario = os.path.realpath(scenario) if scenario else ""
        self.mtu = mtu
        self.names = dict(names) if names is not None else dict(self.hosts)
        self.registry_dir = Path(registry_dir)
        self.teardown_errors: list[str] = []
        #: Signals received while the session was open, in order.
        self.signals: list[int] = []
        self._attachments: list[Attachment] = []
        self._processes: list[subprocess.Popen[Any]] = []
        self._stack: ExitStack | None = None
        self._stop_r = self._stop_w = -1
        self._phase = "new"
        self._lock = threading.Lock()

    # -- set-up -------------------------------------------------------------------------------

    def __enter__(self) -> EmulationSession:
        if self._phase != "new":
            raise EmulationError("an emulation session can be entered only once")
        privileges.check()
        self._stack = ExitStack()
        self._phase = "setup"
        try:
            self._install_signals()
            self._register()
            self._check_interrupt()
            for index, (host, address) in enumerate(self.hosts.items()):
                self._attach(index, host, address)
        except BaseException:
            self._teardown()
            raise
        # Registered last, so it runs first: programs stop before their namespaces go.
        self._undo("stopping programs", self._stop_programs)
        self._phase = "ready"
        return self

    def _check_interrupt(self) -> None:
        """Raises Interrupted for a stop signal received during set-up."""
        if self.signals:
            raise Interrupted(self.signals[0])

    def _undo(self, what: str, fn: Callable[..., Any], *args: Any) -> None:
        """Registers an undo step; a failing step is recorded and the others still run."""
        assert self._stack is not None

        def step() -> None:
            try:
                fn(*args)
            except Exception as e:
                self.teardown_errors.append(f"{what}: {e}")

        self._stack.callback(step)

    def _install_signals(self) -> None:
        self._stop_r, self._stop_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._undo("closing the stop pipe", self._close_pipe)
        if threading.current_thread() is not threading.main_thread():
            # Python delivers signals to the main thread only, and only it may set handlers.
            raise EmulationError("an emulation session must be opened in the main thread")
        previous = {sig: signal.signal(sig, self._on_signal) for sig in STOP_SIGNALS}
        self._undo("restoring signal handlers", self._restore_handlers, previous)
        old_fd = signal.set_wakeup_fd(self._stop_w, warn_on_full_buffer=False)
        self._undo("restoring the signal wakeup fd", signal.set_wakeup_fd, old_fd)

    def _register(self) -> None:
        entries = {}
        for index, (host, address) in enumerate(self.hosts.items()):
            entries[host] = registry.HostEntry(
                netns.namespace_name(self.pid, host), netns.device_name(self.pid, index), address
            )
        reg = registry.Registration(
            pid=self.pid,
            start_time=registry.process_start_time(self.pid),
            scenario=self.scenario,
            hosts=entries,
            mtu=self.mtu,
        )
        # The undo is registered first: a write that fails half-way leaves nothing either.
        self._undo("removing the registry file", registry.remove, self.pid, self.registry_dir)
        registry.write(reg, self.registry_dir)
        self.registration = reg

    def _attach(self, index: int, host: str, address: str) -> None:
        entry = self.registration.hosts[host]
        # Each undo is registered before its action and tolerates the action not having
        # happened, so an error anywhere leaves nothing behind. A namespace of this name that
        # exists already is refused by add_namespace (it carries this pid, so it can only be a
        # leftover of a dead process that had the same pid, and removing it is right).
        self._undo(f"removing namespace {entry.namespace}", self._remove_namespace, entry.namespace)
        netns.add_namespace(entry.namespace)
        self._check_interrupt()
        netns.write_etc(entry.namespace, self.names)
        netns.disable_ipv6(entry.namespace)
        device = TunDevice(entry.device, -1)
        self._undo(f"closing TUN device {device.name}", device.close)
        device.fd = open_tun(entry.device).fd
        self._check_interrupt()
        netns.move_link(device.name, entry.namespace)
        netns.configure_host(entry.namespace, device.name, address, self.mtu)
        self._attachments.append(Attachment(host, address, entry.namespace, device))
        self._check_interrupt()

    def _remove_namespace(self, name: str) -> None:
        cleanup.remove_namespace(name, grace_s=_GRACE_S)

    # -- use ----------------------------------------------------------------------------------

    @property
    def attachments(self) -> list[tuple[str, int]]:
        """``[(host, TUN fd)]`` in attachment order, as the engine takes them."""
        return [(a.host, a.device.fd) for a in self._attachments]

    @property
    def attached(self) -> list[Attachment]:
        """The attachments with their namespaces and devices."""
        return list(self._attachments)

    @property
    def stop_fd(self) -> int:
        """Read end of the stop pipe: readable once a stop was requested or signalled."""
        return self._stop_r

    def request_stop(self) -> None:
        """Makes :attr:`stop_fd` readable (callable from any thread)."""
        with self._lock:
            if self._stop_w >= 0:
                try:
                    os.write(self._stop_w, b"\0")
                except BlockingIOError:
                    pass  # the pipe is full of stop requests already

    def stop_requested(self) -> bool:
        """True once :attr:`stop_fd` is readable."""
        if self._stop_r < 0:
            return True
        ready, _, _ = select.select([self._stop_r], [], [], 0)
        return bool(ready)

    def environment(self, host: str) -> dict[str, str]:
        """Variables given to programs in ``host``'s namespace: ``CELLTCP_HOST``,
        ``CELLTCP_ADDRESS`` (its own address), ``CELLTCP_ADDR_<HOST>`` for every attached host
        (name upper-cased, other characters as ``_``) and ``CELLTCP_EMULATION_PID``."""
        return environment(self.hosts, host, self.pid)

    def namespace_of(self, host: str) -> str:
        for a in self._attachments:
            if a.host == host:
                return a.namespace
        raise EmulationError(f"host {host!r} is not attached (attached: {', '.join(self.hosts)})")

    def spawn(self, host: str, argv: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
        """Starts ``argv`` inside ``host``'s namespace with :meth:`environment` added; the
        program is stopped at teardown if it still runs."""
        if self._phase not in ("ready", "running"):
            raise EmulationError("programs can be started only while the session is open")
        env = dict(popen.pop("env", None) or os.environ)
        env.update(self.environment(host))
        proc = subprocess.Popen(netns.exec_argv(self.namespace_of(host), argv), env=env, **popen)
        self._processes.append(proc)
        return proc

    def run(self, engine: Callable[[list[tuple[str, int]], int], T]) -> T:
        """Calls ``engine(attachments, stop_fd)``; stop signals meanwhile only make
        :attr:`stop_fd` readable, so the engine ends and its result is returned."""
        if self._phase != "ready":
            raise EmulationError(f"the session is {self._phase}, not ready to run")
        self._phase = "running"
        try:
            return engine(self.attachments, self.stop_fd)
        finally:
            # Never back to "ready": a signal handled just after the engine returned must not
            # raise and lose the result.
            self._phase = "ran"

    # -- teardown -----------------------------------------------------------------------------

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.signals.append(signum)
        if self._phase == "ready":
            raise Interrupted(signum)
        # setup: honoured at the next step boundary; running: the wakeup byte already stops the
        # engine; ran, closing, closed: the engine has stopped, teardown must finish.

    def _stop_programs(self) -> None:
        # Programs that `celltcp shell` started in these namespaces: recorded in the registry,
        # stopped by pid and start time (one whose namespace was deleted by hand lives on in an
        # unnamed namespace, where removing the namespaces below would not find it).
        cleanup.stop_recorded_programs(self.pid, self.registry_dir, grace_s=_GRACE_S)
        running = [p for p in self._processes if p.poll() is None]
        cleanup.stop_processes([p.pid for p in running], grace_s=_GRACE_S)
        for p in running:
            try:
                p.wait(timeout=_GRACE_S)
            except subprocess.TimeoutExpired:
                self.teardown_errors.append(f"program {p.pid} did not exit after SIGKILL")

    def _close_pipe(self) -> None:
        with self._lock:
            for fd in (self._stop_r, self._stop_w):
                if fd >= 0:
                    os.close(fd)
            self._stop_r = self._stop_w = -1

    def _restore_handlers(self, previous: Mapping[int, Any]) -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)

    def _teardown(self) -> None:
        self._phase = "closing"
        if self._stack is not None:
            self._stack.close()
        self._phase = "closed"

    def close(self) -> None:
        """Tears everything down (idempotent)."""
        if self._phase not in ("closing", "closed"):
            self._teardown()

    def __exit__(self, *exc: object) -> None:
        self.close()
