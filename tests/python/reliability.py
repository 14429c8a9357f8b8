"""Measures two promises of celltcp (docs/reliability.md):

    python tests/python/reliability.py determinism [--scenario FILE]... [--runs N] [--duration T]
    python tests/python/reliability.py kill-resume [--kills N] [--seed S]

``determinism``: for each scenario, a sweep of ``--runs`` replications with 1 worker, the same
sweep with 2 workers, and the 2-worker sweep again, each into a new store; then ``celltcp run``
twice into two directories. Every stored summary (without its wall time) and every Parquet
series of the three stores, and every file of the two run directories, is hashed (SHA-256); the
check passes when the hashes agree. Prints one line per scenario and a total.

``kill-resume``: ``--kills`` times, a sweep of 16 short runs is started on a new store, SIGKILLed
(its whole process group) at a random instant — once a random number of its runs are stored,
plus a random part of a run's time — and resumed by the same command. Then the store must hold
exactly the 16 (key, run) rows, all ``ok``, each with its series and no other, no temporary
directory, ``celltcp stats --json`` must equal that of a sweep never interrupted, and every
stored summary and series must hash as in that sweep. Prints how many kills landed while the
sweep was running.

Exit status 0 when every check holds, 1 otherwise. ``tests/python/test_reliability.py`` runs
both with small counts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "python/celltcp/examples"
DEFAULT_SCENARIOS = [
    "wired-chain.toml",
    "wired-chain-tcp.toml",
    "lte-single-cell.toml",
    "epc-two-cells.toml",
    "handover/drive-60kmh.toml",
    "001/bulk-dch384.toml",
    "003/exp5-1.toml",
]

#: Two hosts, a router, a TCP bulk transfer and a Poisson UDP flow: about 0.1 s per run.
KILL_SCENARIO = """\
[simulation]
duration = "3s"
seed = 1

[nodes]
sender = { kind = "host" }
router = { kind = "router" }
receiver = { kind = "host" }

[links.core]
a = "sender"
b = "router"
rate = "100Mbps"
delay = "10ms"

[links.access]
a = "router"
b = "receiver"
rate = "10Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "50p" }
loss = { kind = "bernoulli", p = 0.01 }

[flows.video]
kind = "udp"
src = "sender"
dst = "receiver"
rate = "3Mbps"
packet_size = "1200B"
arrival = "poisson"

[flows.bulk]
kind = "tcp"
src = "sender"
dst = "receiver"
app = { kind = "bulk" }

[trace]
interval = "100ms"
queues = ["access"]
flows = ["video", "bulk"]
tcp = ["cwnd", "srtt"]
"""

KILL_SWEEP = """\
scenario = "kill.toml"
runs = 4
series = ["*"]
metrics = ["flows.bulk.goodput_bps", "flows.video.goodput_bps"]

