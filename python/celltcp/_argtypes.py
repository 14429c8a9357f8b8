"""Argument types shared by the ``celltcp`` commands (argparse ``type=`` callables): each turns
one command-line word into a value or raises ``argparse.ArgumentTypeError`` with a message that
argparse puts after the option's name."""

from __future__ import annotations

import argparse

__all__ = ["INT_MAX", "non_negative_int", "positive_int"]


#: The largest integer a scenario holds (TOML's integers are 64-bit signed): ``--seed`` and
#: ``--run`` take what ``simulation.seed`` takes.
INT_MAX = 2**63 - 1


def _shown(text: str) -> str:
    """``text`` quoted for a message, cut to 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def non_negative_int(text: str) -> int:
    """A decimal integer from 0 to 2^63 - 1 (a seed, a replication number)."""
    try:
        value = int(text, 10)
    except ValueError:
        # Also a number of more than 4300 digits, which Python refuses to convert.
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{_shown(text)} must be >= 0")
    if value > INT_MAX:
        raise argparse.ArgumentTypeError(f"{_shown(text)} must be at most 2^63 - 1")
    return value


def positive_int(text: str) -> int:
    """A decimal integer >= 1 (a number of workers, a process id, an MTU)."""
    value = non_negative_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value
