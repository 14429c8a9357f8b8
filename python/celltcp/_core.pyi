"""Type stubs of the private compiled module ``celltcp._core``.

Use the public API in :mod:`celltcp` instead; this module moves TOML text and options into the
Rust simulator and raw results back out.
"""

from typing import Literal, Union

__version__: str
#: True when the extension was compiled without optimisations (benchmarks warn about it).
DEBUG_BUILD: bool

class ScenarioError(ValueError):
    """Bad user input. ``args == (message, key)``; ``key`` is the dotted path at fault."""

    @property
    def message(self) -> str: ...
    @property
    def key(self) -> str: ...

class SimulationError(RuntimeError):
    """A failure inside the simulator (a broken invariant or a model's panic): a bug."""

#: ``(dtype, little-endian payload)`` of a numeric column; ``"bool"`` is one byte (0 or 1) per
#: value.
NumericColumn = tuple[Literal["f64", "u64", "u32", "bool"], bytes]
#: ``("cat", (little-endian u32 codes, category names))``.
CategoricalColumn = tuple[Literal["cat"], tuple[bytes, list[str]]]
Column = Union[NumericColumn, CategoricalColumn]

def schema() -> str:
    """The JSON Schema of the scenario format, as JSON text."""

def validate(
    toml_text: str, overrides: list[tuple[str, str]] = ..., base_dir: str | None = None
) -> str:
    """The resolved scenario (defaults filled in) as JSON text; raises ScenarioError. Relative
    file references resolve against ``base_dir`` (default: the current directory)."""

def run(
    toml_text: str,
    overrides: list[tuple[str, str]] = ...,
    seed: int | None = None,
    run: int = 0,
    capture_dir: str | None = None,
    capture_links: list[str] = ...,
    base_dir: str | None = None,
) -> dict[str, object]:
    """Runs a scenario with the GIL released.

    Returns ``{"summary": str (JSON), "events": int, "series": {name: {column: Column}}}``.
    """

def bench_event_queue(pending: int, ops: int, seed: int = 1) -> float:
    """Hold-model operations per wall-clock second with ``pending`` queued events."""
