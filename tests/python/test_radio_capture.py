"""Radio-side captures of a cell and of a dedicated channel (docs/captures.md): Wireshark's
mac-lte, rlc-lte and pdcp-lte dissectors decode the MAC PDUs, the pcapng file names each UE,
and capturing changes no other output."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import celltcp

ROOT = Path(__file__).resolve().parents[2]
LTE = ROOT / "python" / "celltcp" / "examples" / "lte-single-cell.toml"
#: Two seconds of the two CUBIC downloads at a fixed MCS 22, too high for the far UE (a BLER
#: near 0.5), with at most two HARQ transmissions per transport block, so that there are HARQ
#: retransmissions, failed CRCs, and residual HARQ failures whose RLC AM gaps STATUS PDUs NACK;
#: round robin gives a UE the whole band or a part of it, so that some AMD PDUs sent again no
#: longer fit their grant and are re-segmented.
LTE_SET = {
    "simulation.duration": "2s",
    "cells.cell1.harq_max_transmissions": "2",
    "cells.cell1.fixed_mcs": "22",
    "cells.cell1.scheduler": "round_robin",
}

#: Wireshark expert-info severities (epan/proto.h): warning 0x600000, error 0x800000.
PI_ERROR = 0x800000
CHECKSUM_GOOD = "1"

#: The heuristic dissector of the framing, and LCID 3 mapped to DRB 1 in RLC AM (the static
#: table of packet-mac-lte.c, UAT "drb_logchans").
MAC_LTE_OPTIONS = [
    "--enable-heuristic",
    "mac_lte_udp",
    "-o",
    'uat:drb_logchans:"LCID 3","1","AM"',
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "udp.check_checksum:TRUE",
]

MAC_FIELDS = [
    "frame.number",
    "frame.protocols",
    "ip.checksum.status",
    "udp.checksum.status",
    "mac-lte.rnti",
    "mac-lte.ueid",
    "mac-lte.retx-count",
    "mac-lte.crc-status",
    "mac-lte.dl-phy.harq-id",
    "rlc-lte.am.fixed.sn",
    "rlc-lte.am.rf",
    "rlc-lte.am.segment.lsf",
    "rlc-lte.am.segment.offset",
    "rlc-lte.am.fi",
    "rlc-lte.am.cpt",
    "rlc-lte.am.nack-sn",
    "pdcp-lte.seq-num",
    "_ws.malformed",
    "_ws.expert.severity",
    "_ws.expert.message",
]


@pytest.fixture
def tshark() -> str:
    path = shutil.which("tshark")
    if path is None:
        pytest.skip("tshark is not installed (make test installs it with apt-get when run as root)")
    return path


def tshark_rows(pcap: Path, fields: list[str], options: list[str] = ()) -> list[dict[str, str]]:
    cmd = [
        "tshark",
        "-n",
        "-r",
        str(pcap),
        *options,
        "-T",
        "fields",
        "-E",
        "separator=/t",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=|",
    ]
    for f in fields:
        cmd += ["-e", f]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = []
    for line in proc.stdout.splitlines():
        cells = (line.split("\t") + [""] * len(fields))[: len(fields)]
        rows.append(dict(zip(fields, cells)))
    return rows


def mac_lte_problems(rows: list[dict[str, str]]) -> list[str]:
    """What is wrong in a decoded MAC-LTE capture: frames not decoded as MAC-LTE, bad checksums,
    malformed frames and expert errors, but for the two verdicts explained below."""
    problems = []
    for r in rows:
        n = r["frame.number"]
        layers = r["frame.protocols"].split(":")
        if "mac-lte" not in layers:
            problems.append(f"frame {n}: not decoded as MAC-LTE ({r['frame.protocols']})")
        # The framing's IPv4 and UDP headers, and the IPv4 headers of the datagrams inside.
        for name in ("ip.checksum.status", "udp.checksum.status"):
            if set(r[name].split("|")) != {CHECKSUM_GOOD}:
                problems.append(f"frame {n}: {name} {r[name]}")
        # Two verdicts of Wireshark's own analysis are errors by its rules and expected here:
        # a block the UE did not decode is flagged by packet-mac-lte.c as an error of the
        # Malformed group ("DL Frame has CRC error problem") and its content is not dissected;
        # and packet-rlc-lte.c calls an SN NACKed again in the next STATUS PDU an error, which
        # 36.322 allows (with t-StatusProhibit 0 ms, a poll triggers a STATUS report while the
        # retransmission of a NACKed PDU is still on its way, or failed again on the air).
        crc_failed = r["mac-lte.crc-status"] == "0"

        def expected(m: str, crc_failed: bool = crc_failed) -> bool:
            return (crc_failed and "CRC error problem" in m) or "NACKd for Uplink" in m

        errors = [
            m
            for s, m in zip(r["_ws.expert.severity"].split("|"), r["_ws.expert.message"].split("|"))
            if s and int(s, 0) >= PI_ERROR and not expected(m)
        ]
        if r["_ws.malformed"] and not crc_failed:
            problems.append(f"frame {n}: malformed")
        if errors:
            problems.append(f"frame {n}: expert errors: {errors}")
    return problems


@pytest.fixture(scope="module")
def lte_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[celltcp.RunResult, Path]:
    out = tmp_path_factory.mktemp("cell1")
    result = celltcp.run(LTE, set=LTE_SET, capture=["cell1"], capture_dir=out)
    return result, out


def test_capturing_changes_no_output_and_is_deterministic(
    lte_run: tuple[celltcp.RunResult, Path], tmp_path: Path
) -> None:
    result, out = lte_run
    plain = celltcp.run(LTE, set=LTE_SET)
    assert json.dumps(result.summary, sort_keys=True) == json.dumps(plain.summary, sort_keys=True)
    assert sorted(result.series) == sorted(plain.series)
    for name, frame in result.series.items():
        assert frame.equals(plain.series[name]), name
    celltcp.run(LTE, set=LTE_SET, capture="cell1", capture_dir=tmp_path)
    for f in ("cell1.pcapng", "cell1.mac-lte.pcap"):
        assert (out / f).read_bytes() == (tmp_path / f).read_bytes(), f
    assert sorted(p.name for p in out.iterdir()) == ["cell1.mac-lte.pcap", "cell1.pcapng"]


def test_mac_lte_capture_decodes_harq_rlc_and_pdcp(
    lte_run: tuple[celltcp.RunResult, Path], tshark: str
) -> None:
    _, out = lte_run
    rows = tshark_rows(out / "cell1.mac-lte.pcap", MAC_FIELDS, MAC_LTE_OPTIONS)
    assert len(rows) > 1000
    problems = mac_lte_problems(rows)
    assert problems == [], problems[:20]

    # Two UEs, C-RNTIs 61 and 62 (0x003D on), UEIds 1 and 2 in the cell's UE order.
    assert {(r["mac-lte.rnti"], r["mac-lte.ueid"]) for r in rows} == {("61", "1"), ("62", "2")}
    downlink = [r for r in rows if r["mac-lte.dl-phy.harq-id"]]
    uplink = [r for r in rows if not r["mac-lte.dl-phy.harq-id"]]
    # HARQ: retransmissions (retx count 1, the only one with two transmissions; tshark leaves
    # the field out for a new transmission) and failed CRCs, all on the far UE's processes.
    retx = Counter(r["mac-lte.retx-count"] for r in downlink)
    assert set(retx) == {"", "1"} and retx["1"] > 100, retx
    assert {r["mac-lte.ueid"] for r in downlink if r["mac-lte.retx-count"]} == {"1"}
    assert any(r["mac-lte.crc-status"] == "0" for r in downlink)
    ok = [r for r in downlink if r["mac-lte.crc-status"] == "1"]
    # RLC AM data PDUs with SNs, SDUs segmented across PDUs (FI not 0), and PDCP SNs with the IP
    # datagram inside when an RLC PDU holds a whole PDCP PDU.
    assert all(r["rlc-lte.am.fixed.sn"] for r in ok)
    assert any(fi not in ("", "0x00") for r in ok for fi in r["rlc-lte.am.fi"].split("|"))
    assert any(r["pdcp-lte.seq-num"] for r in ok)
    # AMD PDU segments (RF 1) of re-segmented retransmissions, with their LSF and SO.
    segments = [r for r in ok if "0x01" in r["rlc-lte.am.rf"].split("|")]
    assert segments and all(r["rlc-lte.am.segment.offset"] for r in segments)
    offsets = [int(o) for r in segments for o in r["rlc-lte.am.segment.offset"].split("|")]
    assert any(o > 0 for o in offsets)
    assert any("0x01" in r["rlc-lte.am.segment.lsf"].split("|") for r in segments)
    assert any("pdcp-lte:ip:tcp" in r["frame.protocols"] for r in ok)
    # STATUS PDUs on the uplink (CPT 0), some with NACKs after residual HARQ failures.
    received = [r for r in uplink if r["mac-lte.crc-status"] == "1"]
    assert received and all(r["rlc-lte.am.cpt"] for r in received)
    assert any(r["rlc-lte.am.nack-sn"] for r in received)


def test_ip_capture_names_each_ue_and_counts_what_rlc_delivered(
    lte_run: tuple[celltcp.RunResult, Path], tshark: str
) -> None:
    result, out = lte_run
    rows = tshark_rows(
        out / "cell1.pcapng",
        [
            "frame.interface_name",
            "frame.packet_flags_direction",
            "ip.dst",
            "ip.checksum.status",
            "tcp.checksum.status",
            "_ws.malformed",
        ],
        ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE"],
    )
    assert all(r["ip.checksum.status"] == CHECKSUM_GOOD for r in rows)
    assert all(r["tcp.checksum.status"] == CHECKSUM_GOOD for r in rows)
    assert not any(r["_ws.malformed"] for r in rows)
    # Direction bits of the EPB flags: 1 inbound (downlink to the UE), 2 outbound (uplink).
    counts = Counter(
        (r["frame.interface_name"], str(int(r["frame.packet_flags_direction"], 0))) for r in rows
    )
    assert set(counts) == {
        ("cell1/ue_far", "1"),
        ("cell1/ue_far", "2"),
        ("cell1/ue_near", "1"),
        ("cell1/ue_near", "2"),
    }, counts
    cell = result.summary["cells"]["cell1"]
    for ue in ("ue_far", "ue_near"):
        delivered = cell["ues"][ue]["sdus_delivered"]
        assert counts[(f"cell1/{ue}", "1")] == delivered, (ue, counts, delivered)


def test_a_name_that_is_no_link_cell_or_channel_is_refused(tmp_path: Path) -> None:
    with pytest.raises(celltcp.ScenarioError) as e:
        celltcp.run(LTE, set=LTE_SET, capture="cell9", capture_dir=tmp_path)
    assert e.value.key == "capture.links"
    assert "'cell9' is not a link, a cell or a dedicated channel" in str(e.value)
    assert list(tmp_path.iterdir()) == []


def test_capture_cells_key_is_checked() -> None:
    sc = celltcp.Scenario.load(LTE)
    sc.set("capture.cells", ["cell2"])
    with pytest.raises(celltcp.ScenarioError) as e:
        sc.validate()
    assert e.value.key == "capture.cells"


def test_dch_capture_holds_the_ip_packets_both_ways(tshark: str, tmp_path: Path) -> None:
    dch = ROOT / "python" / "celltcp" / "examples" / "001" / "bulk-dch384.toml"
    result = celltcp.run(
        dch, set={"simulation.duration": "5s"}, capture="radio", capture_dir=tmp_path
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["radio.pcapng"]
    rows = tshark_rows(
        tmp_path / "radio.pcapng",
        [
            "frame.interface_name",
            "frame.packet_flags_direction",
            "tcp.srcport",
            "ip.checksum.status",
            "tcp.checksum.status",
            "_ws.malformed",
        ],
        ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE"],
    )
    assert rows and all(r["ip.checksum.status"] == CHECKSUM_GOOD for r in rows)
    assert all(r["tcp.checksum.status"] == CHECKSUM_GOOD for r in rows)
    assert not any(r["_ws.malformed"] for r in rows)
    counts = Counter(
        (r["frame.interface_name"], str(int(r["frame.packet_flags_direction"], 0))) for r in rows
    )
    # Data segments down to the UE (inbound), ACKs up from it (outbound).
    assert set(counts) == {("radio/ue", "1"), ("radio/ue", "2")}, counts
    # Every packet the flow delivered crossed the channel (the UE is the data's destination;
    # ACKs the channel delivered may still be on their way to the server at the end).
    flow = result.summary["flows"]["bulk"]
    assert counts[("radio/ue", "1")] + counts[("radio/ue", "2")] >= flow["packets_delivered"]


def _pcap_records(path: Path) -> tuple[int, list[tuple[int, int]]]:
    """(snaplen, [(captured, original length)]) of a little-endian pcap file."""
    import struct

    data = path.read_bytes()
    snaplen = struct.unpack_from("<I", data, 16)[0]
    records, at = [], 24
    while at < len(data):
        incl, orig = struct.unpack_from("<II", data, at + 8)
        records.append((incl, orig))
        at += 16 + incl
    return snaplen, records


def test_snaplen_on_the_command_line_cuts_every_capture(cli, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = cli(
        "run",
        LTE,
        "--set",
        "simulation.duration=500ms",
        "--pcap",
        "cell1",
        "--pcap",
        "backhaul",
        "--snaplen",
        "96",
        "--out",
        out,
        "--quiet",
    )
    assert res.returncode == 0, res.stderr
    for name in ("backhaul.pcap", "cell1.mac-lte.pcap"):
        snaplen, records = _pcap_records(out / name)
        assert snaplen == 96, name
        assert records and all(i == min(o, 96) for i, o in records), name
        assert any(o > 96 for _, o in records), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scenario"]["capture"]["snaplen"] == "96B"


@pytest.mark.parametrize("value", ["0", "300KiB", "ten"])
def test_a_bad_snaplen_is_one_line_naming_the_key(cli, tmp_path: Path, value: str) -> None:
    out = tmp_path / "run"
    res = cli("run", LTE, "--pcap", "cell1", "--snaplen", value, "--out", out)
    assert res.returncode == 2, res
    assert len(res.stderr_lines) == 1 and "capture.snaplen" in res.stderr_lines[0], res.stderr
    assert not out.exists()


def test_cells_of_a_ran_network_are_captured_across_a_handover(tshark: str, tmp_path: Path) -> None:
    """The drive of examples/handover: one UE hands over from cell1 to cell2 at 18.6 s; each
    cell's files hold the UE's packets while it is connected there, and nothing else changes."""
    drive = ROOT / "python" / "celltcp" / "examples" / "handover" / "drive-60kmh.toml"
    settings = {"simulation.duration": "20s"}
    result = celltcp.run(drive, set=settings, capture=["cell1", "cell2"], capture_dir=tmp_path)
    plain = celltcp.run(drive, set=settings)
    assert json.dumps(result.summary, sort_keys=True) == json.dumps(plain.summary, sort_keys=True)
    [handover] = result.summary["handovers"]["list"]
    switch = handover["command_s"]
    for cell in ("cell1", "cell2"):
        rows = tshark_rows(
            tmp_path / f"{cell}.mac-lte.pcap", ["frame.time_epoch", *MAC_FIELDS], MAC_LTE_OPTIONS
        )
        assert rows and mac_lte_problems(rows) == [], (cell, mac_lte_problems(rows)[:5])
        # Record times are simulated time since the start (the epoch of the capture).
        times = [float(r["frame.time_epoch"]) for r in rows if r["mac-lte.dl-phy.harq-id"]]
        if cell == "cell1":
            assert max(times) <= switch
        else:
            assert min(times) >= switch
    ip = tshark_rows(
        tmp_path / "cell2.pcapng",
        ["frame.interface_name", "ip.checksum.status"],
        ["-o", "ip.check_checksum:TRUE"],
    )
    assert ip and all(r["ip.checksum.status"] == CHECKSUM_GOOD for r in ip)
