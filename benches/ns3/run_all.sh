#!/usr/bin/env bash
# Measures ns-3 on celltcp's benchmark scenarios; see README.md in this directory.
#
#   bash benches/ns3/run_all.sh            # all five measurements, results in benches/ns3/results/
#   NS3_VENV=/path/to/venv bash benches/ns3/run_all.sh
#
# ns-3 comes from PyPI (package ns3 3.44.post0) in its own virtual environment, never the
# project's .venv; it is created on first use. One benchmark runs at a time, each run in one
# process, so the whole measurement uses a single core.
set -euo pipefail
# No __pycache__ beside the scripts.
export PYTHONDONTWRITEBYTECODE=1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${NS3_VENV:-/work/ns3-venv}"
out="$here/results"

if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "ns3==3.44.post0"
fi
py="$venv/bin/python"
mkdir -p "$out"

"$py" "$here/wired_chain_tcp.py" --json "$out/wired_chain_tcp.json"
"$py" "$here/wired_chain_udp.py" --json "$out/wired_chain_udp.json"
"$py" "$here/lte_bulk.py" --ues 1 --duration 100 --json "$out/lte_1ue_100s.json"
"$py" "$here/lte_bulk.py" --ues 50 --duration 5 --json "$out/lte_50ue_5s.json"
# --ues counts the UEs of each cell: 3 cells of 5 UEs, as python/celltcp/examples/lte-bench-3cells.toml.
"$py" "$here/lte_bulk.py" --cells 3 --ues 5 --duration 5 --json "$out/lte_3cells_5ue_5s.json"
