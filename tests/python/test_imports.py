"""Every public entry module imports on its own in a fresh interpreter: an import cycle shows
only when its module is the first one imported (``from celltcp.study import load`` once failed
so, through celltcp.reproduce's seeds, which are declarations over celltcp.study)."""

from __future__ import annotations

import subprocess
import sys

import pytest

ENTRY_MODULES = [
    "celltcp",
    "celltcp.study",
    "celltcp.studies.lossy_link",
    "celltcp.studies.handover_policies",
    "celltcp.reproduce",
    "celltcp.reproduce.verdict",
    "celltcp.sweep",
    "celltcp.plots",
    "celltcp.models",
    "celltcp.emulate",
    "celltcp.cli",
]


@pytest.mark.parametrize("module", ENTRY_MODULES)
def test_an_entry_module_imports_first(module: str) -> None:
    r = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr.strip().splitlines()[-1:]
