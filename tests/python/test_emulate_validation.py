"""Kernel TCP through the emulated 10 Mb/s, 50 ms path against celltcp's own TCP on the same
scenario (python/celltcp/examples/emulation/path-10m-50ms.toml, docs/validation.md): a CUBIC download reaches
the expected goodput and the simulated one is within ±15 % of it; a handover that discards the
queue makes both time out.

One kernel download per case (about 5 s of real time each). Needs root and TUN.
"""

from __future__ import annotations

import pytest

from celltcp import _core
from emu_tools.checks import needs_root_tun
from emu_tools.validate import kernel_run, sim_run

pytestmark = [
    needs_root_tun,
    pytest.mark.skipif(
        not hasattr(_core, "emulate"), reason="this build of celltcp._core has no emulate()"
    ),
]

#: 4 MB: 3.3 s at the path's payload rate.
BYTES = 4_000_000
#: The path's rate times the payload share of a 1500-byte packet (1448 bytes with timestamps).
EXPECTED_BPS = 10e6 * 1448 / 1500
HANDOVER_AT_S = 1.5


def test_a_cubic_download_reaches_the_expected_goodput_and_the_simulation_agrees(tmp_path):
    kernel = kernel_run("cubic", "none", BYTES, None, tmp_path)
    sim = sim_run("cubic", "none", BYTES, None)
    g = kernel["goodput_bps"]
    # Slow start's first round trips cost a few per cent of 3.3 s.
    assert 0.85 * EXPECTED_BPS <= g <= 1.005 * EXPECTED_BPS, kernel
    assert 0.85 <= sim["goodput_bps"] / g <= 1.15, (sim["goodput_bps"], g)
    assert kernel["outcome"] == sim["outcome"] == "none"
    assert kernel["handover"] is None


def test_a_discard_handover_times_out_in_the_kernel_as_in_the_simulation(tmp_path):
    kernel = kernel_run("cubic", "discard", BYTES, None, tmp_path, at_s=HANDOVER_AT_S)
    sim = sim_run("cubic", "discard", BYTES, None, at_s=HANDOVER_AT_S)
    assert kernel["outcome"] == sim["outcome"] == "timeout", (kernel, sim)
    h = kernel["handover"]
    # From the packets: the lost flight, and a retransmission of data that waited an RTO.
    assert h["dropped"] > 10, h
    assert h["rto_retransmissions"] >= 1
    assert h["silence_s"] >= h["rto_estimate_s"] >= 0.2, h
    assert HANDOVER_AT_S < h["first_rto_s"] < HANDOVER_AT_S + 1.0, h
    # From the capture: the sender fell silent, and the rate was down right after.
    assert kernel["sender_gap_s"] > 0.1, kernel
    assert kernel["goodput_after_0_1_bps"] < 0.9 * kernel["goodput_before_bps"], kernel
    assert 0.85 <= sim["goodput_bps"] / kernel["goodput_bps"] <= 1.15, (sim, kernel)
