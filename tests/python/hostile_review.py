#!/usr/bin/env python3
"""Runs each hostile input of issue 14 through the `celltcp` command and prints a Markdown table:
input, exit status, first line of stderr (cut to 110 characters), and what was checked beside.

    .venv/bin/python tests/python/hostile_review.py [--skip-emulate]

It works in a scratch directory and leaves nothing behind. The table of docs/reliability.md
("Hostile input", "Review of the issue's list") is its output. The tests of each row are in
tests/python/test_hostile_input.py, test_streaming_input.py and test_output_safety.py; this
script only shows what a user sees.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "python" / "celltcp" / "examples"
CHAIN = EXAMPLES / "wired-chain.toml"
CELL = EXAMPLES / "lte-single-cell.toml"
TRACE = EXAMPLES / "traces" / "trace-link.toml"
HANDOVER = EXAMPLES / "000" / "forwarding.toml"
TRACE_KEY = "links.access.a_to_b.trace"
TABLE_KEY = "cells.cell1.bler_table"


#: The environment of every command: HOME is set to a scratch directory by main(), so that the
#: home-directory rule of --out is tried on a directory of this script's own.
ENV = dict(os.environ)


def celltcp(*args: object, cwd: Path, timeout: float = 120) -> tuple[int, str, float]:
    """Exit status, stderr and wall time of `python -m celltcp.cli ARGS`."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "celltcp.cli", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=ENV,
        check=False,
    )
    return proc.returncode, proc.stderr, time.monotonic() - started


