"""Output directories: written whole or not at all, and never over a user's data.

Everything is written into a temporary sibling ``.<name>.partial-<pid>`` of the target. Only when
the writer finishes without error does the sibling become the target; on any error (including
Ctrl-C) the sibling is removed, as are parent directories created for it, so a failed run leaves
no partial output behind. Renames within one directory are atomic on POSIX file systems, which
is why the temporary directory is a sibling rather than a directory under ``/tmp``.

The rules that keep a user's files safe (docs/cli.md, "Output directories"):

* Every output directory carries a marker file, :data:`MARKER`, naming the celltcp version, what
  wrote it and the files it wrote. It is in the temporary directory from its creation, so it
  appears together with the outputs.
* An existing directory is replaced only when it is empty or was written by celltcp (it has the
  marker); any other directory is refused with :class:`OutputDirError` unless
  ``overwrite=True`` (the ``--overwrite`` option). Files someone added to celltcp's directory
  (those the marker does not list, e.g. a figure drawn from the results) are carried over into
  the replacement.
* The empty path, the current directory, its ancestors (``.``, ``..``, ``/``) and the home
  directory (and its ancestors) are always refused.
* A symbolic link is followed: the outputs go where it points and the link stays a link.
* ``mode="add"`` (``celltcp emulate``, whose capture and programs may write into the directory
  while it runs) moves the outputs into an existing directory file by file instead of replacing
  it, so files put there stay.
* Temporary siblings left by a process that was killed (its pid is gone, and the directory
  carries the marker) are removed by the next write to the same place.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "MARKER",
    "OutputDirError",
    "atomic_output_dir",
    "atomic_write_text",
    "check_output_dir",
    "check_store_dir",
    "partial_name",
]

#: The marker file of a directory written by celltcp.
MARKER = ".celltcp-output"

Mode = Literal["replace", "add"]


class OutputDirError(ValueError):
    """An output directory that celltcp refuses to write. ``args == (message, path)``;
    ``str(err)`` reads ``"path: message"``."""

    def __init__(self, path: str, message: str):
        super().__init__(message, path)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def partial_name(final: Path) -> Path:
    """The temporary sibling this process writes ``final`` into: ``.<name>.partial-<pid>``."""
    return final.with_name(f".{final.name}.partial-{os.getpid()}")


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Writes a text file through its temporary sibling (:func:`partial_name`) and renames it
    into place, so a reader sees the old file or the new one, never half of one."""
    target = Path(path)
    tmp = partial_name(target)
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


# -- the marker -----------------------------------------------------------------------------------


def _version() -> str:
    try:
        from celltcp import _core

        return str(_core.__version__)
    except ImportError:  # pragma: no cover - the compiled module is always built
        return "unknown"


def _write_marker(directory: Path, writer: str, files: list[str] | None) -> None:
    """``files=None`` marks a directory still being written: everything in it is celltcp's."""
    # No time and no pid: the marker is as deterministic as the outputs beside it.
    record: dict[str, Any] = {"celltcp_version": _version(), "written_by": writer}
    if files is None:
        record["writing"] = True
    else:
        record["files"] = sorted(files)
    text = json.dumps(record, indent=2, sort_keys=True) + "\n"
    (directory / MARKER).write_text(text, encoding="utf-8")


