"""Seed `000_…` (Pacifico et al., GLOBECOM 2009): TCP Reno across an X2 handover whose forwarded
data queue a second time in a congested core router, and three remedies.

The reproduction is a declaration on :mod:`celltcp.study`: this module declares the sweeps, the
metrics read from every run and the frames derived from them; :mod:`celltcp.reproduce.
seed000_report` declares the claims with their tests, the tables, the figures and the report's
layout. The engine runs every sweep into one results store, so a repeated or interrupted
reproduction runs only what is missing. Three experiments:

* **Figs. 8 and 11** — the reference UE's outcome class (`timeout`, `halving`, `none`: the
  analytics' ``outcome``, 000 §VI-B) with one UE at the source cell and 2–5 in the target cell,
  for the standard procedure (``forward``), the fast path switch, the handover prediction and,
  as a reference, ``discard``. The UE count changes the topology: each count's scenario is
  ``celltcp/examples/000/forwarding.toml`` (the 5-UE case) with its later target-cell UEs
  removed (:func:`target_cell_scenario`, tables replaced by the core's setter).
* **Table IV** — the drop rate of the router → source eNB and router → target eNB queues with
  Drop Tail, RED dropping and RED marking (ECN carried through the GTP-U tunnel by RFC 6040 or by
  the seed's Fig. 7 rule), on ``celltcp/examples/000/aqm.toml``; each run also once for its first
  second alone, to separate the start-up transient from the rest of the run.
* **Fig. 12** — the data delivered to the reference UE from the handover command until one RTT
  after it attaches (the analytics' ``delivered_bytes``) for the standard procedure, AQM,
  prediction and both, per UE count. The default and prediction groups are the Fig. 8/11 runs;
  the AQM groups add RED marking with ECN on both router links.

Each UE count is one experiment of two sweeps (counted together, :attr:`Sweep.count_as`): the
four policies with Drop Tail, tracing the reference flow's window for Fig. 4, and the standard
procedure and prediction with the seed's AQM proposal. Table IV's two run lengths are two sweeps
of the same five variants.

The mapping of the seed's set-up onto the scenario files, and why celltcp differs where it does,
are in docs/seed-000.md.

Units: times s, sizes bytes, rates bit/s unless a name says otherwise.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from celltcp import examples
from celltcp.models.x2 import x2_normalized_throughput
from celltcp.outputs import TCP_OUTCOMES
from celltcp.reproduce.document import Document
from celltcp.reproduce.registry import Options, ReproductionError
from celltcp.study import Derived, Metric, Replications, Scenario, Sweep

if TYPE_CHECKING:
    from celltcp.study import Results

__all__ = [
    "ALIASES",
    "AQM_REPLICATIONS",
    "AQM_VARIANTS",
    "CWND_MAX_SEGMENTS",
    "DERIVED",
    "DROP_RATES",
    "FIG4",
    "HANDOVERS",
    "MSS_BYTES",
    "NAME",
    "REPLICATIONS",
    "RTT",
    "SUMMARY",
    "SWEEPS",
    "TABLE_IV",
    "UE_COUNTS",
    "drop_rate",
    "fig4_figures",
    "fig4_model",
    "fig4_table",
    "run",
    "scenario_dir",
    "table_iv_sweep",
    "target_cell_scenario",
    "with_variant",
]

NAME = "000-x2-handover"
ALIASES = ("000",)
SUMMARY = (
    "Pacifico et al. 2009: TCP Reno across an X2 handover through a congested core router; "
    "fast path switch, prediction, RED (Figs. 8, 11, 12, Table IV)"
)

MASTER_SEED = 1
#: UEs in the target cell (Figs. 8 and 11: "2 ME" … "5 ME"); one UE, the reference, at the source.
UE_COUNTS = (2, 3, 4, 5)
POLICY = "ran.handover.policy"
POLICIES = ("forward", "fast_path_switch", "predicted", "discard")
POLICY_LABEL = {
    "forward": "standard (forward)",
    "fast_path_switch": "fast path switch",
    "predicted": "prediction",
    "discard": "discard (reference)",
}
OUTCOMES = TCP_OUTCOMES
#: The reference UE's flow in both scenario files.
REF_FLOW = "ue_ref"
#: The router's links towards the eNBs (Table IV's "Link R → SeNodeB" and "R → TeNodeB").
LINKS = ("s1u_source", "s1u_target")
#: Table IV's runs are repeated this long: their drops are those of the start-up transient.
STARTUP = "1s"
STARTUP_TEXT = "the first second"

#: Table I/II: the core router's queue, 90 packets, Drop Tail.
DROPTAIL_QUEUE = {"kind": "droptail", "limit": "90p"}
#: Table III: RED with max_p 0.1, thresholds 20 and 65 packets, queue 90 packets.
RED_QUEUE = {"kind": "red", "limit": "90p", "min_th": "20p", "max_th": "65p", "max_p": 0.1}


@dataclass(frozen=True)
class AqmVariant:
    """One row of Table IV: a name, the queue table of both router links, ``epc.ecn_decap``,
    whether the TCP flows negotiate ECN, and the seed's drop rates (%) towards the source and
    the target eNB (None for a row the seed does not have)."""

    key: str
    label: str
    queue: dict[str, Any]
    ecn_decap: str
    tcp_ecn: bool
    seed: tuple[float, float] | None


RED_MARK = {**RED_QUEUE, "ecn": True}
AQM_VARIANTS = (
    AqmVariant("droptail", "Drop Tail", DROPTAIL_QUEUE, "rfc6040", True, (2.2, 3.9)),
    AqmVariant(
        "red_drop", "RED (dropping)", {**RED_QUEUE, "ecn": False}, "rfc6040", True, (2.2, 3.6)
    ),
    AqmVariant("red_mark", "RED (marking), RFC 6040 tunnel", RED_MARK, "rfc6040", True, (2.1, 3.3)),
    AqmVariant(
        "red_mark_fig7", "RED (marking), Fig. 7 tunnel", RED_MARK, "drop_not_ect", True, (2.1, 3.3)
    ),
    AqmVariant(
        "red_mark_not_ect",
        "RED (marking), Fig. 7 tunnel, ECN-unaware TCP",
        RED_MARK,
        "drop_not_ect",
        False,
        None,
    ),
)

#: Fig. 12's groups: (label, handover policy, AQM on the router links).
DELIVERY_GROUPS = (
    ("default", "forward", False),
    ("AQM", "forward", True),
    ("prediction", "predicted", False),
    ("AQM + prediction", "predicted", True),
)

#: Replications (run numbers 0..n−1 of master seed 1) per point of Figs. 8/11/12 and per row of
#: Table IV.
REPLICATIONS = Replications(
    quick=8,
    full=50,
    why="the seed's 50 simulations per configuration; quick mode: a smoke reproduction",
)
AQM_REPLICATIONS = REPLICATIONS

#: Fig. 4 (§IV): the reference flow's window and in-order bytes, traced in the Drop Tail runs.
FIG4_TRACE: dict[str, Any] = {"trace.tcp": ["cwnd", "delivered"], "trace.tcp_flows": [REF_FLOW]}
#: Table II: 1500-byte packets (MSS 1460 bytes) and a 64 KB receive window = cwndMAX 44
#: segments, the window no cwnd can exceed on the wire.
MSS_BYTES = 1460
CWND_MAX_SEGMENTS = 44
#: Table II: the forwarding runs last 5 s.
RUN_END_S = 5.0


# -- scenarios -------------------------------------------------------------------------------


def scenario_dir() -> Path:
    """The seed's scenario files, ``000/forwarding.toml`` and ``000/aqm.toml`` of the library
    shipped in the package (:mod:`celltcp.examples`)."""
    return examples.path("000")


@functools.cache
def _file_tables(source: str) -> dict[str, Any]:
    """The tables of an example a variant replaces or reads, read from the file once."""
    from celltcp.scenario import Scenario as Loaded

    scenario = Loaded.load(examples.path(source))
    return {
        key: scenario.get(key)
        for key in ("cells.target.ues", "nodes", "mobility", "flows")
        if key in scenario
    }


def target_cell_scenario(ues_in_target: int, overrides: dict[str, Any] | None = None) -> Scenario:
    """``000/forwarding.toml`` with ``ues_in_target`` competing UEs in the target cell (and
    ``overrides``), as a study's scenario.

    The file is the 5-UE case of Table II; a smaller count keeps the first UEs of
    ``cells.target.ues`` and replaces the tables that name the others (:attr:`Scenario.tables`),
    so that every count shares the reference UE, the links and the procedure, and 5 UEs is the
    file itself. A removed UE takes its node, its ``mobility`` entry and every flow it ends with
    it.

    Raises:
        ReproductionError: a count outside 1 … the file's number of target-cell UEs.
    """
    source = "000/forwarding"
    file = _file_tables(source)
    competitors = list(file["cells.target.ues"])
    if isinstance(ues_in_target, bool) or not 1 <= ues_in_target <= len(competitors):
        raise ReproductionError(
            f"ues_in_target: {ues_in_target!r} UEs in the target cell; forwarding.toml "
            f"provides 1 to {len(competitors)}"
        )
    removed = set(competitors[ues_in_target:])
    tables: dict[str, dict[str, Any]] = {}
    if removed:
        tables = {
            key: {k: v for k, v in file[key].items() if k not in removed}
            for key in ("cells.target.ues", "nodes", "mobility")
            if key in file
        }
        tables["flows"] = {
            k: f for k, f in file["flows"].items() if not removed & {f["src"], f["dst"]}
        }
    return Scenario(source, dict(overrides or {}), tables)


def _flows(scenario: Scenario) -> list[str]:
    """The flows of a study's scenario: its replaced ``flows`` table, or the file's."""
    return list(scenario.tables.get("flows") or _file_tables(scenario.source)["flows"])


def with_variant(scenario: Scenario, variant: AqmVariant, overrides: dict[str, Any]) -> Scenario:
    """``scenario`` with a Table IV variant: its queue on both router links (each a table
    replaced whole, so that Drop Tail drops RED's thresholds), its tunnel's ECN rule and ECN in
    every flow, and ``overrides``."""
    queues = {f"links.{link}.queue": variant.queue for link in LINKS}
    settings: dict[str, Any] = {"epc.ecn_decap": variant.ecn_decap}
    settings.update({f"flows.{f}.tcp.ecn": variant.tcp_ecn for f in _flows(scenario)})
    return Scenario(
        scenario.source,
        {**scenario.overrides, **settings, **overrides},
        {**scenario.tables, **queues},
    )


#: The seed's AQM proposal (§V-B) in Fig. 12: RED marking on both router links, ECN through the
#: tunnel (RFC 6040) and ECN-capable TCP.
AQM_PROPOSAL = AQM_VARIANTS[2]

#: The reference flow's packets dropped by full queues over the run (before the handover it is
#: alone on the source link and never fills the queue, so these are losses after it).
_REF_QUEUE_DROPS = f"flows.{REF_FLOW}.drops.queue_full"
FORWARDING_METRICS = (
    # Stored with every run (one column per outcome label); the report reads the outcome of
    # the reference flow's handover record.
    Metric("outcomes", summary="handovers.outcomes.*"),
    Metric("queue_drops", summary=_REF_QUEUE_DROPS),
)
_LINK_COUNTERS = ("packets_sent", "drops.queue_full", "drops.aqm", "ecn_marks")
AQM_METRICS = (
    *(
        Metric(f"links.{link}.a_to_b.{what}", summary=f"links.{link}.a_to_b.{what}")
        for link in LINKS
        for what in _LINK_COUNTERS
    ),
    # Wildcards: one column per tunnel end and per flow, summed by the derived frame.
    Metric("decap_drops", summary="epc.*.drops_ecn_decap"),
    Metric("goodput", summary="flows.*.goodput_bps"),
)


def _count_sweeps(n: int) -> tuple[Sweep, Sweep]:
    """The two sweeps of one UE count: the policies with Drop Tail (traced for Fig. 4), and the
    standard procedure and prediction with the AQM proposal, counted as one experiment."""
    name = f"{n} UEs"
    return (
        Sweep(
            name,
            target_cell_scenario(n, FIG4_TRACE),
            {POLICY: POLICIES},
            FORWARDING_METRICS,
            REPLICATIONS,
            seed=MASTER_SEED,
            keep=("handovers", "tcp"),
        ),
        Sweep(
            f"{name}, AQM",
            with_variant(target_cell_scenario(n), AQM_PROPOSAL, {}),
            {POLICY: ("forward", "predicted")},
            FORWARDING_METRICS,
            REPLICATIONS,
            seed=MASTER_SEED,
            keep=("handovers",),
            count_as=name,
        ),
    )


#: Table IV's run count in ``claims.json``: every variant over both run lengths.
TABLE_IV_RUNS = "Table IV"


def table_iv_sweep(variant: AqmVariant, startup: bool = False) -> str:
    """The name of the sweep of one Table IV variant over the seed's 10 s, or over the start-up
    transient alone (``startup``)."""
    return f"Table IV, {variant.key}" + (f", {STARTUP_TEXT}" if startup else "")


def _table_iv_sweep(variant: AqmVariant, startup: bool) -> Sweep:
    duration = STARTUP if startup else "10s"
    return Sweep(
        table_iv_sweep(variant, startup),
        with_variant(Scenario("000/aqm"), variant, {"simulation.duration": duration}),
        {},
        AQM_METRICS,
        AQM_REPLICATIONS,
        seed=MASTER_SEED,
        keep=("handovers",),
        count_as=TABLE_IV_RUNS,
    )


SWEEPS = (
    *(s for n in UE_COUNTS for s in _count_sweeps(n)),
    # Table IV: each variant over the seed's 10 s, then each stopped after the start-up.
    *(_table_iv_sweep(v, startup) for startup in (False, True) for v in AQM_VARIANTS),
)


# -- Fig. 4 of one run -----------------------------------------------------------------------


def _last_at(times: np.ndarray, values: np.ndarray, t: float, before: float = 0.0) -> float:
    """The last value recorded at or before ``t`` (``before`` when there is none)."""
    i = int(np.searchsorted(times, t, side="right"))
    return float(values[i - 1]) if i > 0 else before


def fig4_figures(
    tcp: pd.DataFrame, start_s: float, srtt_s: float, end_s: float = RUN_END_S
) -> dict[str, float]:
    """Fig. 4's quantities of one run of the reference flow (its ``tcp`` series, with ``cwnd``
    and ``delivered`` rows), around a handover that starts at ``start_s`` (the command, or the
    path switch when that comes first) with smoothed RTT ``srtt_s`` before it:

    * ``fig4_cwnd_max``: the largest window before the start, in segments, at most the receive
      window (:data:`CWND_MAX_SEGMENTS`): the model's cwndMAX;
    * ``fig4_cwnd_ho``: the window at the start, likewise: the model's cwndHO;
    * ``fig4_cycle_s``: one cycle of the model, ``(cwndMAX/2 + 1)`` rounds of ``srtt_s``;
    * ``fig4_after_bytes``: the bytes delivered in order in the cycle that starts at the
      handover (NaN when the run, ``end_s`` long, ends before the cycle does): the
      simulation's D of eqs. (1)–(3), normalized by :func:`fig4_table`;
    * ``fig4_before_bytes``: the same over the cycle before the handover.
    """
    mine = tcp[tcp["flow"] == REF_FLOW]
    cwnd = mine[mine["var"] == "cwnd"]
    delivered = mine[mine["var"] == "delivered"]
    tc, wc = cwnd["time_s"].to_numpy(float), cwnd["value"].to_numpy(float) / MSS_BYTES
    td, d = delivered["time_s"].to_numpy(float), delivered["value"].to_numpy(float)
    upto = wc[tc <= start_s]
    nan = {
        "fig4_cwnd_max": math.nan,
        "fig4_cwnd_ho": math.nan,
        "fig4_cycle_s": math.nan,
        "fig4_after_bytes": math.nan,
        "fig4_before_bytes": math.nan,
    }
    if upto.size == 0 or not srtt_s or math.isnan(srtt_s):
        return nan
    w_max = min(float(upto.max()), CWND_MAX_SEGMENTS)
    w_ho = min(_last_at(tc, wc, start_s), CWND_MAX_SEGMENTS)
    cycle = (w_max / 2.0 + 1.0) * srtt_s
    before = _last_at(td, d, start_s) - _last_at(td, d, start_s - cycle)
    after = _last_at(td, d, start_s + cycle) - _last_at(td, d, start_s)
    return {
        "fig4_cwnd_max": w_max,
        "fig4_cwnd_ho": w_ho,
        "fig4_cycle_s": cycle,
        "fig4_after_bytes": after if start_s + cycle <= end_s else math.nan,
        "fig4_before_bytes": before,
    }


def fig4_model(row: pd.Series | dict[str, Any]) -> float:
    """Fig. 4's normalized throughput (eqs. 1–5, reconstructed) for one run: the model at the
    run's cwndMAX and cwndHO (cwndHO held inside the model's range [cwndMAX/2, cwndMAX]) for
    its outcome class; 1 for a transparent handover (`none`), NaN when undefined."""
    w, c, outcome = row["fig4_cwnd_max"], row["fig4_cwnd_ho"], row["outcome"]
    if outcome == "none":
        return 1.0
    if math.isnan(w) or math.isnan(c) or w < 4:
        return math.nan
    case = "timeout" if outcome == "timeout" else "halving"
    return x2_normalized_throughput(w, min(max(c, w / 2.0), w), case)


def fig4_table(ho: pd.DataFrame) -> pd.DataFrame:
    """The Drop Tail runs with Fig. 4's columns, ``fig4_ideal_bytes``, ``fig4_normalized``,
    ``fig4_model`` and ``fig4_gap`` (normalized − model) added.

    The normalized throughput is the model's D / D_I. D_I is "the optimal case, where cwnd
    does not suffer these problems" (§IV): here the mean ``fig4_after_bytes`` of the runs of
    the same policy and number of UEs in the target whose handover was transparent (class
    `none`). Both matter, the cycle before the handover does not: the UE leaves a source link
    it had alone for a target link it shares with the competitors, and what the first second
    there brings depends on the policy (prediction's data wait at the target, the fast path
    switch's queue behind the competitors'). Points with fewer than two transparent runs
    (``forward`` and ``discard`` mostly time out) have no reference and are left out."""
    runs = ho[~ho["aqm"]].dropna(subset=["fig4_after_bytes"]).copy()
    none = runs[runs["outcome"] == "none"].groupby(["policy", "ues"])["fig4_after_bytes"]
    ideal = none.mean()[none.size() >= 2]
    runs["fig4_ideal_bytes"] = [
        float(ideal.get((p, n), math.nan)) for p, n in zip(runs["policy"], runs["ues"], strict=True)
    ]
    runs["fig4_normalized"] = runs["fig4_after_bytes"] / runs["fig4_ideal_bytes"]
    runs["fig4_model"] = [fig4_model(r) for _, r in runs.iterrows()]
    runs["fig4_gap"] = runs["fig4_normalized"] - runs["fig4_model"]
    return runs.dropna(subset=["fig4_normalized"])


# -- derived frames --------------------------------------------------------------------------


def _ref_handover(table: pd.DataFrame, sweep: str, point: int, run_number: int) -> dict[str, Any]:
    """The reference flow's one row of a run's ``handovers`` series; ReproductionError unless
    there is exactly one."""
    mine = table[table["flow"] == REF_FLOW]
    if len(mine) != 1:
        raise ReproductionError(
            f"{sweep}: run {run_number} of point {point} has {len(mine)} handover rows for "
            f"{REF_FLOW}; expected 1"
        )
    row: dict[str, Any] = mine.iloc[0].to_dict()
    return row


def _fig4_of(tcp: pd.DataFrame, row: dict[str, Any]) -> dict[str, float]:
    """Fig. 4's columns of a traced run: the cycles start at the command, or at the path switch
    when that comes first (prediction)."""
    start = row["start_s"]
    switch = row.get("path_switch_s")
    if switch is not None and not math.isnan(switch):
        start = min(start, switch)
    return fig4_figures(tcp, start, row["rtt_before_s"])


def _group(policy: str, aqm: bool) -> str:
    """Fig. 12's group of a run ("" for a policy Fig. 12 leaves out)."""
    return next((g for g, p, a in DELIVERY_GROUPS if (p, a) == (policy, aqm)), "")