def first_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "(nothing)"
    line = lines[0].replace("|", "\\|")
    extra = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return (line if len(line) <= 110 else line[:109] + "…") + extra


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skip-emulate", action="store_true", help="leave out the emulation row")
    args = ap.parse_args()
    rows: list[tuple[str, int, str, str]] = []

    with tempfile.TemporaryDirectory(prefix="celltcp-hostile-") as scratch:
        d = Path(scratch)
        (d / "home").mkdir()
        (d / "home" / "keep.txt").write_text("mine\n")
        ENV["HOME"] = str(d / "home")
        (d / "work").mkdir()
        chain = CHAIN.read_text()

        def case(label: str, *argv: object, note=None, timeout: float = 120, cwd: Path = d) -> int:
            """One command; `note`, if given, is called after it for the last column."""
            code, err, seconds = celltcp(*argv, cwd=cwd, timeout=timeout)
            rows.append((label, code, first_line(err), note() if note else f"{seconds:.1f} s"))
            return code

        def scenario(name: str, text: str) -> Path:
            (d / name).write_text(text)
            return d / name

        # Nesting.
        case(
            "arrays nested 1,000 deep",
            "validate",
            scenario("a.toml", chain + "x = " + "[" * 1000 + "]" * 1000 + "\n"),
        )
        case(
            "a dotted key 5,000 deep",
            "validate",
            scenario("k.toml", chain + ".".join(["a"] * 5000) + " = 1\n"),
        )
        base = scenario("base.toml", chain)
        sweep = scenario(
            "deep.sweep.toml",
            f'scenario = "{base.name}"\n[grid]\n' + ".".join(["a"] * 50_000) + " = [1]\n",
        )
        case("a sweep nested 50,000 deep", "sweep", sweep, "--store", d / "st", "--quiet")
        sweep = scenario("runs.sweep.toml", f'scenario = "{base.name}"\nruns = 1000000000\n')
        case(
            "`runs = 1000000000`",
            "sweep",
            sweep,
            "--store",
            d / "st",
            "--quiet",
            note=lambda: f"no store: {not (d / 'st').exists()}",
        )

        # Rows of sampled series.
        case('`trace.interval = "1ns"`, validate', "validate", CHAIN, "--set", "trace.interval=1ns")
        case(
            '`trace.interval = "1ns"`, run',
            "run",
            CHAIN,
            "--set",
            "trace.interval=1ns",
            "--out",
            d / "o1",
            note=lambda: f"no --out dir: {not (d / 'o1').exists()}",
        )

        # Input files that are not regular files, or not bounded.
        fifo = d / "fifo"
        os.mkfifo(fifo)
        case("`/dev/zero` as the scenario file", "validate", "/dev/zero", timeout=20)
        case(
            "`/dev/zero` as a trace",
            "validate",
            TRACE,
            "--set",
            f"{TRACE_KEY}=/dev/zero",
            timeout=20,
        )
        case("a FIFO as a trace", "validate", TRACE, "--set", f"{TRACE_KEY}={fifo}", timeout=20)
        case("a FIFO as a BLER table", "validate", CELL, "--set", f"{TABLE_KEY}={fifo}", timeout=20)
        big = d / "big.trace"
        with open(big, "wb") as f:
            f.truncate((64 << 20) + 1)
        case("a 64 MiB + 1 byte trace (sparse)", "validate", TRACE, "--set", f"{TRACE_KEY}={big}")
        (d / "long.trace").write_text("1\n2\n" + "3" * 100_000 + "\n")
        case(
            "a trace whose line 3 has 100,000 characters",
            "validate",
            TRACE,
            "--set",
            f"{TRACE_KEY}={d / 'long.trace'}",
        )
        (d / "oneline.trace").write_text("7" * 20_000_000)
        case(
            "a 20 MB trace without a line end",
            "validate",
            TRACE,
            "--set",
            f"{TRACE_KEY}={d / 'oneline.trace'}",
        )
        case(
            "`/proc/self/environ` as a trace",
            "validate",
            TRACE,
            "--set",
            f"{TRACE_KEY}=/proc/self/environ",
        )

        # Numbers.
        case(
            "a NaN cell position, validate",
            "validate",
            CELL,
            "--set",
            "cells.cell1.position=[nan, 0.0]",
        )
        case(
            "a NaN cell position, run",
            "run",
            CELL,
            "--set",
            "cells.cell1.position=[nan, 0.0]",
            "--out",
            d / "o2",
            note=lambda: f"no --out dir: {not (d / 'o2').exists()}",
        )
        case("`tx_power_dbm = inf`", "validate", CELL, "--set", "cells.cell1.tx_power_dbm=inf")
        case(
            "`position = [1.0, 2.0, 3.0]`",
            "validate",
            CELL,
            "--set",
            "cells.cell1.position=[1.0, 2.0, 3.0]",
        )

        # Positions of syntax errors, echoed values.
        lines = chain.splitlines()
        bad = scenario("syntax.toml", chain + "rate = = 1\n")
        case(f"a syntax error on line {len(lines) + 1} of {len(lines) + 1}", "validate", bad)
        case(
            "an integer beyond 64 bits",
            "validate",
            scenario("int.toml", chain.replace("seed = 1", "seed = 99999999999999999999")),
        )
        case(
            "a 10 MB value in the file",
            "validate",
            scenario(
                "value.toml", chain.replace('rate = "25Mbps"', 'rate = "' + "x" * 10_000_000 + '"')
            ),
        )
        case(
            "a 100,000-character value in `--set`",
            "validate",
            CHAIN,
            "--set",
            "links.access.rate=" + "y " * 50_000,
        )

        # Silently accepted nonsense.
        case(
            "a manual handover to the serving cell",
            "validate",
            HANDOVER,
            "--set",
            'ran.handover.manual=[{ at = "2s", ue = "ue_ref", target = "source" }]',
        )
        case(
            "a UE that is also a wired host",
            "validate",
            HANDOVER,
            "--set",
            'links.wired_ue={ a = "router", b = "ue_t1", rate = "1Gbps", delay = "1ms" }',
        )
        case(
            "a UE no cell can serve at t = 0",
            "validate",
            HANDOVER,
            "--set",
            "cells.target.ues.ue_t1.position=[1.0e6, 0.0]",
        )

        # --out.
        (d / "v").mkdir()
        (d / "v" / "user.txt").write_text("mine\n")
        short = ["--quiet", "--set", "simulation.duration=1s"]
        case(
            "`--out v`, v holds a user's file",
            "run",
            CHAIN,
            *short,
            "--out",
            "v",
            note=lambda: f"v holds {sorted(p.name for p in (d / 'v').iterdir())}",
        )
        # From d/work, so that "." and ".." are scratch directories; "/" is refused as an
        # ancestor of the current directory before anything is looked at.
        for out, shown in (
            ("", '""'),
            (".", "."),
            ("..", ".."),
            ("/", "/"),
            (str(d / "home"), "$HOME"),
        ):
            case(
                f"`--out {shown} --overwrite`",
                "run",
                CHAIN,
                *short,
                "--out",
                out,
                "--overwrite",
                cwd=d / "work",
            )
        rows[-1] = rows[-1][:3] + (
            f"$HOME still holds keep.txt: {(d / 'home' / 'keep.txt').exists()}",
        )
        (d / "real").mkdir()
        (d / "link").symlink_to("real")
        case(
            "`--out link`, a symbolic link to an empty directory",
            "run",
            CHAIN,
            *short,
            "--out",
            "link",
            note=lambda: (
                f"link still a link: {(d / 'link').is_symlink()}, real holds "
                f"{sorted(p.name for p in (d / 'real').iterdir())}"
            ),
        )
        case(
            "the event budget cuts a 3600 s run",
            "run",
            CHAIN,
            "--quiet",
            "--set",
            "simulation.duration=3600s",
            "--set",
            "simulation.max_events=2000000",
            "--out",
            "b",
        )

        # Rows of the event-driven series.
        case(
            "`trace.packets` on a 1 Gb/s flow for 36,000 s, run",
            "run",
            CHAIN,
            "--set",
            'trace.packets=["video"]',
            "--set",
            "flows.video.rate=1Gbps",
            "--set",
            "simulation.duration=36000s",
            "--out",
            d / "pk",
            timeout=600,
            note=lambda: (
                f"no --out dir: {not (d / 'pk').exists()}, "
                f"no partial: {not list(d.glob('.pk.partial-*'))}"
            ),
        )

        # Numbers beyond what a scenario holds, and a store in the wrong place.
        case(
            "an integer of 5,000 digits",
            "validate",
            scenario("digits.toml", chain.replace("seed = ", "seed = " + "9" * 5000 + " #", 1)),
        )
        case(
            "a float beyond double range (`1e999`)",
            "validate",
            scenario("huge.toml", chain.replace('duration = "', 'duration = 1e999 #"', 1)),
        )
        case("`--seed 2^64`", "run", CHAIN, "--seed", str(2**64), "--out", d / "seed")
        case("`--run` of 5,000 digits", "run", CHAIN, "--run", "9" * 5000, "--out", d / "seed")
        one = scenario("one.sweep.toml", f'scenario = "{base.name}"\nruns = 1\n')
        case("`sweep --store ..`", "sweep", one, "--store", "..", "--quiet", cwd=d / "work")
        (d / "papers").mkdir()
        (d / "papers" / "draft.tex").write_text("mine\n")
        case(
            "`sweep --store papers`, a directory of other files",
            "sweep",
            one,
            "--store",
            d / "papers",
            "--quiet",
            note=lambda: f"papers holds {sorted(p.name for p in (d / 'papers').iterdir())}",
        )
        far = CELL.read_text().replace(
            "ue_far = { position = [600.0", "ue_far = { position = [1e6", 1
        )
        case("a plain cell's UE 1,000 km away", "validate", scenario("far.toml", far))

        # Ctrl-C.
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celltcp.cli",
                "run",
                str(CHAIN),
                "--quiet",
                "--set",
                "simulation.duration=100000s",
                "--out",
                "ctrlc",
            ],
            cwd=d,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list(d.glob(".ctrlc.partial-*")):
            time.sleep(0.05)
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        rows.append(
            (
                "SIGINT 1 s into a 100,000 s run",
                proc.returncode,
                first_line(err),
                f"exited {time.monotonic() - sent:.2f} s after SIGINT; "
                f"nothing written: {not (d / 'ctrlc').exists()}",
            )
        )

        # Emulation: --pcap into the --out directory, which does not exist yet.
        if not args.skip_emulate:
            out = d / "absent" / "D"
            code, err, _seconds = celltcp(
                "emulate",
                CHAIN,
                "--host",
                "ue",
                "--duration",
                "2s",
                "--quiet",
                "--out",
                out,
                "--pcap",
                out / "p.pcap",
                "--exec",
                f"ue=echo x > {out / 'program.txt'}",
                cwd=d,
                timeout=300,
            )
            files = sorted(p.name for p in out.iterdir()) if out.exists() else []
            rows.append(
                (
                    "`emulate --out D --pcap D/p.pcap`, D absent",
                    code,
                    first_line(err),
                    f"D holds {files}",
                )
            )

    print(
        "| input | exit | stderr, first line (the scratch directory shown as `$D`) | checked beside |"
    )
    print("|---|---|---|---|")
    for label, code, line, note in rows:
        line, note = (text.replace(scratch, "$D") for text in (line, note))
        print(f"| {label} | {code} | {line} | {note} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
