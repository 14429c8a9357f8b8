"""Output directories never lose a user's data, and a run stops promptly on Ctrl-C.

* ``--out`` (and ``RunResult.write``) replaces only a directory celltcp wrote itself (its
  ``.celltcp-output`` marker); anything else is refused unless ``--overwrite``; the current
  directory, the home directory and their parents are always refused; symbolic links are followed.
* Temporary siblings left by a killed run are removed by the next run into the same place.
* Ctrl-C: exit 130 within about a second, nothing written (or, with ``--keep-partial``, what was
  simulated, ``stop_reason = "interrupted"``).
* A run cut short by ``simulation.max_events`` says so and reports rates over the time simulated.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from celltcp import RunResult, Scenario
from celltcp.output import MARKER, OutputDirError, atomic_output_dir, check_output_dir
from conftest import CHAIN_TOML

SUMMARY = {"flows": {}, "links": {}, "stop_reason": "duration"}


def _result() -> RunResult:
    return RunResult(SUMMARY, 0, {})


def _names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def _assert_user_error(res, *needles: str) -> None:
    assert res.returncode == 2, res
    assert len(res.stderr_lines) == 1, res.stderr
    line = res.stderr_lines[0]
    assert line.startswith("celltcp: error: ") and "Traceback" not in res.stderr, line
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"


# -- item 1: what --out may replace ---------------------------------------------------------------


def test_a_users_directory_is_refused_and_kept(tmp_path: Path) -> None:
    user = tmp_path / "v"
    user.mkdir()
    (user / "thesis.tex").write_text("years of work")
    with pytest.raises(OutputDirError) as info:
        _result().write(user)
    assert info.value.path == str(user) and MARKER in info.value.message
    assert _names(user) == ["thesis.tex"]
    assert _names(tmp_path) == ["v"]


def test_overwrite_replaces_a_users_directory(tmp_path: Path) -> None:
    user = tmp_path / "v"
    user.mkdir()
    (user / "old.txt").write_text("old")
    _result().write(user, overwrite=True)
    assert _names(user) == [MARKER, "summary.json"]


def test_celltcps_own_directory_is_replaced(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with atomic_output_dir(out, writer="test") as tmp:
        (tmp / "a.parquet").write_text("first")
    marker = json.loads((out / MARKER).read_text())
    assert marker["written_by"] == "test" and marker["files"] == ["a.parquet"]
    assert marker["celltcp_version"]
    with atomic_output_dir(out) as tmp:
        (tmp / "b.parquet").write_text("second")
    assert _names(out) == [MARKER, "b.parquet"]


def test_an_empty_directory_is_used(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _result().write(tmp_path / "empty")
    assert (tmp_path / "empty" / "summary.json").is_file()


def test_a_file_added_to_celltcps_directory_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with atomic_output_dir(out) as tmp:
        (tmp / "old.parquet").write_text("old output")
    (out / "figure.png").write_bytes(b"a plot made from the results")
    with atomic_output_dir(out) as tmp:
        (tmp / "new.parquet").write_text("new output")
    # The earlier output is replaced; the added file stays, and is still not celltcp's.
    assert _names(out) == [MARKER, "figure.png", "new.parquet"]
    assert (out / "figure.png").read_bytes() == b"a plot made from the results"
    assert json.loads((out / MARKER).read_text())["files"] == ["new.parquet"]
    with atomic_output_dir(out) as tmp:
        pass
    assert _names(out) == [MARKER, "figure.png"]


def test_an_added_file_that_an_output_would_overwrite_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with atomic_output_dir(out):
        pass
    (out / "access.pcap").write_text("the user's own capture")
    with pytest.raises(OutputDirError, match="access.pcap"), atomic_output_dir(out) as tmp:
        (tmp / "access.pcap").write_text("celltcp's capture")
    assert (out / "access.pcap").read_text() == "the user's own capture"
    assert _names(tmp_path) == ["out"]


def test_a_marker_without_outputs_is_removed_with_its_outputs(tmp_path: Path) -> None:
    """The marker is written with the outputs, so a directory that has it was celltcp's."""
    out = tmp_path / "out"
    _result().write(out)
    assert (out / MARKER).is_file()
    before = (out / MARKER).read_bytes()
    _result().write(out)
    assert (out / MARKER).read_bytes() == before  # deterministic: no time, no pid


@pytest.mark.parametrize("name", ["", ".", "..", "/"])
def test_protected_paths_are_refused_even_with_overwrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (work / "data.csv").write_text("1,2,3")
    monkeypatch.chdir(work)
    for overwrite in (False, True):
        with pytest.raises(OutputDirError):
            _result().write(name, overwrite=overwrite)
    assert _names(work) == ["data.csv"] and _names(tmp_path) == ["a"]


