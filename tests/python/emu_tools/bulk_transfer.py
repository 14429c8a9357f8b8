"""A bulk TCP transfer between two emulated hosts, measured at the receiver.

    python bulk_transfer.py server --bind ADDR [--port P] --bytes N
    python bulk_transfer.py client --connect ADDR [--port P] --bytes N [--timeout S]

The server accepts one connection, sends N bytes and closes. The client connects (retrying while
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


def serve(bind: str, port: int, total: int, timeout: float) -> int:
    with socket.create_server((bind, port)) as listener:
        listener.settimeout(timeout)
        conn, _ = listener.accept()
        with conn:
            conn.settimeout(timeout)
            block = bytes(CHUNK)
            sent = 0
            while sent < total:
                sent += conn.send(block[: min(CHUNK, total - sent)])
            conn.shutdown(socket.SHUT_WR)
            # Wait for the client's close, so every byte is acknowledged before we exit.
            while conn.recv(CHUNK):
                pass
    print(json.dumps({"sent": sent}), flush=True)
    return 0


def fetch(address: str, port: int, total: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        try:
            left = max(0.1, deadline - time.monotonic())
            conn = socket.create_connection((address, port), timeout=left)
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
    a = p.parse_args(argv)
    if a.role == "server":
        return serve(a.bind, a.port, a.bytes, a.timeout)
    if not a.connect:
        p.error("client needs --connect ADDR")
    return fetch(a.connect, a.port, a.bytes, a.timeout)


if __name__ == "__main__":
    sys.exit(main())
