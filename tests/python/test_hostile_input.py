"""Hostile and careless input (issue 14, "Input that must get exit 2 and one short line"):
each case is refused with exit status 2 and one short line naming a key or a file, before
anything runs or is written."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

import celltcp
from celltcp import ScenarioError
from celltcp.cli import main
from celltcp.scenario import Scenario
from conftest import CHAIN_TOML, EXAMPLES, run_cli

#: Longest error line accepted: the key, the message with values cut to ~80 characters.
MAX_LINE = 600


def refused(capsys: pytest.CaptureFixture[str], *argv: str | os.PathLike[str]) -> str:
    """Runs the CLI in-process; asserts exit 2 and one short error line, returns it."""
    code = main([str(a) for a in argv])
    _out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, (code, err[-2000:])
    assert len(lines) == 1, err[-2000:]
    assert lines[0].startswith("celltcp: error: "), lines[0][:200]
    assert len(lines[0]) <= MAX_LINE, len(lines[0])
    assert "Traceback" not in err
    return lines[0]


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- deep nesting ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "x = " + "[" * 1000 + "]" * 1000 + "\n",
        "x = " + "{a = " * 1000 + "1" + "}" * 1000 + "\n",
        ".".join(["a"] * 5000) + " = 1\n",
        "[" + ".".join(["t"] * 5000) + "]\n",
    ],
    ids=["arrays-1000", "inline-tables-1000", "dotted-keys-5000", "table-header-5000"],
)
def test_deep_nesting_is_one_line_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> None:
    path = write(tmp_path, CHAIN_TOML + body)
    for command in (["validate"], ["run", "--out", tmp_path / "out"]):
        line = refused(capsys, *command, path)
        assert str(path) in line and "deep" in line
    assert not (tmp_path / "out").exists()


def test_a_sweep_nested_50000_deep_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write(tmp_path, CHAIN_TOML)
    for body in (
        "[grid]\n" + ".".join(["a"] * 50_000) + " = [1]\n",
        "[grid]\nx = " + "[" * 50_000 + "]" * 50_000 + "\n",
    ):
        sweep = write(tmp_path, f'scenario = "{base.name}"\n' + body, "sweep.toml")
        line = refused(capsys, "sweep", sweep, "--store", tmp_path / "store", "--quiet")
        assert "sweep.toml" in line and "deep" in line
    assert not (tmp_path / "store").exists()


def test_deep_values_from_python_are_refused_without_recursion() -> None:
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(ScenarioError, match="deep"):
        Scenario.from_toml(CHAIN_TOML).set("trace.queues", deep)
    with pytest.raises(ScenarioError, match="deep"):
        celltcp.run(CHAIN_TOML, set={"trace.queues": deep})


# -- sweeps that expand too far -------------------------------------------------------------------


def test_a_billion_runs_is_refused_before_expanding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write(tmp_path, CHAIN_TOML)
    sweep = write(tmp_path, f'scenario = "{base.name}"\nruns = 1000000000\n', "sweep.toml")
    started = time.perf_counter()
    line = refused(capsys, "sweep", sweep, "--store", tmp_path / "store", "--quiet")
    assert time.perf_counter() - started < 10
    assert "runs:" in line and "max_runs" in line and "1000000000" in line
    grid = "".join(
        f'"simulation.seed{i}" = [{", ".join(map(str, range(10)))}]\n' for i in range(10)
    )
    sweep = write(tmp_path, f'scenario = "{base.name}"\n[grid]\n{grid}', "grid.toml")
    line = refused(capsys, "sweep", sweep, "--store", tmp_path / "store", "--quiet")
    assert "max_runs" in line and "10000000000" in line
    assert not (tmp_path / "store").exists()


def test_max_runs_is_the_documented_override(tmp_path: Path) -> None:
    from celltcp.sweep.spec import DEFAULT_MAX_RUNS, load_spec

    base = write(tmp_path, CHAIN_TOML)
    sweep = write(tmp_path, f'scenario = "{base.name}"\nruns = 5\nmax_runs = 4\n', "s.toml")
    with pytest.raises(ScenarioError) as e:
        load_spec(sweep)
    assert e.value.key == "runs"
    sweep.write_text(f'scenario = "{base.name}"\nruns = 5\nmax_runs = 5\n')
    assert len(load_spec(sweep).runs) == 5
    assert DEFAULT_MAX_RUNS == 100_000
    docs = (Path(__file__).resolve().parents[2] / "docs" / "sweeps.md").read_text()
    assert "max_runs" in docs and "100,000" in docs


# -- trace rows -----------------------------------------------------------------------------------


def test_a_one_nanosecond_trace_interval_is_refused_by_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, CHAIN_TOML)
    line = refused(capsys, "validate", path, "--set", "trace.interval=1ns")
    assert "trace.interval" in line and "rows" in line
    # 2 s / 1 ns + 1 samples of 3 series (the access queue both ways, the video flow).
    assert "6000000003 rows" in line
    line = refused(capsys, "run", path, "--set", "trace.interval=1ns", "--out", tmp_path / "o")
    assert "trace.interval" in line
    assert not (tmp_path / "o").exists()
    # The bound leaves ordinary intervals alone: 1 ms over 2 s is 6,003 rows.
    assert main(["validate", str(path), "--set", "trace.interval=1ms"]) == 0


# -- files that are not regular files -------------------------------------------------------------


def _trace_scenario(trace: str) -> str:
    return CHAIN_TOML.replace(
        'rate = "10Mbps"\ndelay = "5ms"',
        f'delay = "5ms"\na_to_b = {{ trace = "{trace}" }}\nb_to_a = {{ rate = "10Mbps" }}',
    )


def _fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def _bounded(fn, seconds: float = 10.0):
    """Runs fn in a thread; fails (rather than hanging the suite) when it takes longer."""
    box: dict = {}
    thread = threading.Thread(target=lambda: box.update(result=fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    return box["result"]


def test_fifos_and_devices_as_input_files_are_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = _fifo(tmp_path)
    for target in (fifo, "/dev/zero"):
        path = write(tmp_path, _trace_scenario(str(target)))
        line = _bounded(lambda path=path: refused(capsys, "validate", path))
        assert "links.access.a_to_b.trace" in line and "not a regular file" in line
        # The scenario file itself, and a sweep file.
        line = _bounded(lambda target=target: refused(capsys, "validate", target))
        assert "not a regular file" in line
        line = _bounded(lambda target=target: refused(capsys, "sweep", target, "--quiet"))
        assert "not a regular file" in line
    # A cell's BLER table.
    cell = (EXAMPLES / "lte-single-cell.toml").read_text()
    for target in (fifo, "/dev/zero"):
        text = cell.replace("[cells.cell1]\n", f'[cells.cell1]\nbler_table = "{target}"\n')
        path = write(tmp_path, text)
        line = _bounded(lambda path=path: refused(capsys, "validate", path))
        assert "cells.cell1.bler_table" in line and "not a regular file" in line


# -- non-finite numbers, arrays of the wrong length -----------------------------------------------


@pytest.mark.parametrize(
    ("override", "key", "found"),
    [
        ("cells.{cell}.tx_power_dbm=inf", "cells.{cell}.tx_power_dbm", "inf"),
        ("cells.{cell}.position=[nan, 0.0]", "cells.{cell}.position[0]", "NaN"),
        (
            "cells.{cell}.interferers=[{{ position = [0.0, 1.0], tx_power_dbm = inf }}]",
            "cells.{cell}.interferers[0].tx_power_dbm",
            "inf",
        ),
    ],
)
def test_non_finite_numbers_name_the_key_in_validate_and_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], override: str, key: str, found: str
) -> None:
    scenario = Scenario.load(EXAMPLES / "lte-single-cell.toml")
    cell = next(iter(scenario.get("cells")))
    path = write(tmp_path, scenario.to_toml())
    for command in (["validate"], ["run", "--out", tmp_path / "o"]):
        line = refused(capsys, *command, path, "--set", override.format(cell=cell))
        assert f"{key.format(cell=cell)}: expected a finite number, found {found}" in line
        assert "Position {" not in line
    assert not (tmp_path / "o").exists()


def test_a_position_with_three_elements_is_refused(tmp_path: Path) -> None:
    scenario = Scenario.load(EXAMPLES / "lte-single-cell.toml")
    cell = next(iter(scenario.get("cells")))
    with pytest.raises(ScenarioError) as e:
        scenario.validate([(f"cells.{cell}.position", "[1.0, 2.0, 3.0]")])
    assert e.value.key == f"cells.{cell}.position"
    assert e.value.message == "expected an array of length 2, found an array of 3"


# -- positions of syntax errors, bounded echoes ----------------------------------------------------


def test_errors_never_point_into_a_re_serialised_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # tomllib reads integers of any size; the core's parser (64-bit) used to fail on the text
    # written back from the tables, at a line of that text, not of the user's file.
    text = CHAIN_TOML.replace("seed = 1", "seed = 99999999999999999999")
    lines = len(text.splitlines())
    line = refused(capsys, "validate", write(tmp_path, text))
    assert "simulation.seed" in line and "out of range" in line
    assert "line" not in line.split("simulation.seed", 1)[1] or f"line {lines + 1}" not in line


def test_the_core_reads_the_users_own_text() -> None:
    # The text is parsed once, by the core: an edited scenario is validated from its tree, and
    # an error in the text names the user's own line (below three lines of comments here).
    text = "# comment\n\n\n" + CHAIN_TOML
    s = Scenario.from_toml(text, source="x.toml")
    s.set("simulation.seed", 2)
    assert s.validate()["simulation"]["seed"] == 2
    broken = text.replace("seed = 1", "seed = = 1")
    line = broken.splitlines().index("seed = = 1") + 1
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml(broken, source="x.toml")
    assert e.value.key == "x.toml"
    assert e.value.message.startswith(f"TOML syntax error at line {line}, column 8: ")


@pytest.mark.parametrize(
    "value",
    ["x" * 10_000_000, "y " * 50_000, "\x00\x01\n" * 1000],
    ids=["10MB-value", "100000-char-line", "control-characters"],
)
def test_echoed_values_are_cut_to_about_80_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    scenario = Scenario.from_toml(CHAIN_TOML)
    scenario.set("links.access.rate", value)
    path = tmp_path / "s.toml"
    scenario.save(path)
    line = refused(capsys, "validate", path)
    assert line.startswith("celltcp: error: links.access.rate: '")
    echoed = line.split("'")[1]
    assert len(echoed) <= 80
    # The same value as a key, and as an override.
    line = refused(
        capsys, "validate", write(tmp_path, CHAIN_TOML), "--set", f"links.access.rate={value}"
    )
    assert len(line) <= MAX_LINE


def test_a_file_that_is_not_a_trace_is_echoed_briefly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_line = tmp_path / "long.trace"
    long_line.write_text("z" * 100_000 + "\n")
    sources = [long_line]
    if Path("/proc/self/environ").exists():
        sources.append(Path("/proc/self/environ"))
    for source in sources:
        line = refused(capsys, "validate", write(tmp_path, _trace_scenario(str(source))))
        assert "links.access.a_to_b.trace" in line


# -- silently accepted nonsense --------------------------------------------------------------------


def test_a_manual_handover_to_the_serving_cell_is_refused() -> None:
    scenario = Scenario.load(EXAMPLES / "000" / "forwarding.toml")
    manual = scenario.get("ran.handover.manual")
    assert manual[0]["target"] == "target"
    scenario.validate()
    manual[0]["target"] = "source"  # ue_ref is listed by cell 'source'
    scenario.set("ran.handover.manual", manual)
    with pytest.raises(ScenarioError) as e:
        scenario.validate()
    assert e.value.key == "ran.handover.manual[0].target"
    assert "served by cell 'source'" in e.value.message
    # A second handover back to where the first one came from is a real handover.
    manual[0]["target"] = "target"
    manual.append({"at": "3s", "ue": "ue_ref", "target": "source"})
    scenario.set("ran.handover.manual", manual)
    scenario.validate()
    manual[1]["target"] = "target"
    scenario.set("ran.handover.manual", manual)
    with pytest.raises(ScenarioError) as e:
        scenario.validate()
    assert e.value.key == "ran.handover.manual[1].target"


def test_a_ue_that_is_also_a_wired_host_is_refused() -> None:
    scenario = Scenario.load(EXAMPLES / "000" / "forwarding.toml")
    scenario.set("links.wired_ue", {"a": "router", "b": "ue_t1", "rate": "1Gbps", "delay": "1ms"})
    with pytest.raises(ScenarioError) as e:
        scenario.validate()
    assert e.value.key == "cells.target.ues.ue_t1"
    assert "wired link 'wired_ue'" in e.value.message


def test_a_ue_no_cell_can_serve_at_the_start_is_refused() -> None:
    scenario = Scenario.load(EXAMPLES / "000" / "forwarding.toml")
    scenario.validate()
    scenario.set("cells.target.ues.ue_t1.position", [1.0e6, 0.0])
    with pytest.raises(ScenarioError) as e:
        scenario.validate()
    assert e.value.key == "cells.target.ues.ue_t1.position"
    assert "no cell can serve it" in e.value.message and "q_rxlevmin_dbm" in e.value.message


# -- one override parser ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("trace.queues", ["access", "core"]),
        ("links.access.queue", {"kind": "droptail", "limit": "20p"}),
        ("simulation.seed", 7),
        ("links.access.a_to_b.loss", {"kind": "bernoulli", "p": 0.01}),
    ],
)
def test_run_set_accepts_what_scenario_set_accepts(key: str, value: object) -> None:
    by_set = Scenario.from_toml(CHAIN_TOML).set(key, value).set("simulation.duration", "200ms")
    expected = celltcp.run(by_set).summary
    got = celltcp.run(CHAIN_TOML, set={key: value, "simulation.duration": "200ms"}).summary
    assert got == expected
    from celltcp.runner import parse_overrides

    # --set reads the same text.
    (pair,) = parse_overrides({key: value})
    assert parse_overrides([f"{pair[0]}={pair[1]}"], origin="--set") == [pair]


@pytest.mark.parametrize("key", ["", "a..b", " a.b", "a .b", ".".join(["a"] * 5000)])
def test_one_rule_for_keys(key: str) -> None:
    with pytest.raises(ScenarioError):
        Scenario.from_toml(CHAIN_TOML).set(key, 1)
    with pytest.raises(ScenarioError):
        celltcp.run(CHAIN_TOML, set={key: 1})


def test_a_route_that_leaves_every_cells_coverage_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import warnings

    from celltcp.errors import ScenarioWarning

    scenario = Scenario.load(EXAMPLES / "000" / "forwarding.toml")
    scenario.set("simulation.duration", "200s")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario.validate()
    assert not [w for w in caught if issubclass(w.category, ScenarioWarning)]
    # 500 km/h away from both cells: out of reach of either within the 200 s.
    scenario.set("mobility.ue_ref", {"kind": "linear", "speed": "500km/h", "heading_deg": 180.0})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario.validate()
    (w,) = [w.message for w in caught if issubclass(w.category, ScenarioWarning)]
    assert w.key == "mobility.ue_ref"
    assert "leaves every cell's coverage at" in w.message
    # On the command line (a process of its own, whose warnings are not captured by the test
    # runner): exit 0, one warning line.
    path = tmp_path / "drive.toml"
    scenario.save(path)
    result = run_cli("validate", path)
    assert result.returncode == 0, result.stderr
    assert result.stderr_lines[0].startswith(
        "celltcp: warning: mobility.ue_ref: the route of UE 'ue_ref' leaves"
    ), result.stderr
    assert len(result.stderr_lines) == 1


def test_a_plain_cells_ue_out_of_its_reach_is_a_warning() -> None:
    import warnings

    from celltcp.errors import ScenarioWarning

    def found(scenario: Scenario) -> list[ScenarioWarning]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scenario.validate()
        return [w.message for w in caught if issubclass(w.category, ScenarioWarning)]

    scenario = Scenario.load(EXAMPLES / "lte-single-cell.toml")
    assert found(scenario) == []
    scenario.set("cells.cell1.ues.ue_far.position", [1_000_000.0, 0.0])
    (w,) = found(scenario)
    assert w.key == "cells.cell1.ues.ue_far.position"
    assert "would not camp on the cell" in w.message and "-124" in w.message


def test_a_nul_character_in_a_path_is_a_scenario_error(tmp_path: Path) -> None:
    # Found by the input fuzzer (seed 1381): os.stat raised ValueError, which escaped.
    from celltcp.sweep.spec import load_spec

    write(tmp_path, CHAIN_TOML)
    sweep = write(tmp_path, 'scenario = "s\\u0000.toml"\n', "sweep.toml")
    with pytest.raises(ScenarioError) as e:
        load_spec(sweep)
    assert "NUL" in str(e.value)
    with pytest.raises(ScenarioError):
        Scenario.load(str(tmp_path / "a\0b.toml"))


# -- an empty --out ----------------------------------------------------------------------------------


def test_an_empty_out_is_named_as_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Path("") is ".": the message named the current directory, not what was typed.
    path = write(tmp_path, CHAIN_TOML)
    for command in (
        ["run", path],
        ["reproduce", "000", "--quick"],
        ["emulate", path, "--host", "receiver", "--duration", "1s"],
    ):
        for extra in ([], ["--overwrite"]):
            line = refused(capsys, *command, "--out", "", *extra)
            assert line == 'celltcp: error: --out "": an empty path is not an output directory'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


# -- integers Python will not convert, seeds beyond 64 bits, stores in the wrong place -------------


def test_an_integer_of_thousands_of_digits_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python converts at most 4300 digits to an int; tomllib let that ValueError out.
    text = (EXAMPLES / "wired-chain.toml").read_text()
    big = write(tmp_path, text.replace("seed = ", "seed = " + "9" * 5000 + " #", 1))
    line = refused(capsys, "validate", big)
    assert "integers fit in 64 bits" in line and "line " in line
    sweep = write(
        tmp_path, f'scenario = "{EXAMPLES / "wired-chain.toml"}"\nruns = {"9" * 5000}\n', "x.toml"
    )
    assert "integers fit in 64 bits" in refused(capsys, "sweep", sweep, "--store", tmp_path / "st")
    with pytest.raises(ScenarioError, match="an integer of 16610 bits is out of range"):
        celltcp.run((EXAMPLES / "wired-chain.toml").read_text(), set={"simulation.seed": 10**5000})


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--seed", str(2**64), "must be at most 2^63 - 1"),
        ("--run", str(2**63), "must be at most 2^63 - 1"),
        ("--run", "9" * 5000, "is not an integer"),
    ],
)
def test_seeds_and_runs_beyond_a_scenario_integer_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, needle: str
) -> None:
    out = tmp_path / "out"
    line = refused(capsys, "run", EXAMPLES / "wired-chain.toml", option, value, "--out", out)
    assert needle in line and not out.exists()


def test_a_store_is_never_the_current_directory_or_a_directory_of_other_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep = write(tmp_path, f'scenario = "{EXAMPLES / "wired-chain.toml"}"\nruns = 1\n', "s.toml")
    work = tmp_path / "work"
    (work / "papers").mkdir(parents=True)
    (work / "papers" / "draft.tex").write_text("mine")
    monkeypatch.chdir(work)
    for store, needle in (
        (".", "is the current directory"),
        ("..", "is a parent of the current directory"),
        ("papers", "holds other files and no results.duckdb"),
    ):
        assert needle in refused(capsys, "sweep", sweep, "--store", store), store
    assert sorted(p.name for p in work.rglob("*")) == ["draft.tex", "papers"]
