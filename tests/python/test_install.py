"""The installed package is the whole product: the wheel holds the scenario library and the
metadata an index shows, and installed into a fresh virtual environment it runs the examples and
a reproduction from a directory outside the repository.

The tests read a wheel: the newest ``dist/celltcp-<version>-*.whl`` (``make dist``), or, without
one, a wheel built once for the module with ``maturin build --release`` (reusing target/release:
about 25 s after ``make build``), so that ``make test`` always checks a real wheel and sdist. Only
the manylinux2014 tags need ``make dist`` (its zig build takes about 10 minutes cold); that check
skips without it.
"""

from __future__ import annotations

import email
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from importlib import resources
from pathlib import Path

import pytest

import celltcp
from celltcp import _docs, examples
from conftest import REPO

DIST = REPO / "dist"
#: A link of the long description: Markdown ``[text](target)``.
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _library_files() -> list[str]:
    """Paths of the library's files in the package, as a wheel names them."""
    out = subprocess.run(
        ["git", "ls-files", "python/celltcp/examples"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line[len("python/") :] for line in out.splitlines()]


def _dist_wheel() -> Path | None:
    wheels = sorted(DIST.glob(f"celltcp-{celltcp.__version__}-*.whl"), key=os.path.getmtime)
    return wheels[-1] if wheels else None


def test_package_data_is_reachable_through_importlib_resources():
    root = resources.files("celltcp") / "examples"
    for name in _library_files():
        relative = name[len("celltcp/examples/") :]
        assert root.joinpath(*relative.split("/")).is_file(), name


def test_the_long_description_has_only_absolute_links():
    readme = (REPO / "README.md").read_text()
    targets = _LINK.findall(readme)
    assert len(targets) > 10
    for target in targets:
        assert target.startswith("https://"), target
        if target.startswith(_docs.DOCS_URL):
            page = target[len(_docs.DOCS_URL) :].split("#")[0].strip("/")
            if page:  # a page of the site is a file of docs/
                assert (REPO / "docs" / f"{page}.md").is_file() or (
                    REPO / "docs" / f"{page}.ipynb"
                ).is_file(), target
        elif target.startswith(_docs.SOURCE_URL + "/blob/main/"):
            assert (REPO / target[len(_docs.SOURCE_URL + "/blob/main/") :]).exists(), target


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dist/'s wheel, or one built from this checkout."""
    found = _dist_wheel()
    if found is not None:
        return found
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        ["maturin", "build", "--release", "--out", str(out)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=3600,
    )
    return next(out.glob("celltcp-*.whl"))


def test_the_wheel_holds_the_library_the_module_and_the_stubs(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [n for n in _library_files() if n not in names]
    assert not missing, missing
    for n in (
        "celltcp/_core.abi3.so",
        "celltcp/_core.pyi",
        "celltcp/py.typed",
        "celltcp/examples/__init__.py",
        "celltcp/cli.py",
    ):
        assert n in names, n
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    # One wheel for every CPython >= 3.10.
    assert wheel.name.split("-")[2:4] == ["cp310", "abi3"], wheel.name


def test_the_dist_wheel_is_manylinux2014():
    wheel = _dist_wheel()
    if wheel is None:
        pytest.skip("no dist/ wheel of this version; `make dist` builds one")
    # glibc >= 2.17: both spellings of the tag, in either order.
    tags = wheel.name.removesuffix(".whl").split("-")[-1].split(".")
    assert sorted(tags) == ["manylinux2014_x86_64", "manylinux_2_17_x86_64"], wheel.name


def test_the_sdist_holds_every_source_a_wheel_is_built_from(tmp_path):
    subprocess.run(
        ["maturin", "sdist", "--out", str(tmp_path)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=600,
    )
    sdist = next(tmp_path.glob(f"celltcp-{celltcp.__version__}.tar.gz"))
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    tracked = subprocess.run(
        ["git", "ls-files", "Cargo.toml", "Cargo.lock", "pyproject.toml", "crates", "python"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # Everything a build reads; the Rust crates' tests and benches are not needed to build.
    needed = [
        n
        for n in tracked
        if not re.match(r"crates/[^/]+/(tests|benches)/", n) and not n.endswith(".gitignore")
    ]
    missing = [n for n in needed if n not in names]
    assert not missing, missing[:20]


def test_the_wheel_metadata_is_complete(wheel):
    with zipfile.ZipFile(wheel) as z:
        meta_name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(z.read(meta_name))
    assert meta["License-Expression"] == "Apache-2.0 OR MIT"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert urls["Documentation"] == _docs.DOCS_URL and urls["Source"] == _docs.SOURCE_URL
    classifiers = meta.get_all("Classifier")
    for needed in (
        "Development Status :: 4 - Beta",
        "Intended Audience :: Science/Research",
        "Operating System :: POSIX :: Linux",
        "Programming Language :: Python :: 3.10",
    ):
        assert needed in classifiers
    assert meta["Author"] or meta["Author-email"]
    assert meta["Description-Content-Type"].startswith("text/markdown")
    body = meta.get_payload()
    assert "celltcp examples" in body
    assert all(t.startswith("https://") for t in _LINK.findall(body))


# -- the installed wheel, outside the repository ---------------------------------------------------


def test_the_installed_wheel_runs_examples_and_a_reproduction_anywhere(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    vpy = venv / "bin" / "python"
    subprocess.run(
        [
            vpy,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            "--disable-pip-version-check",
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    # The dependencies come from this environment's site-packages, added after celltcp is
    # installed (so pip never sees the editable install) and after the venv's own directory (so
    # the wheel's celltcp is the one imported): nothing is downloaded.
    site = subprocess.run(
        [vpy, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "zz-deps-from-test-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"

    def celltcp_cmd(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [venv / "bin" / "celltcp", *args],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        return proc

    where = subprocess.run(
        [vpy, "-c", "import celltcp; print(celltcp.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert Path(where.strip()).is_relative_to(venv), where
    assert not Path(where.strip()).is_relative_to(REPO)

    listing = celltcp_cmd("examples").stdout
    assert [line.split()[0] for line in listing.splitlines()] == [
        e.name for e in examples.available()
    ]

    copied = celltcp_cmd("examples", "copy", "traces/trace-link", "study").stdout.split()
    assert copied == ["study/trace-link.toml", "study/drive.trace"]
    run = celltcp_cmd("run", "study/trace-link.toml", "--set", "simulation.duration=2s")
    assert "bulk" in run.stdout and (work / "out" / "trace-link" / "summary.json").is_file()

    celltcp_cmd("reproduce", "003", "--quick", "--workers", "2", "--out", "seed-003")
    report = (work / "seed-003" / "report.md").read_text()
    assert "celltcp/examples/003/exp5-1.toml" in report
