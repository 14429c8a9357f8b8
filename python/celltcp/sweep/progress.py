"""A progress bar on stderr: runs done, failures, rate and estimated time left.

On a terminal the bar is redrawn in place (``\\r``) at most every 0.1 s; otherwise (a log file,
a CI job) one line is written at most every 10 s, so logs stay short. In a Jupyter notebook it is
tqdm's notebook widget. Rates and the ETA count
only the runs executed by this invocation, not those found already stored.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from celltcp.progress import format_duration

__all__ = ["Progress", "format_duration", "in_notebook"]

_BAR_WIDTH = 24
#: Seconds between redraws on a terminal, and between lines elsewhere.
_TTY_PERIOD_S = 0.1
_LOG_PERIOD_S = 10.0


def in_notebook() -> bool:
    """True inside a Jupyter kernel (IPython's ZMQ shell), where a progress bar is a widget."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _notebook_bar(total: int, label: str) -> Any:
    """tqdm's notebook widget when ipywidgets is installed (as with JupyterLab), else its text
    bar, which a notebook shows on stderr (tqdm.auto would warn about the missing widgets)."""
    try:
        import ipywidgets  # noqa: F401
        from tqdm.notebook import tqdm
    except ImportError:
        from tqdm.std import tqdm
    return tqdm(total=total, desc=label, unit="run")


class Progress:
    """Counts finished runs and draws the bar.

    Args:
        label: the sweep's name.
        total: runs to execute in this invocation.
        stored: runs of the sweep found already in the store (shown, not executed).
        enabled: False draws nothing (``--quiet``).
        stream: where to draw (stderr by default).
    """

    def __init__(
        self,
        label: str,
        total: int,
        stored: int = 0,
        *,
        enabled: bool = True,
        stream: TextIO | None = None,
    ):
        self.label = label
        self.total = total
        self.stored = stored
        self.done = 0
        self.failed = 0
        self.enabled = enabled
        self._stream = stream if stream is not None else sys.stderr
        self._tty = bool(getattr(self._stream, "isatty", lambda: False)())
        self._start = time.monotonic()
        self._last_draw = float("-inf")
        self._width = 0
        #: The notebook widget, when drawing into a notebook.
        self._widget: Any = None
        if enabled and stream is None and in_notebook():
            self._widget = _notebook_bar(total, label)

    def advance(self, ok: bool) -> None:
        """Records one finished run."""
        self.done += 1
        if not ok:
            self.failed += 1
        if self._widget is not None:
            self._widget.update(1)
            if self.failed:
                self._widget.set_postfix(failed=self.failed, refresh=False)
            return
        self._maybe_draw()

    def line(self) -> str:
        """The current status as one line of text."""
        elapsed = time.monotonic() - self._start
        fraction = self.done / self.total if self.total else 1.0
        filled = round(fraction * _BAR_WIDTH)
        bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
        parts = [f"{self.label} [{bar}] {self.done}/{self.total} runs"]
        if self.stored:
            parts.append(f"{self.stored} already stored")
        parts.append(f"{self.failed} failed")
        if self.done and elapsed > 0:
            rate = self.done / elapsed
            parts.append(f"{rate:.1f} runs/s" if rate >= 1 else f"{elapsed / self.done:.1f} s/run")
            if self.done < self.total:
                parts.append(f"ETA {format_duration((self.total - self.done) / rate)}")
        if self.done >= self.total:
            parts.append(f"in {format_duration(elapsed)}")
        return ", ".join(parts)

    def _maybe_draw(self) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        period = _TTY_PERIOD_S if self._tty else _LOG_PERIOD_S
        if now - self._last_draw >= period or self.done >= self.total:
            self._draw()
            self._last_draw = now

    def _draw(self) -> None:
        text = self.line()
        if self._tty:
            pad = " " * max(self._width - len(text), 0)
            self._stream.write(f"\r{text}{pad}")
            self._width = len(text)
        else:
            self._stream.write(text + "\n")
        self._stream.flush()

    def start(self) -> None:
        """Draws the initial state."""
        if self.enabled and self._widget is None:
            self._draw()
            self._last_draw = time.monotonic()

    def close(self) -> None:
        """Draws the final state and ends the line."""
        if self._widget is not None:
            self._widget.close()
            return
        if not self.enabled:
            return
        if self._tty:
            self._draw()
            self._stream.write("\n")
            self._stream.flush()
        elif self.done < self.total or self._last_draw == float("-inf"):
            self._draw()
