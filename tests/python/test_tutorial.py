"""docs/tutorial.ipynb runs from top to bottom in a Jupyter kernel, and shows what a notebook user
expects: a result as HTML tables, figures as images without ``%matplotlib inline``, a sweep with
its progress bar."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

from conftest import REPO

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

TUTORIAL = REPO / "docs" / "tutorial.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> object:
    # Run in a copy of docs/ outside the checkout, so nothing is written into it and the scenario
    # comes from the library installed with the package.
    root = tmp_path_factory.mktemp("tutorial")
    (root / "docs").mkdir()
    shutil.copy(TUTORIAL, root / "docs" / TUTORIAL.name)
    nb = nbformat.read(root / "docs" / TUTORIAL.name, as_version=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        nbclient.NotebookClient(
            nb,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": str(root / "docs")}},
        ).execute()
    return nb


def _outputs(nb, source_part: str) -> list[dict]:
    cell = next(c for c in nb.cells if c.cell_type == "code" and source_part in c.source)
    return list(cell.outputs)


def _data(outputs: list[dict], mime: str) -> list[str]:
    return [o["data"][mime] for o in outputs if "data" in o and mime in o["data"]]


def test_the_tutorial_runs_without_errors(executed):
    for cell in executed.cells:
        if cell.cell_type == "code":
            assert not [o for o in cell.outputs if o.output_type == "error"], cell.source


def test_a_result_shows_as_tables(executed):
    html = _data(_outputs(executed, "result = celltcp.run(scenario)"), "text/html")
    assert html and "<table>" in html[0] and "RunResult" in html[0] and "Mbps" in html[0]


def test_figures_show_as_images_without_matplotlib_magic(executed):
    assert not any("%matplotlib" in c.source for c in executed.cells)
    for part in ("plots.cwnd_rtt", "plots.metric_vs_parameter"):
        assert _data(_outputs(executed, part), "image/png"), part


def test_the_sweep_shows_progress_and_sorts_rates_as_numbers(executed):
    outputs = _outputs(executed, "celltcp.sweep(spec")
    text = " ".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    widgets = _data(outputs, "application/vnd.jupyter.widget-view+json")
    assert widgets or "18/18" in text, outputs
    table = _data(outputs, "text/html")[0]
    assert table.index("5Mbps") < table.index("10Mbps") < table.index("25Mbps")


def test_the_checkout_is_untouched():
    assert not (Path(TUTORIAL.parent) / "out").exists()
