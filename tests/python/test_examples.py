"""The scenario library shipped in the package (celltcp.examples, `celltcp examples`): every
file is listed and loads, a copy carries the files it refers to and never overwrites, the
reproductions read their inputs from the package, and help texts name no repository path."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

import pytest
import tomllib

import celltcp
from celltcp import _docs, examples
from celltcp.cli import _parser
from celltcp.sweep.spec import load_spec
from conftest import REPO, run_cli

PACKAGE = Path(celltcp.__file__).resolve().parent


def _tracked_library_files() -> set[str]:
    out = subprocess.run(
        ["git", "ls-files", "python/celltcp/examples"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line[len("python/celltcp/examples/") :] for line in out.splitlines()}


def test_the_library_is_inside_the_package():
    assert examples.ROOT == PACKAGE / "examples"
    assert (examples.ROOT / "003" / "exp5-1.toml").is_file()
    # The old location is gone: one copy of the library in the repository.
    assert not (REPO / "examples").exists()


def test_every_scenario_sweep_and_script_is_listed_once_with_a_description():
    listed = examples.available()
    names = [e.name for e in listed]
    assert len(names) == len(set(names))
    tracked = {
        f.removesuffix(".toml")
        for f in _tracked_library_files()
        if f.endswith((".toml", ".py")) and f != "__init__.py"
    }
    assert set(names) == tracked
    for e in listed:
        assert e.description and "\n" not in e.description and len(e.description) <= 80, e
        assert e.kind in ("scenario", "sweep", "script"), e
    kinds = {e.name: e.kind for e in listed}
    assert kinds["wired-chain"] == "scenario"
    assert kinds["sweeps/access-rate"] == "sweep"
    assert kinds["003/reproduce.py"] == "script"
    # Top-level examples first, then the groups.
    first_group = next(i for i, n in enumerate(names) if "/" in n)
    assert all("/" not in n for n in names[:first_group])
    assert all("/" in n for n in names[first_group:])


def test_descriptions_are_the_first_sentence_of_the_header():
    wired = examples.find("wired-chain")
    assert wired.description.startswith("A 20 Mb/s constant-bit-rate UDP stream")
    assert examples.describe("# ignored\n") == "# ignored"
    assert examples.describe("Pacifico et al. wrote it. Then more.") == "Pacifico et al. wrote it"
    long = "word " * 40
    cut = examples.describe(long)
    assert cut.endswith("…") and len(cut) <= 80


@pytest.mark.parametrize(
    "example", [e for e in examples.available() if e.kind == "scenario"], ids=lambda e: e.name
)
def test_every_scenario_of_the_library_validates(example):
    celltcp.Scenario.load(example.path).validate()


def test_the_sweep_file_resolves_its_scenario():
    spec = load_spec(examples.path("sweeps/access-rate"))
    assert Path(spec.base.source).resolve() == examples.path("wired-chain-tcp")


def test_names_are_accepted_with_or_without_suffix_and_unknown_ones_refused():
    assert examples.path("003/exp5-1") == examples.path("003/exp5-1.toml")
    assert examples.path("003").is_dir()
    for bad in ("nope", "../pyproject", "/etc/passwd", "", "__init__.py", "003/__pycache__"):
        with pytest.raises(examples.ExampleError, match="celltcp examples"):
            examples.path(bad)
    with pytest.raises(examples.ExampleError, match="group"):
        examples.find("003")


def test_a_copy_brings_its_trace_and_runs_where_it_is(tmp_path):
    written = examples.copy("traces/trace-link", tmp_path / "study")
    assert written == [tmp_path / "study" / "trace-link.toml", tmp_path / "study" / "drive.trace"]
    assert written[1].read_bytes() == (examples.ROOT / "traces" / "drive.trace").read_bytes()
    result = celltcp.run(written[0], set={"simulation.duration": "1s"})
    assert result.flows.loc["bulk", "goodput_bps"] > 0


def test_a_copied_sweep_names_its_copied_scenario(tmp_path):
    written = examples.copy("sweeps/access-rate", tmp_path)
    assert [p.name for p in written] == ["access-rate.toml", "wired-chain-tcp.toml"]
    data = tomllib.loads(written[0].read_text())
    assert data["scenario"] == "wired-chain-tcp.toml"
    # Only the reference changed: the rest of the file is the library's.
    original = (examples.ROOT / "sweeps" / "access-rate.toml").read_text()
    assert written[0].read_text() == original.replace(
        '"../wired-chain-tcp.toml"', '"wired-chain-tcp.toml"'
    )
    spec = load_spec(written[0])
    assert Path(spec.base.source).resolve() == written[1].resolve()


def test_a_script_or_a_group_copies_the_whole_group(tmp_path):
    script = examples.copy("003/reproduce.py", tmp_path / "a")
    assert script[0].name == "reproduce.py"
    assert sorted(p.name for p in script) == sorted(
        p.name for p in (examples.ROOT / "003").iterdir() if p.is_file()
    )
    group = examples.copy("003", tmp_path / "b")
    assert sorted(p.name for p in group) == sorted(p.name for p in script)


def test_every_example_copies(tmp_path):
    for i, e in enumerate(examples.available()):
        assert examples.copy(e.name, tmp_path / str(i)), e.name


def test_a_copy_never_overwrites_and_writes_nothing_when_refused(tmp_path):
    dest = tmp_path / "study"
    dest.mkdir()
    (dest / "drive.trace").write_text("mine")
    with pytest.raises(examples.ExampleError, match="drive.trace: exists"):
        examples.copy("traces/trace-link", dest)
    assert sorted(p.name for p in dest.iterdir()) == ["drive.trace"]
    assert (dest / "drive.trace").read_text() == "mine"
    (tmp_path / "file").write_text("x")
    with pytest.raises(examples.ExampleError, match="not a directory"):
        examples.copy("wired-chain", tmp_path / "file")


def test_cli_lists_copies_and_prints_paths(tmp_path):
    listing = run_cli("examples")
    assert listing.returncode == 0, listing.stderr
    rows = [line.split()[0] for line in listing.stdout.splitlines()]
    assert rows == [e.name for e in examples.available()]
    assert "examples copy NAME DIR" in listing.stderr

    copied = run_cli("examples", "copy", "003/exp5-1", "out-dir", cwd=tmp_path)
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout.split() == ["out-dir/exp5-1.toml"]
    assert (tmp_path / "out-dir" / "exp5-1.toml").read_bytes() == examples.path(
        "003/exp5-1"
    ).read_bytes()

    where = run_cli("examples", "path", "wired-chain")
    assert where.returncode == 0 and Path(where.stdout.strip()) == examples.path("wired-chain")


def test_cli_refuses_an_overwrite_or_an_unknown_name_with_one_line(tmp_path):
    (tmp_path / "exp5-1.toml").write_text("# mine\n")
    again = run_cli("examples", "copy", "003/exp5-1", tmp_path)
    assert again.returncode == 2
    assert again.stderr_lines == [
        f"celltcp: error: {tmp_path / 'exp5-1.toml'}: exists; copy '003/exp5-1' elsewhere or "
        "remove it"
    ]
    assert (tmp_path / "exp5-1.toml").read_text() == "# mine\n"

    unknown = run_cli("examples", "copy", "wired-chian", tmp_path / "new")
    assert unknown.returncode == 2 and len(unknown.stderr_lines) == 1
    assert "no example named 'wired-chian'" in unknown.stderr
    assert not (tmp_path / "new").exists()


def test_the_reproductions_read_their_inputs_from_the_package():
    from celltcp.reproduce import seed000, seed001, seed002, seed003, seed004
    from celltcp.studies import handover_policies

    files = [
        seed000.scenario_dir() / "forwarding.toml",
        seed001.scenario_file(),
        seed002.scenario_file(),
        seed003._scenario_dir() / "exp5-3.toml",
        seed004.scenario_file("tracking.toml"),
        handover_policies.scenario_file(),
    ]
    for f in files:
        assert f.is_file() and f.is_relative_to(examples.ROOT), f


def _all_help_texts() -> list[str]:
    texts = []

    def walk(parser: argparse.ArgumentParser) -> None:
        texts.append(parser.format_help())
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)

    walk(_parser())
    return texts


def test_help_texts_point_at_what_an_installed_user_has():
    texts = _all_help_texts()
    assert len(texts) > 20
    for text in texts:
        # A repository path such as docs/sweeps.md is not in a wheel; the site's address is.
        assert not re.search(r"(?<![\w/.])docs/\w", text), text
        assert not re.search(r"(?<![\w/.-])examples/\w", text), text
    joined = "\n".join(texts)
    assert _docs.docs_url("sweeps") in joined
    assert "celltcp examples" in joined


def test_the_documentation_address_is_the_one_of_the_package_metadata():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["urls"]["Documentation"] == _docs.DOCS_URL
    assert project["urls"]["Source"] == _docs.SOURCE_URL
    mkdocs = (REPO / "mkdocs.yml").read_text()
    assert f"site_url: {_docs.DOCS_URL}\n" in mkdocs
    assert f"repo_url: {_docs.SOURCE_URL}\n" in mkdocs
