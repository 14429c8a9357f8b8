"""``celltcp examples``: the scenario library shipped with the package (:mod:`celltcp.examples`).

    celltcp examples                    list them: name, kind, first sentence of the header
    celltcp examples copy NAME DIR      copy one out to edit, with the files it refers to
    celltcp examples path NAME          print where the installed file is

``copy`` never overwrites: if any file of the copy exists it exits with status 2 and one line,
and writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_examples_command"]


def _run(user_error: type[Exception], args: argparse.Namespace) -> int:
    from celltcp import examples

    try:
        if args.action == "copy":
            for path in examples.copy(args.name, args.dir):
                print(path)
            return 0
        if args.action == "path":
            print(examples.path(args.name))
            return 0
    except examples.ExampleError as e:
        raise user_error(str(e)) from None
    rows = [(e.name, e.kind, e.description) for e in examples.available()]
    name_width = max(len(r[0]) for r in rows)
    kind_width = max(len(r[1]) for r in rows)
    for name, kind, description in rows:
        print(f"{name:<{name_width}}  {kind:<{kind_width}}  {description}")
    print(
        "celltcp: 'celltcp examples copy NAME DIR' copies one out to edit; "
        "'celltcp examples path NAME' prints where it is",
        file=sys.stderr,
    )
    return 0


def add_examples_command(subcommands: Any, user_error: type[Exception]) -> None:
    """Adds ``examples`` to the ``celltcp`` command's subparsers; a mistake (an unknown name, a
    file in the way) raises ``user_error(message)``."""
    import functools

    p = subcommands.add_parser(
        "examples",
        usage="celltcp examples [-h] [copy NAME DIR | path NAME]",
        help="list the scenario library installed with celltcp, or copy from it",
        description="The scenarios, sweep files, traces and seed-study inputs installed with "
        "celltcp. Without an action, list them: NAME (the path in the library without .toml), "
        "kind and the first sentence of the file's header. 'copy NAME DIR' copies one into DIR "
        "with the trace and BLER files it refers to (a script, or a group name such as 003, "
        "copies its whole group) and never overwrites a file; 'path NAME' prints where the "
        "installed file is, to run it as it is.",
    )
    p.set_defaults(handler=functools.partial(_run, user_error), action=None)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    copy = actions.add_parser(
        "copy",
        help="copy an example (and the files it refers to) into DIR",
        description="Copy the example NAME into DIR (created if missing), with the trace and "
        "BLER-table files it refers to; a sweep file comes with its scenario. A script, or a "
        "group name such as 003, copies every file of the group. Nothing is overwritten: if a "
        "file of the copy exists, nothing is written and the exit status is 2.",
    )
    copy.add_argument("name", metavar="NAME", help="example name, as 'celltcp examples' lists")
    copy.add_argument("dir", metavar="DIR", help="destination directory")
    path = actions.add_parser("path", help="print the installed file of an example")
    path.add_argument("name", metavar="NAME", help="example name, as 'celltcp examples' lists")
