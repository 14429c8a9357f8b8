"""The celltcp command, through a subprocess as a user runs it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from celltcp import Scenario
from conftest import CHAIN_TOML, EXAMPLES, example_files

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def _variant(tmp_path: Path, **settings: str) -> Path:
    s = Scenario.from_toml(CHAIN_TOML)
    for path, value in settings.items():
        s.set(path.replace("__", "."), value)
    out = tmp_path / "bad.toml"
    s.save(out)
    return out


def _assert_user_error(res, *needles: str) -> None:
    assert res.returncode == 2, res
    assert len(res.stderr_lines) == 1, res.stderr
    line = res.stderr_lines[0]
    assert line.startswith("celltcp: error: "), line
    assert "Traceback" not in res.stderr
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"
    assert res.stdout == ""


# -- run: user errors ----------------------------------------------------------------------------


def _disconnected(tmp_path: Path) -> Path:
    s = Scenario.from_toml(CHAIN_TOML)
    # A new node is set as a whole table (the rule of --set).
    s.set("nodes.island", {"kind": "host"})
    s.set("flows.video.dst", "island")
    path = tmp_path / "bad.toml"
    s.save(path)
    return path


def _unknown_key(tmp_path: Path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(CHAIN_TOML.replace('rate = "10Mbps"', 'rat = "10Mbps"'))
    return path


def _malformed(tmp_path: Path) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(CHAIN_TOML.replace("[links.access]", "[links.access"))
    return path


BAD_FILES = {
    "malformed TOML": (_malformed, ("bad.toml", "line")),
    "unknown key": (_unknown_key, ("links.access", "rat")),
    "negative rate": (lambda t: _variant(t, links__access__rate="-10Mbps"), ("links.access.rate",)),
    "zero rate": (lambda t: _variant(t, links__access__rate="0Mbps"), ("links.access.rate",)),
    "missing node": (
        lambda t: _variant(t, links__access__b="nowhere"),
        ("links.access", "nowhere"),
    ),
    "disconnected flow": (_disconnected, ("flows.video",)),
    "zero duration": (lambda t: _variant(t, simulation__duration="0s"), ("simulation.duration",)),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_scenario_is_one_line_exit_2_and_no_output(cli, tmp_path: Path, case: str) -> None:
    make, needles = BAD_FILES[case]
    path = make(tmp_path)
    out = tmp_path / "results" / "run"
    res = cli("run", path, "--out", out, cwd=tmp_path)
    _assert_user_error(res, *needles)
    assert not (tmp_path / "results").exists()
    assert not (tmp_path / "out").exists()
    # validate reports the same error.
    _assert_user_error(cli("validate", path, cwd=tmp_path), *needles)


def test_unwritable_out(cli, chain_file: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a directory is needed")
    res = cli("run", chain_file, "--out", blocker / "run", cwd=tmp_path)
    _assert_user_error(res, "--out", "blocker")
    assert blocker.read_text() == "a file where a directory is needed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker", "chain.toml"]


@pytest.mark.parametrize(
    ("setting", "needles"),
    [
        ("novalue", ("--set", "novalue", "KEY=VALUE")),
        ("=10Mbps", ("--set", "KEY=VALUE")),
        ("links.access.rate=fast", ("links.access.rate", "fast")),
        ("links.acces.rate=10Mbps", ("links.acces",)),
    ],
)
def test_bad_set(cli, chain_file: Path, tmp_path: Path, setting: str, needles) -> None:
    res = cli("run", chain_file, "--set", setting, "--out", tmp_path / "o", cwd=tmp_path)
    _assert_user_error(res, *needles)
    assert not (tmp_path / "o").exists()


def test_unreadable_file(cli, tmp_path: Path) -> None:
    _assert_user_error(cli("run", tmp_path / "absent.toml", cwd=tmp_path), "absent.toml")
    _assert_user_error(cli("validate", tmp_path, cwd=tmp_path), str(tmp_path))
    assert sorted(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["run"],
        ["run", "x.toml", "--seed", "-1"],
        ["run", "x.toml", "--run", "z"],
    ],
)
def test_usage_errors_are_one_line(cli, tmp_path: Path, argv: list[str]) -> None:
    _assert_user_error(cli(*argv, cwd=tmp_path))


def test_unknown_capture_link(cli, chain_file: Path, tmp_path: Path) -> None:
    res = cli("run", chain_file, "--pcap", "nosuchlink", "--out", tmp_path / "o", cwd=tmp_path)
    _assert_user_error(res, "nosuchlink")
    assert not (tmp_path / "o").exists()


# -- run: success ----------------------------------------------------------------------------------


def test_run_default_out_dir_and_table(cli, chain_file: Path, tmp_path: Path) -> None:
    res = cli("run", chain_file, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "out" / "chain"
    assert (out / "summary.json").is_file()
    lines = res.stdout.splitlines()
    assert lines[0].split()[:2] == ["flow", "goodput"]
    assert any(line.startswith("video ") and "Mbps" in line for line in lines)
    assert any(line.startswith("access ") and "a_to_b" in line for line in lines)
    assert "events/s" in res.stderr and "wall time" in res.stderr


def test_run_json_and_quiet(cli, chain_file: Path, tmp_path: Path) -> None:
    res = cli("run", chain_file, "--json", "--out", tmp_path / "j", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == json.loads((tmp_path / "j" / "summary.json").read_text())
    res = cli("run", chain_file, "--quiet", "--out", tmp_path / "q", cwd=tmp_path)
    assert res.returncode == 0 and res.stdout == "" and res.stderr == ""
    assert (tmp_path / "q" / "summary.json").is_file()


def test_run_replaces_previous_output(cli, chain_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    res = cli("run", chain_file, "--quiet", "--pcap", "access", "--out", out, cwd=tmp_path)
    assert res.returncode == 0 and (out / "access.pcap").exists()
    assert cli("run", chain_file, "--quiet", "--out", out, cwd=tmp_path).returncode == 0
    assert not (out / "access.pcap").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.toml", "o"]


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_run_twice_is_byte_identical(cli, chain_file: Path, tmp_path: Path) -> None:
    outs = [tmp_path / "one", tmp_path / "two"]
    for out in outs:
        res = cli("run", chain_file, "--quiet", "--pcap", "access", "--out", out, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
    one, two = (_files(o) for o in outs)
    assert "summary.json" in one and "access.pcap" in one
    assert any(name.endswith(".parquet") for name in one)
    assert one.keys() == two.keys()
    for name in one:
        assert one[name] == two[name], f"{name} differs between identical runs"


def test_seed_and_run_select_different_replications(cli, chain_file: Path, tmp_path: Path) -> None:
    summaries = []
    for extra in ([], ["--seed", "2"], ["--run", "1"]):
        out = tmp_path / f"o{len(summaries)}"
        res = cli("run", chain_file, "--quiet", "--out", out, *extra, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        summaries.append((out / "summary.json").read_text())
    assert len(set(summaries)) == 3


# -- validate, schema, version ---------------------------------------------------------------------


def test_validate_ok_line(cli, chain_file: Path, tmp_path: Path) -> None:
    res = cli("validate", chain_file, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"{chain_file}: ok (3 nodes, 2 links, 1 flows)\n"
    assert list(tmp_path.iterdir()) == [chain_file]


def test_wired_chain_example_exists() -> None:
    # `make demo` runs it.
    assert (EXAMPLES / "wired-chain.toml").is_file()


@pytest.mark.parametrize("example", example_files(), ids=lambda p: p.name)
def test_validate_every_example(cli, example: Path, tmp_path: Path) -> None:
    res = cli("validate", example, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(f"{example}: ok (")


def _schema(cli) -> dict:
    res = cli("schema")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_schema_validates_every_example_and_the_fixture(cli) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = _schema(cli)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    documents = {"fixture": tomllib.loads(CHAIN_TOML)}
    documents.update({p.name: tomllib.loads(p.read_text()) for p in example_files()})
    for name, document in documents.items():
        errors = [e.message for e in validator.iter_errors(document)]
        assert not errors, f"{name}: {errors}"


def test_schema_rejects_an_unknown_top_level_table(cli) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = _schema(cli)
    document = tomllib.loads(CHAIN_TOML)
    document["simulaton"] = {"duration": "1s"}
    assert not jsonschema.validators.validator_for(schema)(schema).is_valid(document)


def test_version(cli) -> None:
    import celltcp

    res = cli("version")
    assert res.returncode == 0 and res.stdout == f"celltcp {celltcp.__version__}\n"


def test_python_dash_m_celltcp_is_the_same_command(tmp_path: Path) -> None:
    import subprocess

    res = subprocess.run(
        [sys.executable, "-m", "celltcp", "version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert res.returncode == 0 and res.stdout.startswith("celltcp ")


@pytest.mark.slow
def test_bench_quick(cli, tmp_path: Path) -> None:
    res = cli("bench", "--quick", "--runs", "1", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = [ln for ln in res.stdout.splitlines() if "events/s" in ln or "packets/s" in ln]
    assert sum("hold model" in r for r in rows) == 3
    if (EXAMPLES / "wired-chain.toml").is_file():
        assert any("wired-chain.toml, link packets" in r for r in rows)
    lte = [ln for ln in res.stdout.splitlines() if "lte-bench-" in ln]
    assert len(lte) == 4, res.stdout
    assert "lte-bench-1ue.toml (10 s simulated)" in lte[0] and "per simulated s" in lte[0]
