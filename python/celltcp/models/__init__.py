"""Analytic models of TCP over cellular networks, for checking simulations against theory.

Pure Python (standard library only); nothing here needs the compiled core. Units are SI and are
part of every name: rates in bits per second (``_bps``), times in seconds (``_s``), sizes in
bytes (``_bytes``), windows in segments (``_segments``). Every function checks its inputs and
raises :class:`ValueError` naming the parameter and the expected range.

Modules, one per model family:

* :mod:`~celltcp.models.throughput` -- BDP, Mathis, PFTK full and approximate, Jain's index.
* :mod:`~celltcp.models.slow_start` -- window growth per RTT (RFC 5681, RFC 3465).
* :mod:`~celltcp.models.multi_ack` -- multiple ACK copies over a lossy radio link (seed 004).
* :mod:`~celltcp.models.handover` -- recovery time and buffer overrun at a handover (seed 002).
* :mod:`~celltcp.models.x2` -- data delivered around an X2 handover (seed 000, Section IV).

See docs/models.md for the derivations and the agreement with the seeds' figures.
"""

from .handover import (
    RecoveryPhases,
    buffer_overrun_probability,
    handover_recovery_phases,
    handover_recovery_rounds_s,
    handover_recovery_time_s,
    overrun_free_extra_buffer_bytes,
)
from .multi_ack import (
    ack_loss_effective_p,
    all_acks_lost_probability,
    best_ack_copies,
    crossover_p_buff,
    loss_rate_ewma,
    multi_ack_throughput_bps,
    p_err_estimate,
    radio_loss_probability,
    two_ack_p_err_range,
)
from .slow_start import (
    congestion_avoidance_increase_segments,
    congestion_avoidance_time_s,
    segments_per_ack,
    slow_start_bytes_delivered,
    slow_start_growth_factor,
    slow_start_rounds,
    slow_start_time_s,
)
from .throughput import (
    bdp_bytes,
    bdp_segments,
    jain_fairness,
    mathis_throughput_bps,
    pftk_approx_throughput_bps,
    pftk_backoff_factor,
    pftk_expected_window_segments,
    pftk_throughput_bps,
    pftk_timeout_probability,
)
from .x2 import (
    X2_CASES,
    x2_normalized_throughput,
    x2_slow_start_rounds,
    x2_throughput_ideal_segments,
    x2_throughput_timeout_segments,
    x2_throughput_window_halving_segments,
)

__all__ = [
    "X2_CASES",
    "RecoveryPhases",
    "ack_loss_effective_p",
    "all_acks_lost_probability",
    "bdp_bytes",
    "bdp_segments",
    "best_ack_copies",
    "buffer_overrun_probability",
    "congestion_avoidance_increase_segments",
    "congestion_avoidance_time_s",
    "crossover_p_buff",
    "handover_recovery_phases",
    "handover_recovery_rounds_s",
    "handover_recovery_time_s",
    "jain_fairness",
    "loss_rate_ewma",
    "mathis_throughput_bps",
    "multi_ack_throughput_bps",
    "overrun_free_extra_buffer_bytes",
    "p_err_estimate",
    "pftk_approx_throughput_bps",
    "pftk_backoff_factor",
    "pftk_expected_window_segments",
    "pftk_throughput_bps",
    "pftk_timeout_probability",
    "radio_loss_probability",
    "segments_per_ack",
    "slow_start_bytes_delivered",
    "slow_start_growth_factor",
    "slow_start_rounds",
    "slow_start_time_s",
    "two_ack_p_err_range",
    "x2_normalized_throughput",
    "x2_slow_start_rounds",
    "x2_throughput_ideal_segments",
    "x2_throughput_timeout_segments",
    "x2_throughput_window_halving_segments",
]
