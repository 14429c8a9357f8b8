"""A bulk TCP transfer between two emulated hosts, measured at the receiver.

    python bulk_transfer.py server --bind ADDR [--port P] --bytes N [--cc NAME]
    python bulk_transfer.py client --connect ADDR [--port P] --bytes N [--timeout S]
                                   [--rcvbuf BYTES]

The server accepts one connection, sends N bytes and closes; ``--cc`` sets the connection's
congestion control (``TCP_CONGESTION`` on the listener, tcp(7): ``reno``, ``cubic``, ``bbr``, … — whatever
``/proc/sys/net/ipv4/tcp_available_congestion_control`` lists; choosing one that
``tcp_allowed_congestion_control`` does not list needs CAP_NET_ADMIN) and prints the one the
kernel used. The client's ``--rcvbuf`` fixes its receive buffer (``SO_RCVBUF``, socket(7):
the kernel doubles the value and turns its autotuning off, tcp(7)), which bounds the window it
advertises and so makes the transfer window-limited; the window itself is the kernel's choice
(a share of the buffer), to be read from a capture. The client connects (retrying while
the path comes up: a SYN sent before the engine starts waiting in the TUN queue is fine, a refused
connection is retried), reads until the server closes, and prints one JSON line:
``{"bytes": N, "seconds": T, "goodput_bps": 8N/T}`` where T runs from the first byte received to
the last, the figure the path's rate limits. It exits 0 only when exactly N bytes arrived.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time

CHUNK = 64 * 1024


def serve(bind: str, port: int, total: int, timeout: float, cc: str | None = None) -> int:
    with socket.create_server((bind, port)) as listener:
        if cc is not None:
            # Set on the listener, so that the accepted connection starts with it: a connection
            # created with the namespace's default (``net.ipv4.tcp_congestion_control``) and
            # switched after the handshake keeps what that default's init left — BBR's marks
            # the socket ``SK_PACING_NEEDED`` and nothing clears it, so a CUBIC or Reno chosen
            # afterwards would be paced (and CUBIC's HyStart ACK train run unhalved).
            listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        listener.settimeout(timeout)
        conn, _ = listener.accept()
        with conn:
            used = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
            cc_used = used.split(b"\0", 1)[0].decode()
            conn.settimeout(timeout)
            block = bytes(CHUNK)
            sent = 0
            while sent < total:
                sent += conn.send(block[: min(CHUNK, total - sent)])
            conn.shutdown(socket.SHUT_WR)
            # Wait for the client's close, so every byte is acknowledged before we exit.
            while conn.recv(CHUNK):
                pass
    print(json.dumps({"sent": sent, "cc": cc_used}), flush=True)
    return 0


def _connect(address: str, port: int, timeout: float, rcvbuf: int | None) -> socket.socket:
    conn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if rcvbuf is not None:
            # Before the SYN, which announces the window scale the buffer calls for.
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        conn.settimeout(timeout)
        conn.connect((address, port))
    except BaseException:
        conn.close()
        raise
    return conn


def fetch(address: str, port: int, total: int, timeout: float, rcvbuf: int | None = None) -> int:
    deadline = time.monotonic() + timeout
    while True:
        try:
            left = max(0.1, deadline - time.monotonic())
            conn = _connect(address, port, left, rcvbuf)
            break
        except (TimeoutError, ConnectionRefusedError, OSError):
            if time.monotonic() > deadline:
                print(json.dumps({"error": "cannot connect"}), flush=True)
                return 3
            time.sleep(0.2)
    received = 0
    first = last = None
    with conn:
        conn.settimeout(max(0.1, deadline - time.monotonic()))
        while True:
            data = conn.recv(CHUNK)
            if not data:
                break
            now = time.monotonic()
            first = now if first is None else first
            last = now
            received += len(data)
    seconds = (last - first) if first is not None and last is not None else 0.0
    goodput = 8 * received / seconds if seconds > 0 else None
    print(json.dumps({"bytes": received, "seconds": seconds, "goodput_bps": goodput}), flush=True)
    return 0 if received == total else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("role", choices=("server", "client"))
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--connect")
    p.add_argument("--port", type=int, default=5201)
    p.add_argument("--bytes", type=int, required=True)
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("--cc", help="server: congestion control of the connection (TCP_CONGESTION)")
    p.add_argument(
        "--rcvbuf", type=int, help="client: receive buffer (SO_RCVBUF), bytes; bounds the window"
    )
    a = p.parse_args(argv)
    if a.role == "server":
        return serve(a.bind, a.port, a.bytes, a.timeout, a.cc)
    if not a.connect:
        p.error("client needs --connect ADDR")
    return fetch(a.connect, a.port, a.bytes, a.timeout, a.rcvbuf)


if __name__ == "__main__":
    sys.exit(main())
