"""Progress of a long single run on a terminal: simulated time, events per second and the time
left, as ns-3's ShowProgress and OMNeT++'s Cmdenv give.

:class:`RunProgressLine` is a ``progress`` callback of :func:`celltcp.run`: the engine calls it
about every 50 ms of wall time with where the run stands. On a terminal it redraws one line in
place (at most every 0.1 s) and :meth:`RunProgressLine.close` erases it, so that what the command
prints afterwards stays as it was; elsewhere (a log file, a pipe) it draws nothing.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["RunProgressLine", "format_duration"]

_BAR_WIDTH = 20
#: Seconds between redraws.
_PERIOD_S = 0.1


def format_duration(seconds: float) -> str:
    """``"0.4s"``, ``"42s"``, ``"3m05s"``, ``"2h07m"``."""
    if seconds < 9.95:
        return f"{max(seconds, 0.0):.1f}s"
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def _rate(events_per_s: float) -> str:
    for scale, prefix in ((1e6, "M"), (1e3, "k")):
        if events_per_s >= scale:
            return f"{events_per_s / scale:.1f} {prefix}events/s"
    return f"{events_per_s:.0f} events/s"


class RunProgressLine:
    """Draws a run's progress on ``stream`` (stderr) when it is a terminal.

    ``line(simulated_s, end_s, events, elapsed_s)`` is the text, for tests and other displays.
    """

    def __init__(self, label: str = "celltcp", stream: TextIO | None = None):
        self.label = label
        self._stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self._stream, "isatty", lambda: False)())
        self._start = time.monotonic()
        self._last_draw = float("-inf")
        self._width = 0

    @staticmethod
    def line(label: str, simulated_s: float, end_s: float, events: int, elapsed_s: float) -> str:
        fraction = min(simulated_s / end_s, 1.0) if end_s > 0 else 1.0
        filled = round(fraction * _BAR_WIDTH)
        bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
        parts = [f"{label} [{bar}] {simulated_s:.1f} s of {end_s:g} s simulated"]
        if elapsed_s > 0:
            parts.append(_rate(events / elapsed_s))
            if 0 < simulated_s < end_s:
                left = elapsed_s * (end_s - simulated_s) / simulated_s
                parts.append(f"ETA {format_duration(left)}")
        return ", ".join(parts)

    def __call__(self, simulated_s: float, end_s: float, events: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last_draw < _PERIOD_S:
            return
        self._last_draw = now
        text = self.line(self.label, simulated_s, end_s, events, now - self._start)
        pad = " " * max(self._width - len(text), 0)
        self._stream.write(f"\r{text}{pad}")
        self._stream.flush()
        self._width = len(text)

    def close(self) -> None:
        """Erases the line, if one was drawn."""
        if self._width:
            self._stream.write("\r" + " " * self._width + "\r")
            self._stream.flush()
            self._width = 0
