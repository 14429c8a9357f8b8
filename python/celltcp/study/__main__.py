"""``python -m celltcp.study FILE``: the same as ``celltcp study FILE``."""

from __future__ import annotations

import sys

from celltcp.cli import main

if __name__ == "__main__":
    sys.exit(main(["study", *sys.argv[1:]]))