def _read_marker(directory: Path) -> dict[str, Any] | None:
    """The marker's record, or None when ``directory`` has no (readable) marker."""
    try:
        record = json.loads((directory / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _marked_files(record: dict[str, Any]) -> set[str]:
    files = record.get("files")
    return {f for f in files if isinstance(f, str)} if isinstance(files, list) else set()


# -- the rules ------------------------------------------------------------------------------------


def _resolve(path: str | os.PathLike[str]) -> tuple[str, Path]:
    """``(shown, target)``: the path as given, and where it leads (symbolic links followed)."""
    shown = os.fspath(path)
    if not shown.strip():
        raise OutputDirError('""', "an empty path is not an output directory")
    return shown, Path(os.path.realpath(shown))


def _is_within(inner: Path, outer: Path) -> bool:
    return inner == outer or outer in inner.parents


def _refuse_protected(shown: str, target: Path) -> None:
    """The current directory, the home directory and their ancestors are never replaced."""
    cwd = Path(os.path.realpath(os.getcwd()))
    if _is_within(cwd, target):
        what = "the current directory" if cwd == target else "a parent of the current directory"
        raise OutputDirError(shown, f"is {what}; name a new or celltcp-written directory")
    home = os.path.expanduser("~")
    if home != "~" and _is_within(Path(os.path.realpath(home)), target):
        raise OutputDirError(
            shown,
            "is the home directory or one of its parents; name a new or celltcp-written directory",
        )


def check_output_dir(path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Applies the rules of this module to ``path`` without writing anything; returns where the
    outputs will go (symbolic links followed). Raises :class:`OutputDirError` naming the path.

    Call it before long work whose outputs go to ``path``, so a refusal comes first."""
    shown, target = _resolve(path)
    _refuse_protected(shown, target)
    if not os.path.lexists(target):
        return target
    if not target.is_dir():
        raise OutputDirError(shown, "exists and is not a directory")
    try:
        entries = os.listdir(target)
    except OSError as e:
        raise OutputDirError(shown, f"cannot be read: {e.strerror or e}") from None
    if entries and not overwrite and _read_marker(target) is None:
        raise OutputDirError(
            shown,
            f"is not empty and was not written by celltcp (no {MARKER} file); choose another "
            "directory, or replace it with --overwrite (overwrite=True)",
        )
    return target


def check_store_dir(path: str | os.PathLike[str], store_file: str) -> Path:
    """The rules for a results store's directory, which celltcp adds files to (``store_file``
    and a series folder) but never replaces: not the current or the home directory nor one of
    their parents, and, when it exists and holds anything, a store already (it has
    ``store_file``). Returns the directory; raises :class:`OutputDirError` naming the path."""
    shown, target = _resolve(path)
    _refuse_protected(shown, target)
    if not os.path.lexists(target):
        return target
    if not target.is_dir():
        raise OutputDirError(shown, "exists and is not a directory")
    try:
        entries = os.listdir(target)
    except OSError as e:
        raise OutputDirError(shown, f"cannot be read: {e.strerror or e}") from None
    if entries and store_file not in entries:
        raise OutputDirError(
            shown,
            f"holds other files and no {store_file}: not a results store; name a new "
            "directory or an existing store",
        )
    return target


# -- stale partials -------------------------------------------------------------------------------


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    return True


def remove_stale_partials(final: Path) -> list[Path]:
    """Removes the temporary siblings of ``final`` (``.<name>.partial-<pid>``, and
    ``.<name>.old-<pid>`` of a replacement cut short) left by processes that are gone. Only
    directories carrying the marker, and holding nothing but celltcp's files, are removed:
    anything else may be someone's data."""
    pattern = re.compile(rf"\.{re.escape(final.name)}\.(?:partial|old)-([0-9]+)")
    removed: list[Path] = []
    try:
        names = os.listdir(final.parent)
    except OSError:
        return removed
    for name in names:
        m = pattern.fullmatch(name)
        if not m:
            continue
        pid = int(m.group(1))
        candidate = final.parent / name
        if pid == os.getpid() or _pid_alive(pid):
            continue
        if candidate.is_symlink() or not candidate.is_dir():
            continue
        record = _read_marker(candidate)
        if record is None:
            continue
        # A finished marker lists celltcp's files; anything else in there (a user's file being
        # carried over into a replacement, see _replace_dir) is kept.
        if record.get("writing") is not True and not set(os.listdir(candidate)) <= (
            _marked_files(record) | {MARKER}
        ):
            continue
        shutil.rmtree(candidate, ignore_errors=True)
        removed.append(candidate)
    return removed


# -- writing --------------------------------------------------------------------------------------


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


def make_parents(directory: str | os.PathLike[str]) -> list[Path]:
    """Creates ``directory`` and its missing ancestors (an already existing one is fine);
    returns those created, outermost first, for :func:`remove_empty`."""
    return _make_parents(Path(os.path.abspath(os.fspath(directory))))


def _remove_empty(created: list[Path]) -> None:
    """Removes directories this module created, innermost first, if they are still empty."""
    for d in reversed(created):
        try:
            d.rmdir()
        except OSError:
            return


remove_empty = _remove_empty


def _carry_over(tmp: Path, final: Path, shown: str) -> list[str]:
    """Moves the files someone put into celltcp's directory ``final`` (those its marker does
    not list: a figure drawn from the results, notes) into ``tmp``, so that replacing ``final``
    keeps them; returns their names. Only a directory with the marker is combed; one without
    it is replaced whole (it is replaced only with ``overwrite``)."""
    record = _read_marker(final)
    if record is None:
        return []
    ours = _marked_files(record) | {MARKER}
    foreign = sorted(set(os.listdir(final)) - ours)
    clash = [name for name in foreign if os.path.lexists(tmp / name)]
    if clash:
        raise OutputDirError(
            shown,
            f"holds {clash[0]}, which celltcp did not write and would now overwrite; "
            "move it away and run again",
        )
    moved: list[str] = []
    try:
        for name in foreign:
            os.rename(final / name, tmp / name)
            moved.append(name)
    except BaseException:
        _bring_back(tmp, final, moved)
        raise
    return moved


def _bring_back(tmp: Path, final: Path, moved: list[str]) -> None:
    for name in moved:
        os.rename(tmp / name, final / name)


def _replace_dir(tmp: Path, final: Path, shown: str) -> None:
    """Renames ``tmp`` onto ``final``. An existing ``final`` is first moved aside (a directory
    cannot be renamed over a non-empty one) and removed only once the new one is in place;
    files someone put into it are carried over (:func:`_carry_over`), and put back if the
    replacement fails."""
    if not os.path.lexists(final):
        os.rename(tmp, final)
        return
    moved = _carry_over(tmp, final, shown)
    old = final.with_name(f".{final.name}.old-{os.getpid()}")
    try:
        if old.exists():
            shutil.rmtree(old)
        os.rename(final, old)
    except BaseException:
        _bring_back(tmp, final, moved)
        raise
    try:
        os.rename(tmp, final)
    except BaseException:
        os.rename(old, final)
        _bring_back(tmp, final, moved)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _add_into(tmp: Path, final: Path) -> None:
    """Moves the outputs in ``tmp`` into the existing directory ``final`` one by one, leaving
    every other file there; celltcp's own outputs of an earlier write that this one did not
    produce again are removed, and the marker comes last."""
    previous = _read_marker(final)
    stale = _marked_files(previous) if previous is not None else set()
    names = sorted(p.name for p in tmp.iterdir() if p.name != MARKER)
    for name in names:
        dest = final / name
        if dest.is_dir() and not dest.is_symlink():
            shutil.rmtree(dest)
        os.replace(tmp / name, dest)
        stale.discard(name)
    for name in sorted(stale):
        dest = final / name
        if dest.is_dir() and not dest.is_symlink():
            shutil.rmtree(dest, ignore_errors=True)
        elif os.path.lexists(dest):
            dest.unlink()
    os.replace(tmp / MARKER, final / MARKER)
    shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def atomic_output_dir(
    path: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    mode: Mode = "replace",
    writer: str = "celltcp",
) -> Iterator[Path]:
    """Yields an empty temporary directory; on success its files become ``path``.

    ``mode="replace"`` renames the temporary directory onto ``path`` (an allowed existing
    directory is replaced as a whole); ``mode="add"`` moves the files into an existing ``path``
    one by one. ``writer`` is recorded in the marker (e.g. ``"celltcp run"``).

    Raises :class:`OutputDirError` when the rules of this module refuse ``path``, OSError when
    its parent cannot be created or written. In ``"replace"`` mode the rules are checked on
    entry and again before the outputs are put in place. In ``"add"`` mode the directory may
    have been filled on purpose meanwhile (a capture, a program's files), so only the protected
    paths and a non-directory are refused here: the caller checks the directory with
    :func:`check_output_dir` before it lets anything write into it.
    """
    shown = os.fspath(path)
    if mode == "add":
        shown, final = _resolve(path)
        _refuse_protected(shown, final)
        if os.path.lexists(final) and not final.is_dir():
            raise OutputDirError(shown, "exists and is not a directory")
    else:
        final = check_output_dir(path, overwrite=overwrite)
    if final.parent == final:
        raise OutputDirError(shown, "is not usable as an output directory")
    created = _make_parents(final.parent)
    remove_stale_partials(final)
    tmp = partial_name(final)
    try:
        if tmp.exists():
            # Left by an earlier process that had the same id and was killed outright.
            shutil.rmtree(tmp)
        tmp.mkdir()
        # The marker is there from the start, so a partial left by a killed process is
        # recognisably celltcp's and may be removed by the next write (remove_stale_partials).
        _write_marker(tmp, writer, None)
    except BaseException:
        _remove_empty(created)
        raise
    try:
        yield tmp
        _write_marker(tmp, writer, [p.name for p in tmp.iterdir() if p.name != MARKER])
        if mode == "add" and final.is_dir():
            _add_into(tmp, final)
        else:
            # Someone may have filled the directory while the outputs were being made.
            check_output_dir(path, overwrite=overwrite)
            _replace_dir(tmp, final, shown)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_empty(created)
        raise
