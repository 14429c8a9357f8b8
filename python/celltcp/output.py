"""Atomic output directories: a run's outputs appear whole or not at all.

Everything is written into a temporary sibling ``.<name>.partial-<pid>`` of the target. Only when
the writer finishes without error is the sibling renamed onto the target, replacing an existing
directory of that name; on any error (including Ctrl-C) the sibling is removed, as are parent
directories created for it, so a failed run leaves no partial output behind. Renames within one
directory are atomic on POSIX file systems, which is why the temporary directory is a sibling
rather than a directory under ``/tmp``.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_output_dir"]


def _make_parents(directory: Path) -> list[Path]:
    """Creates ``directory`` and its missing ancestors; returns those created, outermost first."""
    missing: list[Path] = []
    probe = directory
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    created: list[Path] = []
    try:
        for d in reversed(missing):
            d.mkdir()
            created.append(d)
    except BaseException:
        _remove_empty(created)
        raise
    return created


def _remove_empty(created: list[Path]) -> None:
    """Removes directories this module created, innermost first, if they are still empty."""
    for d in reversed(created):
        try:
            d.rmdir()
        except OSError:
            return


def _replace_dir(tmp: Path, final: Path) -> None:
    """Renames ``tmp`` onto ``final``. An existing ``final`` is first moved aside (a directory
    cannot be renamed over a non-empty one) and removed only once the new one is in place."""
    if not final.exists():
        os.rename(tmp, final)
        return
    old = final.with_name(f".{final.name}.old-{os.getpid()}")
    if old.exists():
        shutil.rmtree(old)
    os.rename(final, old)
    try:
        os.rename(tmp, final)
    except BaseException:
        os.rename(old, final)
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextmanager
def atomic_output_dir(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields an empty temporary directory; on success it becomes ``path``.

    Raises OSError (with ``filename`` set to ``path``) when ``path`` exists but is not a
    directory, or when its parent cannot be created or written.
    """
    shown = os.fspath(path)
    final = Path(os.path.abspath(shown))
    if not final.name or final.parent == final:
        raise OSError(errno.EINVAL, "not usable as an output directory", shown)
    if final.exists() and not final.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a directory", shown)
    created = _make_parents(final.parent)
    tmp = final.with_name(f".{final.name}.partial-{os.getpid()}")
    try:
        if tmp.exists():
            # Left by an earlier process that had the same id and was killed outright.
            shutil.rmtree(tmp)
        tmp.mkdir()
    except BaseException:
        _remove_empty(created)
        raise
    try:
        yield tmp
        _replace_dir(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_empty(created)
        raise
