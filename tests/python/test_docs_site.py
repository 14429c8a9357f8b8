"""The documentation site builds from docs/ without a warning (`make docs` runs the same
`mkdocs build --strict`), with the API reference generated from the docstrings and the stubs,
the tutorial rendered, and links out of docs/ pointing at the source repository."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return out


def test_every_page_of_docs_is_on_the_site(site):
    pages = sorted(p.stem for p in (REPO / "docs").glob("*.md") if p.name != "README.md")
    for page in pages:
        assert (site / page / "index.html").is_file(), page
    assert (site / "index.html").is_file()
    assert (site / "tutorial" / "index.html").is_file()


def test_the_api_reference_comes_from_the_docstrings_and_the_stubs(site):
    examples_page = (site / "api" / "examples" / "index.html").read_text()
    assert "celltcp.examples.copy" in examples_page
    assert "Copies the example" in examples_page  # the docstring's first line
    core = (site / "api" / "core" / "index.html").read_text()
    assert "ScenarioError" in core and "DEBUG_BUILD" in core
    api = (site / "api" / "celltcp" / "index.html").read_text()
    assert "celltcp.runner.run" in api and "celltcp.scenario.Scenario" in api


def test_links_out_of_docs_point_at_the_repository(site):
    emulation = (site / "emulation" / "index.html").read_text()
    assert "https://github.com/celltcp/celltcp/blob/main/crates/emu/src/lib.rs" in emulation
