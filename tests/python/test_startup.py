"""The command starts without the heavy libraries: ``celltcp --version``, ``--help`` and
``validate`` never import pandas, pyarrow, numpy, matplotlib or DuckDB, and ``run`` only what its
outputs need (docs/benchmarks.md has the whole-process times)."""

from __future__ import annotations

import subprocess
import sys

import celltcp
from conftest import EXAMPLES

HEAVY = ("pandas", "pyarrow", "numpy", "matplotlib", "duckdb")


def _imported_after(code: str) -> list[str]:
    loaded = f"','.join(m for m in {HEAVY!r} if m in sys.modules)"
    probe = f"{code}\nimport sys\nprint('HEAVY:' + {loaded})"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("HEAVY:"))
    return [m for m in line.removeprefix("HEAVY:").split(",") if m]


def test_importing_the_package_and_the_command_loads_no_heavy_library():
    assert _imported_after("import celltcp, celltcp.cli") == []


def test_version_help_and_validate_load_no_heavy_library():
    for argv in (
        ["--version"],
        ["--help"],
        ["validate", str(EXAMPLES / "wired-chain.toml")],
        ["run", "--help"],
    ):
        code = (
            "import sys\nfrom celltcp.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass"
        )
        assert _imported_after(code) == [], argv


def test_a_run_loads_only_what_its_outputs_need(tmp_path):
    """Without traces a run imports no heavy library; writing series takes pyarrow (and the numpy
    it imports), never pandas, which pyarrow loads as soon as it converts a Python object."""
    scenario = EXAMPLES / "wired-chain-tcp.toml"
    untraced = tmp_path / "untraced.toml"
    text = scenario.read_text()
    untraced.write_text(text[: text.index("[trace]")])
    for path, expected in ((untraced, []), (scenario, ["pyarrow", "numpy"])):
        argv = ["run", str(path), "--set", "simulation.duration=1s", "--quiet", "--out"]
        argv.append(str(tmp_path / path.stem))
        code = (
            f"from celltcp.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
        )
        assert _imported_after(code) == expected, path.name
        assert (tmp_path / path.stem / "summary.json").is_file()


def test_version_option(cli):
    done = cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"celltcp {celltcp.__version__}"


def test_the_public_names_resolve_on_first_use():
    assert celltcp.Scenario.__name__ == "Scenario"
    assert celltcp.RunResult.__name__ == "RunResult"
    assert callable(celltcp.run)
    assert {"Scenario", "RunResult", "run", "sweep", "models"} <= set(dir(celltcp))


def test_the_callable_sweep_module_has_sweeps_signature_and_doc():
    import inspect

    from celltcp.sweep.runner import sweep

    assert inspect.signature(celltcp.sweep) == inspect.signature(sweep)
    assert "workers" in str(inspect.signature(celltcp.sweep))
    assert type(celltcp.sweep).__call__.__doc__ == sweep.__doc__
