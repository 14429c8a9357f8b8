"""mkdocs hook: links that leave docs/ point at the source repository.

A page links to code as ``[x](../crates/radio/src/cell/tti.rs)`` so that the link works in a
checkout; the site holds docs/ only, so such links become addresses in the repository
(``repo_url``/blob/main/…) before mkdocs validates them.
"""

from __future__ import annotations

import posixpath
import re

#: ``](target)`` of a Markdown link or image, target relative and not an anchor or address.
_LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s]+)\)")


def on_page_markdown(markdown, page, config, files):  # noqa: ARG001 - mkdocs hook signature
    base = config["repo_url"].rstrip("/") + "/blob/main/"
    page_dir = posixpath.dirname(page.file.src_uri)

    def rewrite(match: re.Match) -> str:
        target = match.group(1)
        resolved = posixpath.normpath(posixpath.join("docs", page_dir, target))
        if resolved.startswith("docs/"):
            return match.group(0)
        return f"]({base}{resolved})"

    return _LINK.sub(rewrite, markdown)