[grid]
"links.access.rate" = ["4Mbps", "8Mbps"]
"flows.bulk.cc" = ["newreno", "cubic"]
"""
KILL_RUNS = 16


def celltcp(*args: object, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "celltcp.cli", *map(str, args)],
        capture_output=True,
        text=True,
        **kw,
        check=False,
    )


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def store_hashes(store: Path) -> dict[str, str]:
    """(key/run → hash) of each stored summary without its wall time, and (path → hash) of each
    Parquet series."""
    import duckdb

    out: dict[str, str] = {}
    with duckdb.connect(str(store / "results.duckdb"), read_only=True) as con:
        rows = con.execute(
            "SELECT key, run, status, summary, metrics FROM runs ORDER BY key, run"
        ).fetchall()
    for key, run, status, summary, metrics in rows:
        text = json.dumps(
            [
                status,
                json.loads(summary) if summary else None,
                json.loads(metrics) if metrics else None,
            ],
            sort_keys=True,
        )
        out[f"runs/{key}/{run}"] = _sha(text.encode())
    for path in sorted(store.glob("series/*/*/*.parquet")):
        out[str(path.relative_to(store))] = _sha(path.read_bytes())
    return out


def dir_hashes(directory: Path) -> dict[str, str]:
    return {
        str(p.relative_to(directory)): _sha(p.read_bytes())
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def determinism(scenarios: list[Path], runs: int, duration: str | None, work: Path) -> bool:
    ok_all = True
    compared = 0
    for scenario in scenarios:
        name = scenario.stem
        name = (
            str(scenario.relative_to(EXAMPLES).with_suffix("")).replace("/", "-")
            if scenario.is_relative_to(EXAMPLES)
            else name
        )
        sweep = work / f"{name}.sweep.toml"
        lines = [f'scenario = "{scenario}"', f"runs = {runs}", 'series = ["*"]']
        if duration:
            lines.append(f'[grid]\n"simulation.duration" = ["{duration}"]')
        sweep.write_text("\n".join(lines) + "\n", encoding="utf-8")
        hashes = []
        for label, workers in (("w1", 1), ("w2", 2), ("w2-again", 2)):
            store = work / f"{name}-{label}"
            res = celltcp("sweep", sweep, "--store", store, "--workers", workers, "--quiet")
            if res.returncode != 0:
                print(f"{name}: sweep with {workers} workers failed: {res.stderr.strip()}")
                return False
            hashes.append(store_hashes(store))
        run_dirs = []
        for k in (1, 2):
            out = work / f"{name}-run{k}"
            extra = ["--set", f"simulation.duration={duration}"] if duration else []
            res = celltcp("run", scenario, "--out", out, "--quiet", *extra)
            if res.returncode != 0:
                print(f"{name}: run failed: {res.stderr.strip()}")
                return False
            run_dirs.append(dir_hashes(out))
        same_store = hashes[0] == hashes[1] == hashes[2]
        same_run = run_dirs[0] == run_dirs[1]
        n = len(hashes[0]) + len(run_dirs[0])
        compared += n
        ok = same_store and same_run and len(hashes[0]) >= runs
        ok_all &= ok
        print(
            f"{name}: {len(hashes[0])} stored items (summaries and series) identical across "
            f"1, 2 and 2 workers: {same_store}; {len(run_dirs[0])} run files identical across "
            f"two runs: {same_run}"
        )
    print(
        f"determinism: {'ok' if ok_all else 'FAILED'}: {len(scenarios)} scenarios, {compared} "
        "outputs compared by SHA-256"
    )
    return ok_all


def _rows(store: Path) -> list[tuple]:
    import duckdb

    with duckdb.connect(str(store / "results.duckdb"), read_only=True) as con:
        return con.execute("SELECT key, run, status, series FROM runs ORDER BY key, run").fetchall()


def _check_store(store: Path, fresh: Path, fresh_stats: str) -> list[str]:
    rows = _rows(store)
    problems = []
    if len(rows) != KILL_RUNS or len({(k, r) for k, r, _, _ in rows}) != KILL_RUNS:
        problems.append(f"{len(rows)} rows, expected {KILL_RUNS} distinct (key, run)")
    if {s for _, _, s, _ in rows} != {"ok"}:
        problems.append("a run is not ok")
    stored = {(k, str(r)) for k, r, _, _ in rows}
    on_disk = {
        (d.parent.name, d.name)
        for d in store.glob("series/*/*")
        if d.is_dir() and not d.name.startswith(".")
    }
    if on_disk != stored:
        problems.append(f"series directories without a row, or rows without: {on_disk ^ stored}")
    if list(store.glob("series/*/.*")) or list(store.glob("series/.*")):
        problems.append("a temporary directory is left")
    if celltcp("stats", store, "--json").stdout != fresh_stats:
        problems.append("the statistics differ from those of an uninterrupted sweep")
    if store_hashes(store) != store_hashes(fresh):
        problems.append("stored summaries or series differ from those of an uninterrupted sweep")
    return problems


def _finished_series(store: Path) -> int:
    return sum(1 for d in store.glob("series/*/*") if d.is_dir() and not d.name.startswith("."))


def kill_resume(kills: int, seed: int, work: Path) -> bool:
    """``kills`` trials, each on a new store: the sweep is SIGKILLed at a random instant (after
    a random number of its runs were stored, plus a random part of a run's time), then resumed
    and checked."""
    rng = random.Random(seed)
    (work / "kill.toml").write_text(KILL_SCENARIO, encoding="utf-8")
    sweep = work / "kill-sweep.toml"
    sweep.write_text(KILL_SWEEP, encoding="utf-8")
    fresh = work / "fresh"
    t0 = time.monotonic()
    res = celltcp("sweep", sweep, "--store", fresh, "--workers", 2, "--quiet")
    full_s = time.monotonic() - t0
    if res.returncode != 0:
        print(f"the uninterrupted sweep failed: {res.stderr.strip()}")
        return False
    fresh_stats = celltcp("stats", fresh, "--json").stdout
    landed = stored_at_kill = 0
    failures = []
    for trial in range(kills):
        store = work / f"killed-{trial}"
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celltcp.cli",
                "sweep",
                str(sweep),
                "--store",
                str(store),
                "--workers",
                "2",
                "--quiet",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        # A random instant within the sweep: once a random number of its runs (0 to 15) are
        # stored, plus a random fraction of a run's time.
        target = rng.randrange(KILL_RUNS)
        while proc.poll() is None and _finished_series(store) < target:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, full_s / KILL_RUNS))
        if proc.poll() is None:
            landed += 1
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()
        if (store / "results.duckdb").exists():
            stored_at_kill += len(_rows(store))
        res = celltcp("sweep", sweep, "--store", store, "--workers", 2, "--quiet")
        if res.returncode != 0:
            failures.append(f"trial {trial}: the resumed sweep failed: {res.stderr.strip()}")
            continue
        failures += [f"trial {trial}: {p}" for p in _check_store(store, fresh, fresh_stats)]
    ok = not failures and landed > 0
    for f in failures:
        print(f)
    print(
        f"kill-resume: {'ok' if ok else 'FAILED'}: {kills} sweeps of {KILL_RUNS} runs SIGKILLed "
        f"at random instants, {landed} while running ({stored_at_kill} of {kills * KILL_RUNS} "
        f"runs stored at the kills; an uninterrupted sweep takes {full_s:.1f} s); after resuming, "
        f"{kills - len({f.split(':')[0] for f in failures})}/{kills} stores hold exactly the "
        f"{KILL_RUNS} runs, with summaries and series identical to an uninterrupted sweep"
    )
    return ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    d = sub.add_parser("determinism")
    d.add_argument("--scenario", action="append", type=Path, help="example scenario (repeatable)")
    d.add_argument("--runs", type=int, default=2)
    d.add_argument("--duration", help="override simulation.duration, e.g. 2s")
    k = sub.add_parser("kill-resume")
    k.add_argument("--kills", type=int, default=20)
    k.add_argument("--seed", type=int, default=1)
    for s in (d, k):
        s.add_argument("--work", type=Path, help="working directory (default: a temporary one)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="celltcp-reliability-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.what == "determinism":
            scenarios = args.scenario or [EXAMPLES / s for s in DEFAULT_SCENARIOS]
            ok = determinism([s.resolve() for s in scenarios], args.runs, args.duration, work)
        else:
            ok = kill_resume(args.kills, args.seed, work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