def test_an_ancestor_of_the_current_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    with pytest.raises(OutputDirError, match="parent of the current directory"):
        check_output_dir(tmp_path / "a", overwrite=True)


def test_the_home_directory_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# mine")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputDirError, match="home directory"):
        _result().write(home, overwrite=True)
    assert _names(home) == [".bashrc"]


def test_a_symlink_is_followed_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "big-disk" / "results"
    real.mkdir(parents=True)
    link = tmp_path / "results"
    link.symlink_to(real)
    _result().write(link)
    _result().write(link)  # again: the directory it points to is celltcp's now
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert _names(real) == [MARKER, "summary.json"]
    assert _names(tmp_path) == ["big-disk", "results"]
    assert _names(real.parent) == ["results"]


def test_a_symlink_to_a_users_directory_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "mine"
    real.mkdir()
    (real / "notes.txt").write_text("notes")
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(OutputDirError):
        _result().write(link)
    assert link.is_symlink() and _names(real) == ["notes.txt"]


def test_a_file_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputDirError, match="not a directory"):
        _result().write(tmp_path / "f", overwrite=True)
    assert (tmp_path / "f").read_text() == "x"


def test_scenario_save_is_atomic_and_leaves_no_partial(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    Scenario.from_toml(CHAIN_TOML).save(path)
    Scenario.from_toml(CHAIN_TOML).save(path)
    assert _names(tmp_path) == ["s.toml"]
    assert Scenario.load(path) == Scenario.from_toml(CHAIN_TOML)


# -- item 1 through the command line --------------------------------------------------------------


def test_run_refuses_a_users_directory_and_overwrite_replaces_it(
    cli, chain_file: Path, tmp_path: Path
) -> None:
    user = tmp_path / "v"
    user.mkdir()
    (user / "keep.txt").write_text("mine")
    res = cli("run", chain_file, "--quiet", "--out", user, cwd=tmp_path)
    _assert_user_error(res, "--out", str(user), "--overwrite")
    assert _names(user) == ["keep.txt"]
    res = cli("run", chain_file, "--quiet", "--out", user, "--overwrite", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "keep.txt" not in _names(user) and MARKER in _names(user)
    # celltcp's own directory is replaced without --overwrite.
    res = cli("run", chain_file, "--quiet", "--out", user, cwd=tmp_path)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("out", ["", ".", ".."])
def test_run_refuses_protected_out(cli, chain_file: Path, tmp_path: Path, out: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "data.csv").write_text("1")
    res = cli("run", chain_file, "--quiet", "--out", out, "--overwrite", cwd=work)
    _assert_user_error(res, "--out")
    assert _names(work) == ["data.csv"] and _names(tmp_path) == ["chain.toml", "work"]


def test_run_through_a_symlinked_out(cli, chain_file: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    for _ in range(2):
        res = cli("run", chain_file, "--quiet", "--out", tmp_path / "link", cwd=tmp_path)
        assert res.returncode == 0, res.stderr
    assert (tmp_path / "link").is_symlink()
    assert "summary.json" in _names(real)


def test_reproduce_refuses_a_users_directory_before_running(cli, tmp_path: Path) -> None:
    user = tmp_path / "rep"
    user.mkdir()
    (user / "keep.txt").write_text("mine")
    started = time.monotonic()
    res = cli("reproduce", "003", "--quick", "--out", user, cwd=tmp_path)
    _assert_user_error(res, "--out", str(user))
    assert time.monotonic() - started < 30  # refused up front, not after the study
    assert _names(tmp_path) == ["rep"] and _names(user) == ["keep.txt"]


def test_emulate_refuses_a_users_directory_before_starting(cli, tmp_path: Path) -> None:
    from conftest import EXAMPLES

    user = tmp_path / "emu"
    user.mkdir()
    (user / "keep.txt").write_text("mine")
    res = cli("emulate", EXAMPLES / "wired-chain.toml", "--host", "ue", "--out", user, cwd=tmp_path)
    _assert_user_error(res, "--out", str(user))
    assert _names(user) == ["keep.txt"]


# -- item 2: partials left by killed runs ---------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _partial(parent: Path, name: str, pid: int, *, marker: bool) -> Path:
    p = parent / f".{name}.partial-{pid}"
    p.mkdir()
    (p / "huge.pcap").write_bytes(b"\0" * 1024)
    if marker:
        (p / MARKER).write_text('{"writing": true}')
    return p


def test_a_dead_runs_partial_is_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = _partial(tmp_path, "out", _dead_pid(), marker=True)
    unmarked = _partial(tmp_path, "out", _dead_pid() + 0, marker=False)
    alive = _partial(tmp_path, "out", os.getppid(), marker=True)
    other = _partial(tmp_path, "other", _dead_pid(), marker=True)
    _result().write(tmp_path / "out")
    assert not dead.exists()
    # Not provably celltcp's, still running, or another output's: kept.
    assert unmarked.exists() and alive.exists() and other.exists()


def test_a_dead_replacement_holding_a_users_files_is_kept(tmp_path: Path) -> None:
    """Killed while carrying a user's file over into a replacement: that partial is kept."""
    p = tmp_path / f".out.partial-{_dead_pid()}"
    p.mkdir()
    (p / MARKER).write_text('{"files": ["summary.json"]}')
    (p / "summary.json").write_text("{}")
    (p / "figure.png").write_text("the user's")
    done = tmp_path / f".out.old-{_dead_pid()}"
    done.mkdir()
    (done / MARKER).write_text('{"files": ["summary.json"]}')
    (done / "summary.json").write_text("{}")
    _result().write(tmp_path / "out")
    assert (p / "figure.png").exists() and not done.exists()


def _long_chain(tmp_path: Path, duration: str = "100000s") -> Path:
    s = Scenario.from_toml(CHAIN_TOML)
    s.set("simulation.duration", duration)
    path = tmp_path / "long.toml"
    s.save(path)
    return path


def _popen_cli(*args: object, cwd: Path) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.pop("RUST_BACKTRACE", None)
    return subprocess.Popen(
        [sys.executable, "-m", "celltcp.cli", *map(str, args)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_sigkilled_runs_partial_is_removed_by_the_next_run(cli, tmp_path: Path) -> None:
    scenario = _long_chain(tmp_path)
    out = tmp_path / "o"
    proc = _popen_cli("run", scenario, "--quiet", "--pcap", "access", "--out", out, cwd=tmp_path)
    partial = tmp_path / f".o.partial-{proc.pid}"
    _wait_for(lambda: (partial / "access.pcap").exists())
    proc.kill()
    proc.communicate()
    assert partial.is_dir() and (partial / MARKER).is_file()
    res = cli("run", _long_chain(tmp_path, "1s"), "--quiet", "--out", out, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert _names(tmp_path) == ["long.toml", "o"]


# -- item 4: Ctrl-C -------------------------------------------------------------------------------


def _interrupt_after(
    proc: subprocess.Popen[str], started, seconds: float, stream: str = "stderr"
) -> tuple[float, str]:
    """Sends SIGINT ``seconds`` after ``started()`` became true (the run is under way: imports
    take seconds on a busy machine); returns how long the process took to report the
    interruption (its first line on ``stream``) and everything it wrote on stderr.

    The report, not the exit, is timed: the interpreter's own shutdown after it (unloading
    pandas and pyarrow) takes from 0.1 s to 2 s depending on the machine's load."""
    _wait_for(lambda: started() or proc.poll() is not None, timeout=120)
    time.sleep(seconds)
    assert proc.poll() is None, "the run ended before it was interrupted"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    pipe = getattr(proc, stream)
    assert pipe is not None
    ready, _, _ = select.select([pipe], [], [], 20)
    if not ready:
        proc.kill()
        proc.communicate()
        pytest.fail("nothing reported within 20 s of SIGINT")
    first = pipe.readline()
    took = time.monotonic() - sent
    try:
        _rest_out, rest_err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the process did not exit within 30 s of SIGINT")
    err = (first if stream == "stderr" else "") + (rest_err or "")
    return took, err


def _partial_of(proc: subprocess.Popen[str], out: Path):
    return lambda: (out.parent / f".{out.name}.partial-{proc.pid}").is_dir()


def test_ctrl_c_stops_a_run_promptly_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "o"
    proc = _popen_cli("run", _long_chain(tmp_path), "--out", out, cwd=tmp_path)
    took, err = _interrupt_after(proc, _partial_of(proc, out), 1.0)
    assert proc.returncode == 130, err
    assert took < 1.0, f"stopped {took:.2f} s after SIGINT"
    assert "interrupted" in err and "Traceback" not in err
    assert _names(tmp_path) == ["long.toml"]


def test_ctrl_c_with_keep_partial_writes_what_was_simulated(tmp_path: Path) -> None:
    out = tmp_path / "o"
    proc = _popen_cli("run", _long_chain(tmp_path), "--keep-partial", "--out", out, cwd=tmp_path)
    took, err = _interrupt_after(proc, _partial_of(proc, out), 1.0)
    assert proc.returncode == 130, err
    assert took < 5.0, f"wrote the outputs {took:.2f} s after SIGINT"
    assert "interrupted" in err and "Traceback" not in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == "interrupted"
    simulated = summary["simulated_time_s"]
    assert 0 < simulated < 100000
    assert summary["flows"]["video"]["end_s"] == simulated
    assert 4e6 < summary["flows"]["video"]["goodput_bps"] < 6e6  # 5 Mb/s over what ran
    assert {"queue.parquet", "flow_rate.parquet"} <= set(_names(out))


def test_ctrl_c_interrupts_the_python_run_function(tmp_path: Path) -> None:
    script = (
        "import celltcp, sys\n"
        f"sc = celltcp.Scenario.load({str(_long_chain(tmp_path))!r})\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    celltcp.run(sc)\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt', flush=True)\n"
        "    sys.exit(0)\n"
        "sys.exit(5)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    took, err = _interrupt_after(
        proc, lambda: proc.stdout.readline() == "started\n", 1.0, stream="stdout"
    )
    assert proc.returncode == 0, err
    assert took < 1.0, f"KeyboardInterrupt {took:.2f} s after SIGINT"


# -- item 3: runs cut short by their event budget -------------------------------------------------


def test_an_event_budget_stop_is_reported(cli, chain_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    res = cli(
        "run",
        chain_file,
        "--quiet",
        "--set",
        "simulation.duration=1000s",
        "--set",
        "simulation.max_events=20000",
        "--out",
        out,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert "max_events" in res.stderr and "warning" in res.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stop_reason"] == "eventbudget"
    simulated = summary["simulated_time_s"]
    assert 0 < simulated < 1000
    video = summary["flows"]["video"]
    assert video["end_s"] == simulated
    assert 4e6 < video["goodput_bps"] < 6e6


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_ctrl_c_mid_sweep_loses_no_finished_run(tmp_path: Path, cli) -> None:
    from test_sweep_cli import _assert_complete, _rows, _start
    from test_sweep_cli import _wait_for as _wait_for_runs

    store = tmp_path / "store"
    proc = _start(tmp_path, store, workers=1)
    try:
        _wait_for_runs(store, 3, proc)
        # Ctrl-C in a terminal reaches the whole process group: the sweep and its workers.
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    stored = len(_rows(store))
    # A run's series are stored before its row, one run at a time: with 3 series seen, at
    # least 2 rows were committed before Ctrl-C, and every one of them is still there.
    assert 2 <= stored < 16
    res = cli("sweep", tmp_path / "crash.toml", "--store", store, "--workers", "2")
    assert res.returncode == 0, res.stderr
    assert f"{stored} already stored" in res.stderr
    _assert_complete(store, tmp_path)


# -- item 5: emulate adds its outputs beside what the capture and programs wrote ------------------


def _emulation_ready() -> str | None:
    from celltcp import _core
    from emu_tools.checks import system_lacks

    if not hasattr(_core, "emulate"):
        return "this build of celltcp._core has no emulate()"
    return system_lacks()


@pytest.mark.skipif(_emulation_ready() is not None, reason=str(_emulation_ready()))
def test_emulate_adds_its_outputs_beside_the_capture_and_program_files(tmp_path: Path) -> None:
    from celltcp.emulate import cleanup
    from conftest import EXAMPLES
    from emu_tools.checks import leftovers, run_celltcp

    out = tmp_path / "absent" / "D"  # neither D nor its parent exists
    args = [
        "emulate",
        EXAMPLES / "wired-chain.toml",
        "--host",
        "ue",
        "--duration",
        "2s",
        "--quiet",
        "--set",
        "flows.video.rate=1Mbps",
        "--out",
        out,
        "--pcap",
        out / "p.pcap",
        "--exec",
        f"ue=echo from-the-program > {out / 'program.txt'}; sleep 1",
    ]
    try:
        res, pid = run_celltcp(*args, timeout=120)
        # Before: "internal error", exit 3, because D/ did not exist for the capture.
        assert res.returncode == 0, res.stderr
        assert leftovers(pid) == []
        names = set(_names(out))
        assert {"p.pcap", "program.txt", "summary.json", "emulation.json", MARKER} <= names
        assert (out / "program.txt").read_text() == "from-the-program\n"
        assert (out / "p.pcap").read_bytes()[:4] in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
        marker = json.loads((out / MARKER).read_text())
        assert marker["written_by"] == "celltcp emulate"
        assert "p.pcap" not in marker["files"] and "program.txt" not in marker["files"]
        # Before: D was swapped for the outputs and the files written into it were gone.
        (out / "notes.txt").write_text("added between two emulations")
        res, pid = run_celltcp(*args, timeout=120)
        assert res.returncode == 0, res.stderr
        assert (out / "notes.txt").read_text() == "added between two emulations"
        assert {"p.pcap", "program.txt", "summary.json"} <= set(_names(out))
        assert not list(out.parent.glob(".D.*"))
    finally:
        cleanup.cleanup_stale()
