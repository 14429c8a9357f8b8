"""A reproduction's report as a list of blocks, rendered to Markdown and to one HTML page.

The HTML page is self-contained: its figures are embedded as base64 PNG (``data:`` URIs), so it
can be mailed or archived alone. The Markdown file refers to the same figures written beside it
as PNG files. Figures are drawn with matplotlib's Agg backend, which needs no display.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CLAIMS_FILE",
    "Bullets",
    "ClaimTable",
    "Document",
    "Figure",
    "Heading",
    "Paragraph",
    "Table",
    "fmt_ci",
    "mean_ci",
    "png_of",
]


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """Text with Markdown emphasis (``**bold**``) and code spans (`` `x` ``) only."""

    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class ClaimTable(Table):
    """The claims table (:func:`celltcp.reproduce.verdict.claim_table`): its rows are also kept
    as :class:`~celltcp.reproduce.verdict.ClaimRow` objects for ``claims.json``."""

    claims: tuple[Any, ...] = ()


#: The machine-readable claims beside report.md (docs/reproductions.md, "claims.json").
CLAIMS_FILE = "claims.json"


@dataclass(frozen=True)
class Figure:
    """A PNG image; ``file`` is its name beside report.md."""

    file: str
    png: bytes
    caption: str


Block = Heading | Paragraph | Bullets | Table | Figure


def png_of(fig: Any, dpi: int = 110) -> bytes:
    """The PNG bytes of a matplotlib figure, which is closed afterwards."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    finally:
        plt.close(fig)
    return buffer.getvalue()


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`]+)`")