def _count_rows(results: Results, sweep: str, n: int, aqm: bool) -> pd.DataFrame:
    frame = results.frames[sweep]
    handovers = results.read(frame, "handovers")
    traced = results.read(frame, "tcp") if not aqm else [None] * len(frame)
    rows = []
    for (point, run_number, policy, drops), table, tcp in zip(
        frame[["point", "run", POLICY, "queue_drops"]].itertuples(index=False),
        handovers,
        traced,
        strict=True,
    ):
        row = _ref_handover(table, sweep, int(point), int(run_number))
        row.update(point=int(point), run=int(run_number))
        if tcp is not None:
            row.update(_fig4_of(tcp, row))
        row.update(queue_drops=drops, ues=n, policy=policy, aqm=aqm, group=_group(policy, aqm))
        rows.append(row)
    return pd.DataFrame(rows)


def _handovers(results: Results) -> pd.DataFrame:
    """The reference flow's handover row of every run of Figs. 4, 8, 11 and 12 (the analytics'
    columns, the handovers series), per UE count the Drop Tail runs then the AQM runs, with
    ``ues``, ``policy``, ``aqm``, ``group`` (Fig. 12's), ``queue_drops`` (the flow's packets
    dropped by full queues in the run), Fig. 4's columns (:func:`fig4_figures`, the Drop Tail
    runs) and the columns the tests read: ``timeout``, ``halving``, ``none`` (1 for the run's
    class, else 0), ``trials`` (1), ``delivered_kb``, ``forwarded`` (packets over X2-U)."""
    parts = [
        _count_rows(results, sweep, n, aqm)
        for n in UE_COUNTS
        for sweep, aqm in ((f"{n} UEs", False), (f"{n} UEs, AQM", True))
    ]
    ho = pd.concat(parts, ignore_index=True)
    for outcome in OUTCOMES:
        ho[outcome] = (ho["outcome"] == outcome).astype(float)
    ho["trials"] = 1.0
    ho["delivered_kb"] = ho["delivered_bytes"] / 1e3
    ho["forwarded"] = ho["forwarded"].astype(float)
    return ho


