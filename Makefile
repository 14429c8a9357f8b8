# Entry points of celltcp. Everything Python runs inside .venv/ at the repository root, which
# these rules create and fill; nothing needs installing by hand.
#
#   make demo       set up, build the extension (release), reproduce seed study 003 (quick mode)
#   make test       set up, lint, build, cargo tests, Python tests without the slow ones
#   make lint       the quality gates: formatting, clippy, rustdoc, ruff, mypy (make test runs them)
#   make test-all   the same with the slow Python tests
#   make bench      event-queue and end-to-end speed figures (release build)
#   make dist       dist/: an sdist and a manylinux2014 abi3 wheel (zig), checked with auditwheel
#   make dist-check make dist, then build a wheel from the sdist and run the installed-wheel test
#   make docs       the documentation site from docs/ into out/site/ (mkdocs --strict)
#
# Re-running a rule rebuilds only what changed: the dependency step leaves a stamp file in
# .venv/.stamps/, the build step the compiled module itself, each newer than its inputs
# (pyproject.toml, the Rust sources).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := demo

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMPS := $(VENV)/.stamps
# maturin installs into the active virtual environment; the venv's tools come first on PATH.
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(VIRTUAL_ENV)/bin:$(PATH)

RUST_SOURCES := Cargo.toml Cargo.lock \
	$(shell find crates -type f \( -name '*.rs' -o -name 'Cargo.toml' \) -not -path '*/target/*')
PY_REQUIREMENTS := $(STAMPS)/requirements.txt
# Where `maturin develop` puts the compiled module (abi3: one file for every CPython >= 3.10).
CORE_MODULE := python/celltcp/_core.abi3.so

.PHONY: demo test test-all lint bench setup build tshark dist dist-check docs

demo: build
	celltcp reproduce 003 --quick --out out/reproduce-003

# The Python tests run on two workers (pytest-xdist), but the emulations, which keep pace with
# the wall clock, run afterwards on their own so that no other test takes their CPU.
# The property tests draw their cases from a fixed seed, so that a test run repeats exactly;
# long fuzzing runs without it draw new ones (docs/reliability.md, "Model-based fuzzing").
test: lint build tshark
	PROPTEST_RNG_SEED=20261128 cargo test --workspace --exclude celltcp-py
	$(VPY) -m pytest -q tests/python -m "not slow and not realtime" -n 2
	$(VPY) -m pytest -q tests/python -m "not slow and realtime"

test-all: lint build tshark
	PROPTEST_RNG_SEED=20261128 cargo test --workspace --exclude celltcp-py
	$(VPY) -m pytest -q tests/python -m "not realtime" -n 2
	$(VPY) -m pytest -q tests/python -m "realtime"

# The quality gates, first in `make test` so that a formatting slip fails in seconds. Warnings are
# errors: the lint levels are in Cargo.toml ([workspace.lints]) and pyproject.toml ([tool.ruff],
# [tool.mypy], strict on the public API). The declared rust-version is checked against the
# dependencies' by tests/python/test_quality_gates.py, and clippy's incompatible_msrv lint flags a
# newer standard-library API.
lint: $(STAMPS)/deps
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
	$(VPY) -m ruff check python tests benches
	$(VPY) -m ruff format --check python tests benches
	$(VPY) -m mypy

bench: build
	celltcp bench

setup: $(STAMPS)/deps

build: $(CORE_MODULE)

$(VPY):
	$(PYTHON) -m venv $(VENV)

# The dependency list lives in pyproject.toml only: build requirements, runtime dependencies and
# the test, docs and lint extras are read from it.
$(STAMPS)/deps: pyproject.toml | $(VPY)
	mkdir -p $(STAMPS)
	$(VPY) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); \
		print("\n".join(p["build-system"]["requires"] + p["project"]["dependencies"] \
		+ p["project"]["optional-dependencies"]["test"] \
		+ p["project"]["optional-dependencies"]["docs"] \
		+ p["project"]["optional-dependencies"]["lint"]))' > $(PY_REQUIREMENTS)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r $(PY_REQUIREMENTS)
	touch $@

# An editable install: python/celltcp/ is imported in place, the compiled module is placed
# beside it, and the `celltcp` command is installed in the venv. A new venv (newer deps stamp)
# therefore triggers a reinstall too.
$(CORE_MODULE): $(STAMPS)/deps $(RUST_SOURCES) pyproject.toml
	maturin develop --release
	touch $@

# tshark checks the pcap captures in the Python tests; install it when possible (root with
# apt-get), otherwise carry on and let that test skip with its own message.
tshark:
	@if command -v tshark >/dev/null 2>&1; then \
		true; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing tshark with apt-get"; \
		( export DEBIAN_FRONTEND=noninteractive; \
		  apt-get update -qq && apt-get install -y -qq --no-install-recommends tshark >/dev/null ) \
		|| echo "tshark could not be installed; the capture test will be skipped"; \
	else \
		echo "tshark is missing and cannot be installed here; the capture test will be skipped"; \
	fi

# -- distribution --------------------------------------------------------------------------------
# An sdist and one abi3 wheel (every CPython >= 3.10) for manylinux2014, i.e. glibc >= 2.17: zig
# links the extension against that glibc's symbols, so no old-distribution build image is needed.
# auditwheel then checks the tag the wheel claims against the symbols it really uses.
DIST := dist
MANYLINUX := manylinux2014
MANYLINUX_TAG := manylinux_2_17_x86_64

$(STAMPS)/dist-tools: pyproject.toml | $(STAMPS)/deps
	$(VPY) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); \
		print("\n".join(p["project"]["optional-dependencies"]["dist"]))' > $(STAMPS)/dist.txt
	$(VPY) -m pip install --quiet --disable-pip-version-check -r $(STAMPS)/dist.txt
	touch $@

dist: $(STAMPS)/dist-tools
	mkdir -p $(DIST)
	rm -f $(DIST)/celltcp-*.whl $(DIST)/celltcp-*.tar.gz
	maturin sdist --out $(DIST)
	maturin build --release --zig --compatibility $(MANYLINUX) --out $(DIST)
	auditwheel show $(DIST)/celltcp-*.whl | tee $(STAMPS)/auditwheel.txt
	@grep -q '"$(MANYLINUX_TAG)"' $(STAMPS)/auditwheel.txt \
		|| { echo "the wheel is not $(MANYLINUX_TAG)"; exit 1; }
	@ls -l $(DIST)

# The sdist must build on its own: a wheel from it in a temporary directory (pip fetches maturin
# into an isolated build environment), then the installed-wheel test on dist/'s wheel.
dist-check: dist
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(VPY) -m pip wheel --no-deps --quiet --disable-pip-version-check -w "$$tmp" \
			$(abspath $(wildcard $(DIST)/celltcp-*.tar.gz)) && ls -l "$$tmp"
	$(VPY) -m pytest -q tests/python/test_install.py

# -- documentation -------------------------------------------------------------------------------
docs: $(STAMPS)/deps
	NO_MKDOCS_2_WARNING=1 $(VPY) -m mkdocs build --strict --site-dir out/site