def _inline_html(text: str) -> str:
    """Escapes ``text`` and turns its ``**bold**`` and `` `code` `` into HTML."""
    out = html.escape(text)
    out = _CODE.sub(r"<code>\1</code>", out)
    return _BOLD.sub(r"<strong>\1</strong>", out)


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #bbb; padding: 0.25rem 0.5rem; vertical-align: top; text-align: left; }
th { background: #eee; }
code { background: #f4f4f4; padding: 0 0.2rem; }
figure { margin: 1.5rem 0; }
figcaption { font-size: 0.9rem; color: #444; }
img { max-width: 100%; }
"""


@dataclass
class Document:
    """A report: a title and blocks in reading order."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    #: Runs behind the report, per experiment (what the sweeps returned, stored runs included).
    runs: dict[str, int] = field(default_factory=dict)
    #: What :meth:`claims_record` adds at the top of ``claims.json`` (the reproduction's name,
    #: its mode, the wall time); set by :func:`celltcp.reproduce.reproduce`.
    meta: dict[str, Any] = field(default_factory=dict)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)

    @property
    def claims(self) -> list[Any]:
        """Every claim row of the report's claims tables, in reading order."""
        return [row for b in self.blocks if isinstance(b, ClaimTable) for row in b.claims]

    def tables(self) -> dict[str, Table]:
        """The report's tables other than the claims, by name: the text of the heading above
        each, with `` (2)``, `` (3)``… for further tables under the same heading. The seed pages
        quote them through ``celltcp.reproduce.publish`` (a ``table`` block), so that a figure
        on a page is the one the code produced."""
        named: dict[str, Table] = {}
        heading = self.title
        under = 0
        for b in self.blocks:
            if isinstance(b, Heading):
                heading, under = b.text, 0
            elif isinstance(b, Table) and not isinstance(b, ClaimTable):
                under += 1
                named[heading if under == 1 else f"{heading} ({under})"] = b
        return named

    def claims_record(self) -> dict[str, Any]:
        """The content of ``claims.json``: :attr:`meta`, the run counts and their total, one
        object per claim (:meth:`celltcp.reproduce.verdict.ClaimRow.as_dict`), and the other
        tables (:meth:`tables`). Everything but ``wall`` is a function of the runs' results, so
        the same reproduction gives the same record."""
        verdicts: dict[str, int] = {}
        rows = [c.as_dict() for c in self.claims]
        for r in rows:
            verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        return {
            **self.meta,
            "runs": dict(self.runs),
            "runs_total": sum(self.runs.values()),
            "verdicts": verdicts,
            "claims": rows,
            "tables": {
                name: {"header": list(t.header), "rows": [list(r) for r in t.rows]}
                for name, t in self.tables().items()
            },
        }

    @property
    def figures(self) -> list[Figure]:
        return [b for b in self.blocks if isinstance(b, Figure)]

    def markdown(self) -> str:
        lines = [f"# {self.title}", ""]
        for b in self.blocks:
            if isinstance(b, Heading):
                lines += ["#" * b.level + " " + b.text, ""]
            elif isinstance(b, Paragraph):
                lines += [b.text, ""]
            elif isinstance(b, Bullets):
                lines += [f"* {item}" for item in b.items] + [""]
            elif isinstance(b, Table):
                lines.append("| " + " | ".join(_md_cell(h) for h in b.header) + " |")
                lines.append("|" + "---|" * len(b.header))
                lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in b.rows]
                lines.append("")
            else:
                lines += [f"![{b.caption}]({b.file})", "", f"*{b.caption}*", ""]
        return "\n".join(lines)

    def html(self) -> str:
        parts = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head><body>",
            f"<h1>{_inline_html(self.title)}</h1>",
        ]
        for b in self.blocks:
            if isinstance(b, Heading):
                parts.append(f"<h{b.level}>{_inline_html(b.text)}</h{b.level}>")
            elif isinstance(b, Paragraph):
                parts.append(f"<p>{_inline_html(b.text)}</p>")
            elif isinstance(b, Bullets):
                items = "".join(f"<li>{_inline_html(i)}</li>" for i in b.items)
                parts.append(f"<ul>{items}</ul>")
            elif isinstance(b, Table):
                head = "".join(f"<th>{_inline_html(h)}</th>" for h in b.header)
                body = "".join(
                    "<tr>" + "".join(f"<td>{_inline_html(c)}</td>" for c in row) + "</tr>"
                    for row in b.rows
                )
                parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
            else:
                data = base64.b64encode(b.png).decode("ascii")
                parts.append(
                    f'<figure><img alt="{html.escape(b.caption)}" '
                    f'src="data:image/png;base64,{data}">'
                    f"<figcaption>{_inline_html(b.caption)}</figcaption></figure>"
                )
        parts.append("</body></html>")
        return "\n".join(parts) + "\n"

    def write(self, directory: Path) -> list[Path]:
        """Writes report.md, report.html, claims.json and the figures' PNG files; returns
        their paths."""
        written = []
        for f in self.figures:
            path = directory / f.file
            path.write_bytes(f.png)
            written.append(path)
        md = directory / "report.md"
        md.write_text(self.markdown(), encoding="utf-8")
        page = directory / "report.html"
        page.write_text(self.html(), encoding="utf-8")
        claims = directory / CLAIMS_FILE
        claims.write_text(
            json.dumps(self.claims_record(), indent=1, ensure_ascii=False, allow_nan=False) + "\n",
            encoding="utf-8",
        )
        return [md, page, claims, *written]

    def publish(
        self,
        out: str | os.PathLike[str],
        *,
        started: float,
        workers: int | None,
        store_reused: bool,
        overwrite: bool,
        writer: str,
    ) -> list[Path]:
        """Stamps claims.json's ``wall`` header and writes the report into ``out``, which
        appears whole or not at all (:func:`celltcp.output.atomic_output_dir`).

        ``wall`` — the wall time since ``started`` (a :func:`time.perf_counter` reading; runs
        found in the store cost nothing), the CPUs, the workers, the machine's load when it
        ends and whether a store was reused — is the one field that differs between two
        invocations of the same study. Returns the written files' final paths."""
        from celltcp.output import atomic_output_dir

        self.meta["wall"] = {
            "seconds": round(time.perf_counter() - started, 1),
            "cpus": os.cpu_count(),
            "workers": workers,
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "store_reused": store_reused,
        }
        final = Path(os.path.abspath(os.fspath(out)))
        with atomic_output_dir(out, overwrite=overwrite, writer=writer) as tmp:
            written = self.write(tmp)
        return [final / p.name for p in written]


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Mean and the half-width of its Student-t interval (NaN with fewer than two values)."""
    from celltcp.sweep.stats import mean_interval

    n, mean, _std, low, high = mean_interval(list(values), confidence)
    half = (high - low) / 2.0 if n >= 2 else float("nan")
    return mean, half


def fmt_ci(mean: float, half: float, digits: int = 3) -> str:
    """``1.020 ± 0.041``; the ± part is left out when the interval is undefined."""
    if math.isnan(mean):
        return "n/a"
    if math.isnan(half):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {half:.{digits}f}"
