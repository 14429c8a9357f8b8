"""The quality gates' own configuration: every crate takes the workspace's lint levels and
rust-version, the declared rust-version is no older than any dependency's, and `make test`
runs `make lint`. The gates themselves (fmt, clippy, rustdoc, ruff, mypy) run in `make lint`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _version(text: str) -> tuple[int, ...]:
    """``"1.85"`` or ``"1.85.0"`` as a tuple compared part by part (missing parts are 0)."""
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def _crate_manifests() -> list[str]:
    workspace = tomllib.loads((REPO / "Cargo.toml").read_text())
    return [f"{member}/Cargo.toml" for member in workspace["workspace"]["members"]]


def test_every_crate_takes_the_workspace_lints_and_rust_version():
    for manifest in _crate_manifests():
        crate = tomllib.loads((REPO / manifest).read_text())
        assert crate.get("lints") == {"workspace": True}, manifest
        assert crate["package"].get("rust-version") == {"workspace": True}, manifest


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not on PATH")
def test_the_declared_rust_version_is_no_older_than_any_dependency():
    declared = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"][
        "rust-version"
    ]
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    members = set(meta["workspace_members"])
    needs = {
        f"{p['name']} {p['version']}": p["rust_version"]
        for p in meta["packages"]
        if p["id"] not in members and p.get("rust_version")
    }
    newest = max(needs.items(), key=lambda kv: _version(kv[1]))
    assert _version(declared) >= _version(newest[1]), (
        f"rust-version {declared} is older than {newest[0]}'s {newest[1]}"
    )


def test_make_test_runs_the_lint_gates_first():
    makefile = (REPO / "Makefile").read_text()
    test_rule = re.search(r"^test: (.*)$", makefile, re.M)
    assert test_rule is not None and test_rule.group(1).split()[0] == "lint"
    lint = makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    for gate in (
        "cargo fmt --all --check",
        "cargo clippy --workspace --all-targets",
        "-D warnings",
        'RUSTDOCFLAGS="-D warnings" cargo doc',
        "ruff check",
        "ruff format --check",
        "mypy",
    ):
        assert gate in lint, gate
    ci = (REPO / ".ci/run").read_text()
    assert "make test" in ci
