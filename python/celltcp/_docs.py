"""Where an installed user finds the documentation: the pages of docs/ as a web site.

Help texts and messages name a page by its address here rather than by its path in the
repository (``docs/sweeps.md``), which a wheel does not contain. The addresses are those of
``[project.urls]`` in pyproject.toml (a test keeps the two equal); ``make docs`` builds the site
with mkdocs, whose page for ``docs/NAME.md`` is ``NAME/``.
"""

from __future__ import annotations

__all__ = ["DOCS_URL", "SOURCE_URL", "docs_url"]

#: The documentation site (the rendering of docs/).
DOCS_URL = "https://celltcp.github.io/celltcp/"
#: The source repository.
SOURCE_URL = "https://github.com/celltcp/celltcp"


def docs_url(page: str, section: str = "") -> str:
    """The address of ``docs/<page>.md`` on the site, e.g. ``docs_url("sweeps")``; ``section``
    is a heading's anchor as mkdocs makes it (``"output-directories"``)."""
    anchor = f"#{section}" if section else ""
    return f"{DOCS_URL}{page}/{anchor}"
