"""The reproductions' common types: options, the error raised on bad input, a registry entry."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from typing_extensions import Self

from celltcp.errors import ScenarioError

if TYPE_CHECKING:
    from celltcp.reproduce.document import Document

__all__ = ["Options", "Reproduction", "ReproductionError", "StoreRunner"]

_R = TypeVar("_R", bound="StoreRunner")


class ReproductionError(ScenarioError):
    """An unknown reproduction, missing scenario files or failed runs; one line, exit status 2.

    A :class:`ScenarioError` without a key, so that the command line reports it as bad input."""


@dataclass(frozen=True)
class Options:
    """How to run a reproduction.

    Attributes:
        quick: few replications and short runs (the tests' mode) instead of the seed's lengths.
        workers: worker processes of the sweeps (None: every CPU).
        store: directory of the results store that keeps every run (None: memory only).
        progress: draw the sweeps' progress bars on stderr.
    """

    quick: bool = False
    workers: int | None = None
    store: Path | None = None
    progress: bool = False


@dataclass(frozen=True)
class Reproduction:
    """One seed study that ``celltcp reproduce`` can run.

    Attributes:
        name: the canonical name, ``<seed number>-<topic>``.
        aliases: other accepted names (the bare seed number).
        summary: one line for ``--list``.
        run: runs the study and returns its report.
    """

    name: str
    aliases: tuple[str, ...]
    summary: str
    run: Callable[[Options], Document]


class StoreRunner:
    """The results store a reproduction's sweeps write to and whose kept series it reads back.
    :meth:`open` gives a temporary store when the options name none: series are kept in a store
    directory only. Subclasses add the study's ways of running points."""

    #: Prefix of the temporary store's directory name.
    temporary_prefix = "celltcp-"

    def __init__(self, options: Options, store: Path):
        self.options = options
        self.store = store
        #: Runs returned by the sweeps so far (stored ones included), per sweep name.
        self.runs: dict[str, int] = {}

    def count(self, name: str, runs: int) -> None:
        """Adds ``runs`` runs of the sweep ``name`` to :attr:`runs`."""
        self.runs[name] = self.runs.get(name, 0) + runs

    @classmethod
    @contextmanager
    def open(cls, options: Options) -> Iterator[Self]:
        if options.store is not None:
            yield cls(options, options.store)
            return
        with tempfile.TemporaryDirectory(prefix=cls.temporary_prefix) as tmp:
            yield cls(options, Path(tmp) / "runs")
