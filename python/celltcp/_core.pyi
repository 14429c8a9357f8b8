"""Type stubs of the private compiled module ``celltcp._core``.

Use the public API in :mod:`celltcp` instead; this module moves scenario documents and options
into the Rust simulator and raw results back out.
"""

from collections.abc import Callable
from typing import Any, Literal, Union

__version__: str
#: True when the extension was compiled without optimisations (benchmarks warn about it).
DEBUG_BUILD: bool
#: Digest (16 hex digits) of the Rust sources this module was compiled from; results stores
#: record it with each run and run again what another build made.
BUILD_ID: str

class ScenarioError(ValueError):
    """Bad user input. ``args == (message, key)``; ``key`` is the dotted path at fault."""

    @property
    def message(self) -> str: ...
    @property
    def key(self) -> str: ...

class SimulationError(RuntimeError):
    """A failure inside the simulator (a broken invariant or a model's panic): a bug."""

class RealTimeError(SimulationError):
    """An emulation fell further behind the wall clock than its ``max_lag``."""

#: ``(dtype, little-endian payload)`` of a numeric column; ``"bool"`` is one byte (0 or 1) per
#: value.
NumericColumn = tuple[Literal["f64", "u64", "u32", "bool"], bytes]
#: ``("cat", (little-endian u32 codes, category names))``.
CategoricalColumn = tuple[Literal["cat"], tuple[bytes, list[str]]]
Column = Union[NumericColumn, CategoricalColumn]

def schema() -> str:
    """The JSON Schema of the scenario format, as JSON text."""

def output_schema() -> str:
    """The JSON Schema of a run's outputs (the summary with its records and figure tables, the
    series' column sets, the label sets), with the series ``emulate`` adds, as JSON text."""

def output_labels() -> dict[str, list[str]]:
    """The label sets of the outputs by key (``handover_cause``, ``handover_result``,
    ``handover_policy``, ``tcp_outcome``, ``drop_cause``, ``handover_drop_place``,
    ``stop_reason``, ``link_direction``, ``trace_var``), each in its category order."""

#: Deepest nesting of tables and arrays a scenario or sweep file may have.
MAX_DEPTH: int

