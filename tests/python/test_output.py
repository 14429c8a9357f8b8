"""Atomic output directories: whole or nothing, never a partial directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from celltcp.output import MARKER, OutputDirError, atomic_output_dir


def _celltcps(target: Path, *files: str) -> None:
    """Makes ``target`` a directory celltcp wrote, holding ``files``."""
    with atomic_output_dir(target) as tmp:
        for name in files:
            (tmp / name).write_text("old")


def test_success_renames_into_place(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "out"
    with atomic_output_dir(target) as tmp:
        assert tmp.parent == target.parent and tmp.name.startswith(".out.partial-")
        assert not target.exists()
        (tmp / "f.txt").write_text("x")
    assert (target / "f.txt").read_text() == "x"
    assert [p.name for p in target.parent.iterdir()] == ["out"]


def test_error_leaves_nothing_and_removes_created_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "out"
    with pytest.raises(RuntimeError), atomic_output_dir(target) as tmp:
        (tmp / "half.txt").write_text("partial")
        raise RuntimeError("writer failed")
    assert list(tmp_path.iterdir()) == []


def test_error_keeps_an_existing_directory_untouched(tmp_path: Path) -> None:
    target = tmp_path / "out"
    _celltcps(target, "old.txt")
    with pytest.raises(KeyboardInterrupt), atomic_output_dir(target) as tmp:
        (tmp / "new.txt").write_text("new")
        raise KeyboardInterrupt
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "old.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_success_replaces_an_existing_directory(tmp_path: Path) -> None:
    target = tmp_path / "out"
    _celltcps(target, "old.txt")
    with atomic_output_dir(target) as tmp:
        (tmp / "new.txt").write_text("new")
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_file_in_the_way_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    with pytest.raises(OutputDirError, match="not a directory"), atomic_output_dir(blocker):
        pass
    with pytest.raises(NotADirectoryError), atomic_output_dir(blocker / "sub"):
        pass
    assert blocker.read_text() == "" and sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


def test_stale_partial_directory_of_same_pid_is_replaced(tmp_path: Path) -> None:
    import os

    stale = tmp_path / f".out.partial-{os.getpid()}"
    stale.mkdir()
    (stale / "junk").write_text("junk")
    with atomic_output_dir(tmp_path / "out") as tmp:
        assert [p.name for p in tmp.iterdir()] == [MARKER]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
