"""``python -m celltcp``: the command line (same as the ``celltcp`` command)."""

import sys

from celltcp.cli import main

sys.exit(main())