class Document:
    """A parsed scenario (or sweep) file: its TOML tree, edited by dotted key. Values cross as
    the Python values ``tomllib`` gives; errors are ScenarioErrors naming the dotted key."""

    def __init__(self, data: Any = None) -> None: ...
    @staticmethod
    def parse(text: str, name: str) -> Document:
        """Parses TOML text; errors about the text as a whole are keyed ``name``."""
    @staticmethod
    def read(path: str) -> Document:
        """Reads the regular file at ``path`` (OSError when it cannot be read)."""
    def get(self, path: str, *default: Any) -> Any:
        """The value at a dotted key, or ``default`` (when given) if there is none."""
    def set(self, path: str, value: Any) -> None:
        """Stores a value at a dotted key, as ``--set`` does."""
    def to_toml(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    def copy(self) -> Document: ...

def toml_value(value: Any, key: str = "") -> str:
    """``value`` as inline TOML, the text ``--set key=VALUE`` reads back as that value."""

ScenarioInput = Union[Document, str]

def validate(
    scenario: ScenarioInput, overrides: list[tuple[str, str]] = ..., base_dir: str | None = None
) -> tuple[str, list[tuple[str, str]]]:
    """The resolved scenario (defaults filled in) as JSON text, and the warnings as ``(key,
    message)`` pairs; raises ScenarioError. Relative file references resolve against
    ``base_dir`` (default: the current directory)."""

def bound_error(key: str, message: str) -> tuple[str, str]:
    """``(key, message)`` bounded as the core bounds its own scenario errors (echoed values cut
    to 80 characters, control characters escaped)."""

# The analytic TCP models (celltcp_tcp::models); celltcp.models checks their arguments.
def mathis_throughput_bps(mss_bytes: float, rtt_s: float, p: float, c: float) -> float: ...
def pftk_backoff_factor(p: float) -> float: ...
def pftk_timeout_probability(p: float, window_segments: float) -> float: ...
def pftk_expected_window_segments(p: float, b: float) -> float: ...
def pftk_throughput_bps(
    mss_bytes: float,
    rtt_s: float,
    p: float,
    t0_s: float,
    b: float,
    w_max_segments: float | None = None,
) -> float: ...
def pftk_approx_throughput_bps(
    mss_bytes: float,
    rtt_s: float,
    p: float,
    t0_s: float,
    b: float,
    w_max_segments: float | None = None,
) -> float: ...
def slow_start_rounds(target_window: float, initial_window: float, growth: float) -> float: ...

def run(
    scenario: ScenarioInput,
    overrides: list[tuple[str, str]] = ...,
    seed: int | None = None,
    run: int = 0,
    capture_dir: str | None = None,
    capture_links: list[str] = ...,
    base_dir: str | None = None,
    keep_partial: bool = False,
    progress: Callable[[float, float, int], bool | None] | None = None,
    on_interval: Callable[[str], bool | None] | None = None,
    interval: str | None = None,
) -> dict[str, Any]:
    """Runs a scenario with the GIL released; ``on_interval`` receives each interval's
    figures as JSON text every ``interval`` of simulated time.

    Returns ``{"summary": str (JSON), "events": int, "series": {name: {column: Column}}}``.
    """

def emulate(
    scenario: Document,
    overrides: list[tuple[str, str]] | list[str] = ...,
    attachments: list[tuple[str, int]] = ...,
    stop_fd: int = -1,
    options: dict[str, object] | None = None,
) -> dict[str, object]:
    """Runs a scenario in real time with the GIL released; hosts in ``attachments`` exchange
    real IPv4 datagrams with the simulated path through their descriptors.

    ``attachments``: ``(host, fd)``, each fd an open non-blocking TUN device in
    ``IFF_TUN | IFF_NO_PI`` mode (one datagram per read/write). ``stop_fd``: the read end of a
    pipe; when it becomes readable the run ends cleanly (-1: none). ``overrides``: ``(key,
    value)`` pairs or ``"key=value"`` strings. ``options``: ``duration`` (seconds or None: the
    scenario's), ``pcap`` (path or None: capture of the real datagrams where they enter and
    leave the path, linktype raw IPv4, written atomically), ``pcap_points`` (``"both"``
    (default), ``"ingress"``, ``"egress"``), ``max_lag`` (seconds, default 0.1: falling
    further behind real time for over 1 s raises RealTimeError, a SimulationError), ``seed``, ``run``,
    ``base_dir`` (for the scenario's relative file references), ``priority`` (``"auto"``
    (default): SCHED_FIFO priority 10 when permitted; 0: the thread's own scheduling; 1-99:
    SCHED_FIFO at that priority, OSError if not permitted).

    Returns the dict of :func:`run` plus ``"emulation"``: lag (``lag_mean_s``,
    ``lag_max_s``), ``late_packets``, ``timing_error_s`` (``p50``, ``p90``, ``p99``, ``max``),
    datagram counts (``packets_in``, ``packets_out``, ``bytes_in``, ``bytes_out``,
    ``dropped_non_ipv4``, ``dropped_unroutable``, ...), ``hosts`` and ``connections`` (per
    real TCP connection: 5-tuple, per direction bytes delivered, goodput, data and
    retransmitted segments, RTT at the path). The summary holds the same section under
    ``emulation``; RTT samples are the ``emulation_rtt`` series. Bad attachments or options
    raise ScenarioError (key ``attachments``, ``stop_fd``, ``options.NAME``); descriptor and
    capture failures raise OSError.
    """

def quantity(text: str) -> tuple[str, str, float] | None:
    """``(kind, SI base unit, value)`` of a value written with a unit — ``"20Mbps"`` →
    ``("rate", "bit/s", 2e7)``; kinds: rate (bit/s), time (s), size (B), packets, speed (m/s),
    length (m) — or None when ``text`` is not a quantity of any kind."""

def lte_prbs(bandwidth_mhz: float) -> int | None:
    """N_RB of an LTE channel bandwidth in MHz (TS 36.101 Table 5.6-1: 1.4 → 6 … 20 → 100), or
    None for a bandwidth the table does not have."""

def quantity_of(kind: str, text: str) -> float:
    """A quantity of ``kind`` (rate, time, size, packets, speed, length) in its SI base unit —
    ``quantity_of("rate", "20Mbps") == 2e7`` — parsed as a scenario key of that kind is; raises
    ValueError with that key's message when ``text`` is not one."""

def bench_event_queue(pending: int, ops: int, seed: int = 1) -> float:
    """Hold-model operations per wall-clock second with ``pending`` queued events."""
