"""The scenario library shipped with celltcp: scenarios, sweep files, traces, and the inputs of
the seed studies that ``celltcp reproduce`` runs.

The files live in this directory of the installed package, so they are there wherever celltcp is
installed (a wheel, an editable install of the repository). An example is named by its path
under this directory without ``.toml``: ``wired-chain``, ``003/exp5-1``, ``sweeps/access-rate``;
a script keeps its suffix (``003/reproduce.py``), and a directory (``003``) names its whole group.

>>> from celltcp import examples
>>> names = [e.name for e in examples.available()]      # doctest: +SKIP
>>> names[:2]                                           # doctest: +SKIP
['epc-three-enbs', 'epc-two-cells']
>>> result = celltcp.run(examples.path("wired-chain"))  # doctest: +SKIP
>>> examples.copy("traces/trace-link", "my-study")      # doctest: +SKIP
[PosixPath('my-study/trace-link.toml'), PosixPath('my-study/drive.trace')]

A copy is made to be edited: the files a scenario names (a link's ``trace``, a cell's
``bler_table``, a sweep's ``scenario``) are copied beside it, so the copy runs where it is. A
script reads the files of its own directory, so copying a script copies its group. Nothing is
ever overwritten: if any file of the copy exists, :func:`copy` raises :class:`ExampleError` and
writes nothing.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from celltcp import _core

__all__ = ["ROOT", "Example", "ExampleError", "available", "copy", "describe", "find", "path"]

#: The directory of the library in the installed package.
ROOT = Path(__file__).resolve().parent

#: Files of the package itself, not examples.
_NOT_EXAMPLES = frozenset({"__init__.py"})
#: Keys whose string values name a file relative to the scenario file (docs/scenarios.md): a
#: link direction's Mahimahi ``trace`` and a cell's link-level ``bler_table``.
_FILE_KEYS = frozenset({"trace", "bler_table"})
#: Longest description shown by :func:`available` (the listing stays one line an example).
_DESCRIPTION_CHARS = 80


class ExampleError(ValueError):
    """An unknown example name, or a copy that would overwrite a file or cannot be written."""


@dataclass(frozen=True)
class Example:
    """One file of the library."""

    #: Its name: the path under :data:`ROOT`, without ``.toml`` (``003/exp5-1``).
    name: str
    #: ``"scenario"``, ``"sweep"`` or ``"script"``.
    kind: str
    #: The first sentence of its leading comment (a script: of its docstring), shortened.
    description: str
    #: The installed file.
    path: Path


def _name_of(file: Path) -> str:
    rel = file.relative_to(ROOT).as_posix()
    return rel.removesuffix(".toml")


def _leading_text(file: Path) -> str:
    """The leading comment of a TOML file, or the docstring of a script, as plain text."""
    text = file.read_text(encoding="utf-8")
    if file.suffix == ".py":
        return ast.get_docstring(ast.parse(text)) or ""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].strip())
    return "\n".join(lines)


#: A full stop that ends a sentence: not the one of an abbreviation the library's texts use.
_SENTENCE_END = re.compile(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bFig)(?<!\bvs)(?<!\bcf)\.(?=\s|$)")


def describe(text: str) -> str:
    """The first sentence of ``text``'s first paragraph, on one line and at most 80 characters
    (cut at a word, with an ellipsis)."""
    paragraph = []
    for line in text.splitlines():
        if not line.strip():
            break
        paragraph.append(line.strip())
    one_line = " ".join(paragraph)
    end = _SENTENCE_END.search(one_line)
    sentence = one_line[: end.start()] if end else one_line
    if len(sentence) <= _DESCRIPTION_CHARS:
        return sentence
    cut = sentence[: _DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def _load_toml(file: Path) -> dict[str, Any]:
    # The core's parser, the one `run` and `validate` read the file with.
    return _core.Document.read(os.fspath(file)).to_dict()


def _kind(file: Path) -> str:
    if file.suffix == ".py":
        return "script"
    # A sweep file names its scenario at the top level (docs/sweeps.md); a scenario never does.
    return "sweep" if isinstance(_load_toml(file).get("scenario"), str) else "scenario"


def _files() -> list[Path]:
    found = [
        p
        for p in ROOT.rglob("*")
        if p.is_file()
        and p.suffix in (".toml", ".py")
        and p.name not in _NOT_EXAMPLES
        and "__pycache__" not in p.parts
    ]
    # Top-level examples first, then each group in name order.
    return sorted(found, key=lambda p: (len(p.relative_to(ROOT).parts) > 1, _name_of(p)))


def available() -> list[Example]:
    """Every example of the library: top-level ones first, then by group and name."""
    return [Example(_name_of(f), _kind(f), describe(_leading_text(f)), f) for f in _files()]


def _resolve(name: str) -> Path:
    """The file or group directory of ``name``; ExampleError naming the listing otherwise."""
    clean = str(name).strip().strip("/")
    rel = PurePosixPath(clean)
    if clean and not rel.is_absolute() and ".." not in rel.parts and "__pycache__" not in rel.parts:
        for candidate in (ROOT / rel, ROOT / f"{clean}.toml"):
            if candidate.name in _NOT_EXAMPLES:
                continue
            if candidate.is_file() and candidate.suffix in (".toml", ".py"):
                return candidate
            if candidate.is_dir() and candidate != ROOT:
                return candidate
    raise ExampleError(
        f"no example named '{name}'; 'celltcp examples' lists them (e.g. 'wired-chain', "
        "'003/exp5-1')"
    )


def find(name: str) -> Example:
    """The example called ``name`` (``.toml`` may be given); ExampleError if there is none."""
    file = _resolve(name)
    if file.is_dir():
        raise ExampleError(f"'{name}' is a group of examples, not one; name one of its files")
    return Example(_name_of(file), _kind(file), describe(_leading_text(file)), file)


def path(name: str) -> Path:
    """The installed file of the example ``name``, e.g. ``path("wired-chain")``, or the directory
    of a group, e.g. ``path("003")``. Relative file names inside a scenario resolve against its
    own directory, so the returned path runs as it is."""
    return _resolve(name)


# -- copying ---------------------------------------------------------------------------------


def _requoted(name: str) -> Callable[[re.Match[str]], str]:
    """A substitution putting ``name`` between the quotes a reference was written with."""
    return lambda m: f"{m.group(1)}{name}{m.group(1)}"


def _references(data: dict[str, Any], is_sweep: bool) -> list[str]:
    """Relative file names a scenario or sweep file refers to, in document order."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _FILE_KEYS and isinstance(value, str):
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    if is_sweep:
        found.append(data["scenario"])
        walk({k: v for k, v in data.items() if k != "scenario"})
    else:
        walk(data)
    return [r for r in dict.fromkeys(found) if not os.path.isabs(r)]


