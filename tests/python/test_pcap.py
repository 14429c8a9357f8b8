"""Packet captures decode cleanly in Wireshark's dissectors (tshark)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

#: Wireshark expert-info severities (epan/proto.h): chat 0x200000, note 0x400000,
#: warning 0x600000, error 0x800000.
PI_WARN = 0x600000
#: Checksum status values (epan/proto.h): 0 bad, 1 good, 2 unverified, 3 not present.
CHECKSUM_GOOD = "1"

FIELDS = [
    "frame.number",
    "frame.protocols",
    "ip.checksum.status",
    "udp.checksum.status",
    "tcp.checksum.status",
    "_ws.expert.severity",
    "_ws.expert.message",
]


def tshark_problems(pcap: Path) -> tuple[int, list[str]]:
    """Decodes ``pcap`` with checksum verification on; returns (packets, problems found)."""
    cmd = ["tshark", "-n", "-r", str(pcap)]
    for proto in ("ip", "udp", "tcp"):
        cmd += ["-o", f"{proto}.check_checksum:TRUE"]
    cmd += ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"]
    for field in FIELDS:
        cmd += ["-e", field]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    problems: list[str] = []
    if proc.returncode != 0:
        problems.append(f"tshark exited {proc.returncode}: {proc.stderr.strip()}")
    packets = 0
    for line in proc.stdout.splitlines():
        cells = (line.split("\t") + [""] * len(FIELDS))[: len(FIELDS)]
        number, protocols, ip_ck, udp_ck, tcp_ck, severities, messages = cells
        packets += 1
        layers = protocols.split(":")
        if "ip" not in layers or not ({"udp", "tcp"} & set(layers)):
            problems.append(f"frame {number}: not decoded as IP/UDP or IP/TCP ({protocols})")
        for name, status in (("ip", ip_ck), ("udp", udp_ck), ("tcp", tcp_ck)):
            if name in layers and status != CHECKSUM_GOOD:
                problems.append(f"frame {number}: {name} checksum status {status!r}, not good")
        worst = max((int(s, 0) for s in severities.split("|") if s), default=0)
        if worst >= PI_WARN:
            problems.append(f"frame {number}: expert info {worst:#x}: {messages}")
    return packets, problems


@pytest.fixture
def tshark() -> str:
    path = shutil.which("tshark")
    if path is None:
        pytest.skip("tshark is not installed (make test installs it with apt-get when run as root)")
    return path


def test_tshark_finds_bad_checksums(tshark: str, tmp_path: Path) -> None:
    """The checker itself: an IPv4/UDP packet with a corrupted header checksum is reported."""
    import struct

    payload = b"celltcp"
    udp = struct.pack("!HHHH", 49152, 5001, 8 + len(payload), 0) + payload
    header = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        20 + len(udp),
        1,
        0,
        64,
        17,
        0xBEEF,
        bytes([10, 0, 0, 1]),
        bytes([10, 0, 0, 2]),
    )
    packet = header + udp
    pcap = tmp_path / "bad.pcap"
    # Classic pcap, LINKTYPE_RAW (101): the packet starts at the IP header.
    pcap.write_bytes(
        struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101)
        + struct.pack("<IIII", 0, 0, len(packet), len(packet))
        + packet
    )
    packets, problems = tshark_problems(pcap)
    assert packets == 1
    assert any("ip checksum" in p for p in problems), problems


def test_capture_decodes_cleanly(tshark: str, cli, chain_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    res = cli("run", chain_file, "--quiet", "--pcap", "access", "--out", out, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    packets, problems = tshark_problems(out / "access.pcap")
    assert packets > 0
    assert not problems, "\n".join(problems[:20])
