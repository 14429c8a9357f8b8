"""A test-only stand-in for the engine: copies each IPv4 datagram read from one TUN device to
the TUN device of the host owning its destination address, with no delay.

It has the engine's signature (``relay(attachments, stop_fd)``) so that the namespace plumbing
can be tested without the compiled core: if addresses, routes, MTU or the TUN mode were wrong,
no connection would get through it.
"""

from __future__ import annotations

import os
import select
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass
class RelayCounts:
    """Datagrams seen by :func:`relay`."""

    forwarded: int = 0
    non_ipv4: int = 0
    unroutable: int = 0
    largest: int = 0
    by_host: dict[str, int] = field(default_factory=dict)


def relay(
    addresses: Mapping[str, str], attachments: list[tuple[str, int]], stop_fd: int
) -> RelayCounts:
    """Runs until ``stop_fd`` is readable. ``addresses``: host → IPv4 address."""
    fd_of = dict(attachments)
    by_address = {socket.inet_aton(addresses[h]): fd_of[h] for h in fd_of}
    host_of = {fd: h for h, fd in attachments}
    counts = RelayCounts(by_host=dict.fromkeys(fd_of, 0))
    poller = select.poll()
    for fd in fd_of.values():
        poller.register(fd, select.POLLIN)
    poller.register(stop_fd, select.POLLIN)
    while True:
        for fd, _ in poller.poll(1000):
            if fd == stop_fd:
                return counts
            while True:
                try:
                    datagram = os.read(fd, 65536)
                except BlockingIOError:
                    break
                counts.by_host[host_of[fd]] += 1
                counts.largest = max(counts.largest, len(datagram))
                if len(datagram) < 20 or datagram[0] >> 4 != 4:
                    counts.non_ipv4 += 1
                    continue
                out = by_address.get(datagram[16:20])
                if out is None:
                    counts.unroutable += 1
                    continue
                os.write(out, datagram)
                counts.forwarded += 1


def relay_engine(
    toml_text: str,
    overrides: list[tuple[str, str]],
    options: Mapping[str, object],
    *,
    on_start: object = None,
):
    """An engine factory for :func:`celltcp.emulate.runner.emulate` built on :func:`relay`.

    Its result has the shape of the compiled engine's: the scenario simulated for 100 ms (so
    that the outputs can be written as after a real emulation) plus ``"emulation"`` holding the
    relay's counts. ``on_start`` (a callable) is called once the relay runs.
    """
    import json

    from celltcp import _core

    echo, _warnings = _core.validate(toml_text, overrides)
    resolved = json.loads(echo)
    addresses = {name: node["address"] for name, node in resolved["nodes"].items()}

    def engine(attachments: list[tuple[str, int]], stop_fd: int) -> dict[str, object]:
        if callable(on_start):
            on_start()
        counts = relay(addresses, attachments, stop_fd)
        raw = dict(_core.run(toml_text, [*overrides, ("simulation.duration", "100ms")]))
        raw["emulation"] = {
            "packets_in": sum(counts.by_host.values()),
            "packets_out": counts.forwarded,
            "dropped_non_ipv4": counts.non_ipv4,
            "dropped_unroutable": counts.unroutable,
            "largest_packet_bytes": counts.largest,
        }
        return raw

    return engine