def drop_rate(sent: float, dropped: float) -> float:
    """Percentage of the packets offered to a queue that it dropped: 100 · d / (sent + d).

    ``sent`` counts the packets that started transmission; the few still queued at the end of
    the run are in neither."""
    offered = sent + dropped
    return 100.0 * dropped / offered if offered > 0 else math.nan


def _table_iv(results: Results) -> pd.DataFrame:
    """One row per Table IV run: ``variant``, ``run``, per link ``<link>_drop_pct`` (the whole
    10 s), ``<link>_steady_pct`` (after the first second) and ``<link>_marks``,
    ``decap_drops``, ``goodput_mbps`` (all flows), ``ref_outcome``."""

    def frame(startup: bool) -> pd.DataFrame:
        return pd.concat(
            [
                results.frames[table_iv_sweep(v, startup)].assign(variant=v.key)
                for v in AQM_VARIANTS
            ],
            ignore_index=True,
        )

    long = frame(False)
    outcomes = [
        _ref_handover(t, TABLE_IV_RUNS, int(p), int(r))["outcome"]
        for t, p, r in zip(results.read(long, "handovers"), long["point"], long["run"], strict=True)
    ]
    whole = long.set_index(["variant", "run"])
    start = frame(True).set_index(["variant", "run"]).reindex(whole.index)
    out = pd.DataFrame(index=whole.index)
    for link in LINKS:
        base = f"links.{link}.a_to_b"

        def dropped(f: pd.DataFrame, base: str = base) -> pd.Series:
            return f[f"{base}.drops.queue_full"] + f[f"{base}.drops.aqm"]

        out[f"{link}_drop_pct"] = [
            drop_rate(s, d)
            for s, d in zip(whole[f"{base}.packets_sent"], dropped(whole), strict=True)
        ]
        # The runs are deterministic prefixes of each other: the first second of the 10 s run
        # is the 1 s run, so differences are the rest of the run.
        out[f"{link}_steady_pct"] = [
            drop_rate(s, d)
            for s, d in zip(
                whole[f"{base}.packets_sent"] - start[f"{base}.packets_sent"],
                dropped(whole) - dropped(start),
                strict=True,
            )
        ]
        out[f"{link}_marks"] = whole[f"{base}.ecn_marks"]
    out["decap_drops"] = whole[[c for c in whole if c.endswith(".drops_ecn_decap")]].sum(axis=1)
    out["goodput_mbps"] = whole[[c for c in whole if c.endswith(".goodput_bps")]].sum(axis=1) / 1e6
    out["ref_outcome"] = outcomes
    return out.reset_index()


