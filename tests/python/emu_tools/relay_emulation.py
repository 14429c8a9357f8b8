"""``celltcp emulate`` with the test relay in place of the engine, as a process of its own, for
the tests that signal or kill an emulation:

    python relay_emulation.py SCENARIO OUT_JSON HOST... [--exec HOST=CMD]...

Prints ``running`` once the namespaces are up and the relay runs; on a normal end (a stop
signal, or every ``--exec`` program exited) writes ``emulation.json``-like output to OUT_JSON.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from celltcp.emulate.programs import parse_exec
from celltcp.emulate.runner import emulate
from celltcp.emulate.session import Interrupted
from emu_tools.relay import relay_engine


def main(argv: list[str]) -> int:
    execs = [parse_exec(a.split("=", 1)[1]) for a in argv if a.startswith("--exec=")]
    scenario, out, *hosts = [a for a in argv if not a.startswith("--exec=")]
    engine = functools.partial(relay_engine, on_start=lambda: print("running", flush=True))
    try:
        run = emulate(scenario, hosts, execs=execs, engine=engine)
    except Interrupted as e:
        return 128 + e.signum
    Path(out).write_text(json.dumps(run.to_json(), indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
