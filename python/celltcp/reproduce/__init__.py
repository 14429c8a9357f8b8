"""One-command reproductions of the seed studies: ``celltcp reproduce NAME``.

Each reproduction runs a seed study end to end on the scenario files of
``celltcp/examples/`` (through
:func:`celltcp.sweep`, so its runs are stored and a repeated invocation reuses them) and writes
``report.md``, a self-contained ``report.html`` and the machine-readable ``claims.json`` (every
claim row with its verdict and test, the run counts, the wall time) into an output directory that appears whole
or not at all (:func:`celltcp.output.atomic_output_dir`). See docs/reproductions.md.

>>> from celltcp.reproduce import available, reproduce
>>> [r.name for r in available()]
['003-petra-lte', '000-x2-handover', '001-wcdma', '002-handover-buffer', '004-ack-control']
>>> reproduce("003", "out/reproduce-003", quick=True)  # doctest: +SKIP
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from celltcp.output import check_output_dir
from celltcp.reproduce.registry import Options, Reproduction, ReproductionError

__all__ = [
    "Options",
    "Reproduction",
    "ReproductionError",
    "available",
    "default_store",
    "find",
    "reproduce",
]

#: The registered reproductions, filled at first use: the seeds are declarations over
#: :mod:`celltcp.study`, which itself uses this package's registry, verdicts and documents, so
#: importing the seeds here at import time would make ``import celltcp.study`` circular.
_REPRODUCTIONS: tuple[Reproduction, ...] | None = None


def _registered() -> tuple[Reproduction, ...]:
    global _REPRODUCTIONS
    if _REPRODUCTIONS is None:
        from celltcp.reproduce import seed000, seed001, seed002, seed003, seed004

        _REPRODUCTIONS = tuple(
            Reproduction(m.NAME, m.ALIASES, m.SUMMARY, m.run)
            for m in (seed003, seed000, seed001, seed002, seed004)
        )
    return _REPRODUCTIONS


def available() -> list[Reproduction]:
    """Every reproduction, in seed order."""
    return list(_registered())


def find(name: str) -> Reproduction:
    """The reproduction called ``name`` or one of its aliases; ReproductionError otherwise."""
    for r in _registered():
        if name == r.name or name in r.aliases:
            return r
    known = ", ".join(f"{r.name} ({', '.join(r.aliases)})" for r in _registered())
    raise ReproductionError(f"no reproduction named {name!r}; available: {known}")


def default_store(out: str | os.PathLike[str]) -> Path:
    """Where the runs of a reproduction written to ``out`` are kept: the sibling ``<out>.runs``.

    It lies outside the output directory on purpose: that directory is replaced only when the
    report is complete, while the store must survive an interrupted reproduction so that the
    next invocation resumes it."""
    final = Path(os.path.abspath(os.fspath(out)))
    return final.with_name(final.name + ".runs")


def reproduce(
    name: str,
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    workers: int | None = None,
    store: str | os.PathLike[str] | None = None,
    progress: bool = False,
    overwrite: bool = False,
) -> list[Path]:
    """Runs reproduction ``name`` and writes its report into directory ``out``.

    Args:
        name: a name or alias from :func:`available`.
        out: the output directory; replaced as a whole on success, untouched on failure.
        quick: few replications and short runs.
        workers: sweep worker processes (default: every CPU).
        store: results store (default: :func:`default_store` of ``out``).
        progress: draw progress bars on stderr.
        overwrite: replace ``out`` even when it holds files celltcp did not write (see
            :mod:`celltcp.output`).

    Returns:
        The files written, under their final paths (report.md, report.html, claims.json, the
        figures).

    Raises:
        ReproductionError: unknown name, scenario files not found, runs that failed;
            nothing is written to ``out`` then.
        OutputDirError: ``out`` may not be written (checked before anything runs).
        OSError: ``out`` cannot be written.
    """
    entry = find(name)
    check_output_dir(out, overwrite=overwrite)
    options = Options(
        quick=quick,
        workers=workers,
        store=Path(store) if store is not None else default_store(out),
        progress=progress,
    )
    # A store with runs in it from an earlier invocation makes this one cheaper: say so.
    reused = options.store is not None and options.store.is_dir() and any(options.store.iterdir())
    started = time.perf_counter()
    document = entry.run(options)
    document.meta.update(
        reproduction=entry.name,
        mode="quick" if quick else "full",
        command=f"celltcp reproduce {entry.name}" + (" --quick" if quick else ""),
    )
    return document.publish(
        out,
        started=started,
        workers=workers,
        store_reused=reused,
        overwrite=overwrite,
        writer="celltcp reproduce",
    )
