"""The series of a run as Arrow tables and Parquet files, made from the core's columns directly.

``celltcp run``, ``RunResult.write`` and a sweep's kept series all write series this way, and
:attr:`celltcp.RunResult.series` reads them from the same tables. Going from the core's
little-endian buffers to Arrow arrays without a DataFrame in between keeps the files free of
pandas' schema metadata, which records the pandas version: the same run gives byte-identical
files whatever pandas is installed. (pyarrow itself imports pandas when it is installed, so this
saves no import time.)

Column types: ``f64`` → double, ``u64`` → uint64, ``u32`` → uint32, ``bool`` → boolean, ``cat`` →
dictionary<int32, string>; a ``time_ns`` column is followed by ``time_s`` (double seconds,
``time_ns / 1e9``), as in :attr:`celltcp.RunResult.series`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["parquet_bytes", "series_table", "write_parquet"]

_NS_PER_S = 1e9


def _array(name: str, column: Any) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    dtype, payload = column
    if dtype == "cat":
        codes, names = payload
        indices = pa.Array.from_buffers(pa.uint32(), len(codes) // 4, [None, pa.py_buffer(codes)])
        return pa.DictionaryArray.from_arrays(
            indices.cast(pa.int32()), pa.array(list(names), pa.string())
        )
    types = {"f64": (pa.float64(), 8), "u64": (pa.uint64(), 8), "u32": (pa.uint32(), 4)}
    if dtype in types:
        arrow_type, width = types[dtype]
        return pa.Array.from_buffers(
            arrow_type, len(payload) // width, [None, pa.py_buffer(payload)]
        )
    if dtype == "bool":
        # One byte per value in the core; Arrow packs booleans into bits.
        raw = pa.Array.from_buffers(pa.uint8(), len(payload), [None, pa.py_buffer(payload)])
        return pc.not_equal(raw, 0)
    raise ValueError(f"series column {name!r} has unknown dtype {dtype!r}")


def series_table(columns: Mapping[str, Any]) -> Any:
    """One series (``{column: (dtype, payload)}`` from the core) as a ``pyarrow.Table``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    names: list[str] = []
    arrays: list[Any] = []
    for name, column in columns.items():
        array = _array(name, column)
        names.append(name)
        arrays.append(array)
        if name == "time_ns":
            names.append("time_s")
            arrays.append(pc.divide(array.cast(pa.float64()), _NS_PER_S))
    return pa.Table.from_arrays(arrays, names=names)


def write_parquet(columns: Mapping[str, Any], path: Any) -> None:
    """Writes one series to a Parquet file."""
    import pyarrow.parquet as pq

    pq.write_table(series_table(columns), path)


def parquet_bytes(columns: Mapping[str, Any]) -> bytes:
    """One series as the bytes of a Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(series_table(columns), sink)
    return bytes(sink.getvalue().to_pybytes())