def _drop_rates(results: Results) -> pd.DataFrame:
    """Table IV per link: one row per (variant, link, run) with ``drop_pct`` and
    ``steady_pct``, so that a test compares the two links or two variants as two sets."""
    t4 = results.derived(TABLE_IV)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "variant": t4["variant"],
                    "link": link,
                    "run": t4["run"],
                    "drop_pct": t4[f"{link}_drop_pct"].astype(float),
                    "steady_pct": t4[f"{link}_steady_pct"].astype(float),
                }
            )
            for link in LINKS
        ],
        ignore_index=True,
    )


def _rtt(results: Results) -> pd.DataFrame:
    """Fig. 10's RTTs of the Drop Tail runs: one row per (run, ``when``), ``when`` the smoothed
    RTT before the command (``before``) or the peak sample in the handover's window
    (``peak``), ``rtt_ms``; so that a test compares the two as two sets."""
    ho = results.derived(HANDOVERS)
    plain = ho[~ho["aqm"]]
    keep = ["ues", "policy", "run"]
    return pd.concat(
        [
            plain[keep].assign(when=when, rtt_ms=plain[column] * 1e3)
            for when, column in (("peak", "rtt_peak_s"), ("before", "rtt_before_s"))
        ],
        ignore_index=True,
    )


#: The derived frames: the reference handovers, Fig. 4's runs, Table IV wide and per link,
#: the RTTs.
HANDOVERS, FIG4, TABLE_IV, DROP_RATES, RTT = (
    "reference handovers",
    "fig4",
    "table iv",
    "drop rates",
    "rtt",
)
DERIVED = (
    Derived(HANDOVERS, _handovers),
    Derived(FIG4, lambda r: fig4_table(r.derived(HANDOVERS))),
    Derived(TABLE_IV, _table_iv),
    Derived(DROP_RATES, _drop_rates),
    Derived(RTT, _rtt),
)


def run(options: Options) -> Document:
    """Runs the study on :mod:`celltcp.study` and returns the report (nothing is written here
    but the store)."""
    from celltcp.reproduce.seed000_report import STUDY
    from celltcp.study import document
    from celltcp.study import run as run_study

    return document(STUDY, run_study(STUDY, options), options)
