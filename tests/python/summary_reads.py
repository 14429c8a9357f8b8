"""Every place the Python package reads ``summary.json`` by key, found by reading its source.

Three kinds of reads, each resolved against the output schema by the contract test
(tests/python/test_output_contract.py):

* **dotted paths**: string literals (and f-strings, a placeholder read as ``*``) that start with a
  top-level key of the summary, e.g. the sweep metrics ``flows.*.goodput_bps`` or
  ``links.radio.a_to_b.drops.queue_full``. The scenario's override paths (``links.access.rate``)
  have the same shape; a path that the output schema does not know but the input schema does is
  counted as an override, not a read.
* **chains**: subscripts and ``.get`` calls on a summary — ``result.summary["flows"]``, a name
  ``summary``, a parameter annotated with a type of :mod:`celltcp.summary_types` — followed
  through assignments (``h = summary.get("handovers")``), ``or {}``, ``for … in x.items()``,
  ``.values()`` and list iteration (``[]``) within a function.
* **comparisons** of such a chain with string literals (``h.get("cause") == "a3"``): the
  literals must be labels of the key's label set.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "celltcp"

#: A literal with this shape is a dotted path (``*`` matching one level).
_DOTTED = re.compile(r"[A-Za-z0-9_*-]+(\.[A-Za-z0-9_*-]+)+\.?")
#: Last segments that make a dotted literal a file name, not a path.
_FILE_SUFFIXES = {"toml", "py", "json", "parquet", "csv", "md", "html", "png", "svg", "pdf", "txt"}


@dataclass(frozen=True)
class Read:
    """One read: where, and the path it reads (``*`` any key, ``[]`` a list's items)."""

    file: str
    line: int
    path: tuple[str, ...]
    kind: str  # "dotted", "chain" or "label"
    #: For "label": the literals compared with the value at ``path``.
    labels: tuple[str, ...] = ()
    #: A dotted literal ending in "." (an f-string's prefix): the path of a table.
    prefix: bool = False

    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class _Scope:
    env: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _segments_of_literal(node: ast.expr) -> tuple[str, ...] | None:
    """The segments of a dotted literal (a placeholder of an f-string read as ``*``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "*"
            for v in node.values
        )
    else:
        return None
    if not _DOTTED.fullmatch(text):
        return None
    return tuple(text.split("."))


class _Scanner(ast.NodeVisitor):
    def __init__(self, file: str, roots: frozenset[str], types: Mapping[str, tuple[str, ...]]):
        self.file = file
        self.roots = roots
        self.types = types
        self.reads: list[Read] = []
        self.scopes = [_Scope()]

    # -- the value of an expression as a path into the summary ---------------------------------

    def path_of(self, node: ast.expr) -> tuple[str, ...] | None:
        if isinstance(node, ast.Attribute) and node.attr == "summary":
            return ()
        if isinstance(node, ast.Name):
            for scope in reversed(self.scopes):
                if node.id in scope.env:
                    return scope.env[node.id]
            return () if node.id == "summary" else None
        if isinstance(node, ast.Subscript):
            base = self.path_of(node.value)
            if base is None:
                return None
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return (*base, key.value)
            if isinstance(key, ast.Constant) and isinstance(key.value, int):
                return (*base, "[]")
            return (*base, "*")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "get" and node.args:
                base = self.path_of(node.func.value)
                if base is None:
                    return None
                key = node.args[0]
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    return (*base, key.value)
                return (*base, "*")
            if node.func.attr in ("values", "items", "keys") and not node.args:
                return self.path_of(node.func.value)
        if isinstance(node, ast.Attribute) and node.attr == "handover_summary":
            return ("handovers",)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            return self.path_of(node.values[0])
        # list(x), dict(x), sorted(x): the same value.
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("list", "dict", "sorted", "tuple")
            and len(node.args) == 1
        ):
            return self.path_of(node.args[0])
        return None

    def _record(self, node: ast.expr, path: tuple[str, ...] | None) -> None:
        if path:
            self.reads.append(Read(self.file, node.lineno, path, "chain"))

    # -- statements -------------------------------------------------------------------------

    def _bind(self, target: ast.expr, path: tuple[str, ...] | None) -> None:
        if isinstance(target, ast.Name):
            env = self.scopes[-1].env
            if path is None:
                env.pop(target.id, None)
            else:
                env[target.id] = path

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        scope = _Scope()
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            path = self._annotated(arg.annotation)
            if path is not None:
                scope.env[arg.arg] = path
        self.scopes.append(scope)
        self.generic_visit(node)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _annotated(self, annotation: ast.expr | None) -> tuple[str, ...] | None:
        """A parameter typed with a summary type: ``HandoverEntry``, ``Sequence[HandoverEntry]``."""
        if annotation is None:
            return None
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(annotation, ast.Name) and annotation.id in self.types:
            return self.types[annotation.id]
        if isinstance(annotation, ast.Subscript):
            # Sequence[HandoverEntry]: the list whose items the entries are.
            inner = self._annotated(annotation.slice)
            if inner is not None and inner[-1:] == ("[]",):
                return inner[:-1]
        return None

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        path = self.path_of(node.value)
        for target in node.targets:
            self._bind(target, path)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self._bind(node.target, self.path_of(node.value))

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self._bind(node.target, self.path_of(node.value))

    def _iterate(self, target: ast.expr, iterable: ast.expr) -> None:
        base = self.path_of(iterable)
        if base is None:
            return
        is_items = (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr == "items"
        )
        is_values = (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr == "values"
        )
        if is_items and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            self._bind(target.elts[1], (*base, "*"))
        elif is_values:
            self._bind(target, (*base, "*"))
        elif base and base[-1] == "list":
            self._bind(target, (*base, "[]"))

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self._iterate(node.target, node.iter)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self.visit(node.iter)
        self._iterate(node.target, node.iter)
        for cond in node.ifs:
            self.visit(cond)

    def _visit_comprehension_expr(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp
    ) -> None:
        self.scopes.append(_Scope(dict(self.scopes[-1].env)))
        for gen in node.generators:
            self.visit_comprehension(gen)
        self.visit(node.elt)
        self.scopes.pop()

    visit_ListComp = _visit_comprehension_expr  # type: ignore[assignment]
    visit_SetComp = _visit_comprehension_expr  # type: ignore[assignment]
    visit_GeneratorExp = _visit_comprehension_expr  # type: ignore[assignment]

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self.scopes.append(_Scope(dict(self.scopes[-1].env)))
        for gen in node.generators:
            self.visit_comprehension(gen)
        self.visit(node.key)
        self.visit(node.value)
        self.scopes.pop()

    # -- expressions --------------------------------------------------------------------------

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._record(node, self.path_of(node))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            self._record(node, self.path_of(node))
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        path = self.path_of(node.left)
        if path:
            literals: list[str] = []
            for comparator in node.comparators:
                if isinstance(comparator, ast.Constant) and isinstance(comparator.value, str):
                    literals.append(comparator.value)
                elif isinstance(comparator, (ast.Tuple, ast.List, ast.Set)):
                    literals += [
                        e.value
                        for e in comparator.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    ]
            if literals:
                self.reads.append(Read(self.file, node.lineno, path, "label", tuple(literals)))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        self._dotted(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self._dotted(node)
        self.generic_visit(node)

    def _dotted(self, node: ast.Constant | ast.JoinedStr) -> None:
        segments = _segments_of_literal(node)
        if not segments or segments[0] not in self.roots:
            return
        if segments[-1] in _FILE_SUFFIXES:
            return
        prefix = segments[-1] == ""
        path = segments[:-1] if prefix else segments
        self.reads.append(Read(self.file, node.lineno, path, "dotted", prefix=prefix))


def scan(
    roots: frozenset[str], types: Mapping[str, tuple[str, ...]], package: Path = PACKAGE
) -> Iterator[Read]:
    """Every read in the package's modules. ``roots``: the summary's top-level keys (a dotted
    literal must start with one); ``types``: the summary types a parameter may be annotated
    with, each with its path (``HandoverEntry`` → ``("handovers", "list", "[]")``)."""
    for path in sorted(package.rglob("*.py")):
        if path.name == "summary_types.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        scanner = _Scanner(str(path.relative_to(package.parent)), roots, types)
        scanner.visit(tree)
        yield from scanner.reads
