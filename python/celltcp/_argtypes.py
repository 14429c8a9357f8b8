"""Argument types shared by the ``celltcp`` commands (argparse ``type=`` callables): each turns
one command-line word into a value or raises ``argparse.ArgumentTypeError`` with a message that
argparse puts after the option's name."""

from __future__ import annotations

import argparse

__all__ = ["non_negative_int", "positive_int"]


def non_negative_int(text: str) -> int:
    """A decimal integer >= 0 (a seed, a replication number)."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def positive_int(text: str) -> int:
    """A decimal integer >= 1 (a number of workers, a process id, an MTU)."""
    value = non_negative_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value