def _quoted(value: str) -> re.Pattern[str]:
    return re.compile("([\"'])" + re.escape(value) + r"\1")


def _plan_file(src: Path, dest: Path, plan: dict[Path, tuple[Path, bytes]]) -> None:
    """Adds ``src`` copied to ``dest`` to ``plan``, with every file it refers to beside it.

    A reference inside the file's own directory keeps its relative place; one that leaves it
    (``../wired-chain-tcp.toml`` of a sweep) is copied next to the file and the reference in the
    copy is rewritten to the bare name, so that the copy is self-contained."""
    content = src.read_bytes()
    placed: list[tuple[Path, Path]] = []
    if src.suffix == ".toml":
        data = _load_toml(src)
        text = content.decode("utf-8")
        for ref in _references(data, isinstance(data.get("scenario"), str)):
            ref_path = PurePosixPath(ref)
            if ".." in ref_path.parts:
                local = ref_path.name
                text = _quoted(ref).sub(_requoted(local), text)
            else:
                local = ref
            placed.append(((src.parent / ref).resolve(), dest.parent / local))
        content = text.encode("utf-8")
    previous = plan.get(dest)
    if previous is not None and previous[1] != content:
        raise ExampleError(f"two files of the copy would be {dest}")  # pragma: no cover
    plan[dest] = (src, content)
    for ref_src, ref_dest in placed:
        _plan_file(ref_src, ref_dest, plan)


def copy(name: str, dest_dir: str | os.PathLike[str]) -> list[Path]:
    """Copies the example ``name`` into ``dest_dir`` (created if missing) and returns the files
    written, the example first.

    The files it refers to come with it (see the module's description); a script or a group
    name copies every file of the group. Raises :class:`ExampleError` before writing anything
    when ``name`` is unknown, ``dest_dir`` is not a directory, or a file of the copy exists.
    """
    src = _resolve(name)
    dest = Path(dest_dir)
    plan: dict[Path, tuple[Path, bytes]] = {}
    if src.is_dir() or src.suffix == ".py":
        group = src if src.is_dir() else src.parent
        members = sorted(p for p in group.iterdir() if p.is_file() and p.name not in _NOT_EXAMPLES)
        if src.is_file():  # the script first
            members.remove(src)
            members.insert(0, src)
        for member in members:
            _plan_file(member, dest / member.name, plan)
    else:
        _plan_file(src, dest / src.name, plan)

    if dest.exists() and not dest.is_dir():
        raise ExampleError(f"{dest}: exists and is not a directory")
    existing = [p for p in plan if p.exists() or p.is_symlink()]
    if existing:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        raise ExampleError(f"{existing[0]}: exists; copy '{name}' elsewhere or remove it{more}")

    created_dirs: list[Path] = []
    written: list[Path] = []
    try:
        for target in plan:
            missing = [d for d in (target.parent, *target.parent.parents) if not d.exists()]
            for d in reversed(missing):
                d.mkdir()
                created_dirs.append(d)
            # "x": exclusive creation, so a file that appeared since the check is not replaced.
            with open(target, "xb") as f:
                written.append(target)
                f.write(plan[target][1])
    except OSError as e:
        for p in written:
            p.unlink(missing_ok=True)
        for d in reversed(created_dirs):
            try:
                d.rmdir()
            except OSError:
                pass
        where = e.filename or dest
        raise ExampleError(f"{where}: cannot write: {e.strerror or e}") from None
    return written
