"""Input checks shared by the analytic models.

Every public model function checks its arguments with these helpers before any arithmetic, so a
bad value fails with a :class:`ValueError` whose message names the parameter, the value received
and the range expected, instead of surfacing later as a ``ZeroDivisionError``, a ``math domain
error`` or a silent NaN.
"""

from __future__ import annotations

import math
from numbers import Real

__all__ = [
    "at_least",
    "finite",
    "non_negative",
    "positive",
    "probability",
    "whole_at_least",
]


def finite(name: str, value: object) -> float:
    """``value`` as a float; it must be a real, finite number (``bool`` is refused)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name}: {value!r} is not a number; expected a finite real number")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name}: {value!r} is not finite; expected a finite real number")
    return result


def positive(name: str, value: object) -> float:
    """``value`` as a float; it must be finite and > 0."""
    result = finite(name, value)
    if result <= 0.0:
        raise ValueError(f"{name}: {value!r} is out of range; expected a number > 0")
    return result


def non_negative(name: str, value: object) -> float:
    """``value`` as a float; it must be finite and >= 0."""
    result = finite(name, value)
    if result < 0.0:
        raise ValueError(f"{name}: {value!r} is out of range; expected a number >= 0")
    return result


def at_least(name: str, value: object, lower: float) -> float:
    """``value`` as a float; it must be finite and >= ``lower``."""
    result = finite(name, value)
    if result < lower:
        raise ValueError(f"{name}: {value!r} is out of range; expected a number >= {lower:g}")
    return result


def whole_at_least(name: str, value: object, lower: int) -> int:
    """``value`` as an int; it must be an integer (not a bool) and >= ``lower``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name}: {value!r} is not an integer; expected an integer >= {lower}")
    if value < lower:
        raise ValueError(f"{name}: {value!r} is out of range; expected an integer >= {lower}")
    return value


def probability(
    name: str,
    value: object,
    *,
    allow_zero: bool = True,
    allow_one: bool = True,
) -> float:
    """``value`` as a float in [0, 1]; either end can be excluded."""
    result = finite(name, value)
    low_ok = result > 0.0 or (allow_zero and result == 0.0)
    high_ok = result < 1.0 or (allow_one and result == 1.0)
    if not (low_ok and high_ok):
        lo = "[0" if allow_zero else "(0"
        hi = "1]" if allow_one else "1)"
        raise ValueError(f"{name}: {value!r} is out of range; expected a probability in {lo}, {hi}")
    return result
