#!/bin/sh
# The measured tables of docs/handover.md "DAPS and conditional handover": 20 replications
# (runs 0–19, seed 1) of each procedure on the same drive, through
# crates/scenario/examples/handover_replications.rs (one Markdown row each: mean ± 95 % interval).
# daps-drive.toml is run with 8 dB shadowing and Rayleigh fading on its three cells (the file has
# neither); cho-drive.toml has both already. Run from the repository root:
#
#   sh docs/data/handover_tables.sh
set -eu
RUNS=${RUNS:-20}
R="cargo run -q --release -p celltcp-scenario --example handover_replications --"
EX=python/celltcp/examples/handover
RADIO=""
for c in cell1 cell2 cell3; do
    RADIO="$RADIO --set cells.$c.shadowing_db=8.0 --set cells.$c.fading=true"
done
echo "daps-drive.toml:"
# shellcheck disable=SC2086
$R $EX/daps-drive.toml "$RUNS" "DAPS (forward)" $RADIO
# shellcheck disable=SC2086
$R $EX/daps-drive.toml "$RUNS" "classic, forward" $RADIO --set ran.handover.procedure=classic
# shellcheck disable=SC2086
$R $EX/daps-drive.toml "$RUNS" "classic, discard" $RADIO --set ran.handover.procedure=classic \
    --set ran.handover.policy=discard
echo "cho-drive.toml:"
$R $EX/cho-drive.toml "$RUNS" "CHO, forward"
$R $EX/cho-drive.toml "$RUNS" "CHO, discard" --set ran.handover.policy=discard
$R $EX/cho-drive.toml "$RUNS" "classic, forward" --set ran.handover.procedure=classic \
    --set 'ran.handover.a3={}'
$R $EX/cho-drive.toml "$RUNS" "classic, discard" --set ran.handover.procedure=classic \
    --set 'ran.handover.a3={}' --set ran.handover.policy=discard
