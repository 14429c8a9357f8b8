"""Golden outputs: the SHA-256 of every output file of every example scenario and sweep, and of
every stored result of each reproduction's quick mode, pinned in ``tests/python/data/golden.json``.

A change that alters any of them is a change of what celltcp computes: either a defect fixed (then
the pin is renewed with a note saying which outputs changed and why, and the fix has its own test)
or an accident. ``tests/python/test_golden.py`` checks the examples in ``make test`` and the
reproductions among the slow tests.

    python tests/python/golden.py --update --note "why the outputs changed"   # renew every pin
    python tests/python/golden.py --update --only examples --note "..."      # renew one part
    python tests/python/golden.py --check                                    # compare, exit 1

What is hashed: for ``celltcp run EXAMPLE --out D``, every file of ``D`` but its marker (which
names the celltcp version), with the checkout's examples directory written as ``<examples>``;
for ``celltcp sweep``, every stored summary and series
(tests/python/reliability.py ``store_hashes``); for ``celltcp reproduce N --quick``, its stored
results and its ``claims.json`` without the wall time, its floats at 9 significant digits.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
EXAMPLES = REPO / "python" / "celltcp" / "examples"
PINS = HERE / "data" / "golden.json"
MARKER = ".celltcp-output"
REPRODUCTIONS = ("000", "001", "002", "003", "004")

sys.path.insert(0, str(HERE))
from reliability import store_hashes  # noqa: E402  (tests/python on the path first)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _celltcp(*args: object) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "celltcp.cli", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"celltcp {' '.join(map(str, args))}: exit {done.returncode}: "
            f"{done.stderr.strip()[-400:]}"
        )


def examples() -> list[str]:
    """Every scenario and sweep file under examples/, relative to it."""
    return sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.toml"))


def _is_sweep(path: Path) -> bool:
    return "sweeps" in path.relative_to(EXAMPLES).parts


def example_hashes(name: str) -> dict[str, str]:
    """The hashes of the outputs of one example (a scenario run, or a sweep)."""
    path = EXAMPLES / name
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        if _is_sweep(path):
            _celltcp("sweep", path, "--store", out, "--workers", 1, "--quiet")
            return store_hashes(out)
        _celltcp("run", path, "--out", out, "--quiet")
        return {
            str(p.relative_to(out)): _sha(_placed(p.read_bytes()))
            for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != MARKER
        }


def _placed(data: bytes) -> bytes:
    """An output with the examples' directory named as ``<examples>``: the summary echoes the
    absolute paths of the trace files a scenario reads, which differ between checkouts."""
    return data.replace(str(EXAMPLES).encode(), b"<examples>")


def _rounded(value: Any) -> Any:
    """``value`` with every float at 9 significant digits. The stored runs are pinned exactly;
    the claims are statistics computed from them in Python (means, t quantiles, powers), whose
    last digits depend on the numerical libraries installed, not on what celltcp computes."""
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def reproduction_hashes(seed: str) -> dict[str, str]:
    """The hashes of a quick reproduction's stored results and of its claims without wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report"
        _celltcp("reproduce", seed, "--quick", "--out", out)
        claims = json.loads((out / "claims.json").read_text())
        claims.pop("wall", None)
        hashes = {"claims.json": _sha(json.dumps(_rounded(claims), sort_keys=True).encode())}
        stores = sorted({p.parent for p in Path(tmp).rglob("results.duckdb")})
        for store in stores:
            prefix = str(store.relative_to(tmp))
            hashes.update({f"{prefix}/{k}": v for k, v in store_hashes(store).items()})
        return hashes


def compute(part: str, names: list[str] | None = None) -> dict[str, dict[str, str]]:
    if part == "examples":
        return {n: example_hashes(n) for n in (names or examples())}
    return {s: reproduction_hashes(s) for s in (names or REPRODUCTIONS)}


def load() -> dict[str, Any]:
    return (
        json.loads(PINS.read_text())
        if PINS.exists()
        else {"examples": {}, "reproductions": {}, "notes": []}
    )


def differences(pinned: dict[str, str], now: dict[str, str]) -> list[str]:
    """What differs between two sets of hashes, one line each."""
    out = [f"{k}: no longer written" for k in sorted(pinned.keys() - now.keys())]
    out += [f"{k}: new output" for k in sorted(now.keys() - pinned.keys())]
    out += [f"{k}: changed" for k in sorted(pinned.keys() & now.keys()) if pinned[k] != now[k]]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--update", action="store_true", help="renew the pins")
    mode.add_argument("--check", action="store_true", help="compare with the pins")
    ap.add_argument("--only", choices=("examples", "reproductions"), help="one part")
    ap.add_argument("--note", help="why the outputs changed (required with --update)")
    args = ap.parse_args(argv)
    if args.update and not args.note:
        ap.error("--update needs --note saying why the outputs changed")
    pins = load()
    parts = [args.only] if args.only else ["examples", "reproductions"]
    failed = False
    for part in parts:
        now = compute(part)
        if args.update:
            changed = sorted(n for n in now if pins[part].get(n) != now[n])
            pins[part] = now
            print(f"{part}: {len(now)} pinned, {len(changed)} changed: {', '.join(changed)}")
            continue
        for name, hashes in now.items():
            diff = differences(pins[part].get(name, {}), hashes)
            if diff:
                failed = True
                print(f"{part}/{name}:", *diff[:20], sep="\n  ")
    if args.update:
        pins["notes"].append(
            {"date": dt.date.today().isoformat(), "parts": parts, "note": args.note}
        )
        PINS.parent.mkdir(exist_ok=True)
        PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
