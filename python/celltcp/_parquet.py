"""The series of a run as Arrow tables and Parquet files, made from the core's columns directly.

``celltcp run``, ``RunResult.write`` and a sweep's kept series all write series this way, and
:attr:`celltcp.RunResult.series` reads them from the same tables. Going from the core's
little-endian buffers to Arrow arrays without a DataFrame in between keeps the files free of
pandas' schema metadata, which records the pandas version: the same run gives byte-identical
files whatever pandas is installed, and writing them imports no pandas (see below).

Column types: ``f64`` → double, ``u64`` → uint64, ``u32`` → uint32, ``bool`` → boolean, ``cat`` →
dictionary<int32, string>; a ``time_ns`` column is followed by ``time_s`` (double seconds,
``time_ns / 1e9``), as in :attr:`celltcp.RunResult.series`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["parquet_bytes", "series_table", "write_parquet"]

_NS_PER_S = 1e9


# No pyarrow call here takes a Python object to convert (``pa.array``, ``pa.scalar``, a compute
# function with a Python number): each makes pyarrow import pandas to see whether the object is
# one of its types, about 0.15 s of a short run's start-up. Arrays are made from buffers, and the
# two derived ones (time in seconds, booleans as bits) with numpy, which pyarrow imports anyway.


def _from_buffer(arrow_type: Any, length: int, data: Any) -> Any:
    import pyarrow as pa

    return pa.Array.from_buffers(arrow_type, length, [None, pa.py_buffer(data)])


def _strings(names: Any) -> Any:
    """A string array of ``names`` from its offsets and bytes."""
    import numpy as np
    import pyarrow as pa

    encoded = [str(n).encode() for n in names]
    offsets = np.zeros(len(encoded) + 1, dtype="<i4")
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )


def _array(name: str, column: Any) -> Any:
    import numpy as np
    import pyarrow as pa

    dtype, payload = column
    if dtype == "cat":
        codes, names = payload
        indices = _from_buffer(pa.int32(), len(codes) // 4, codes)  # codes < 2^31
        return pa.DictionaryArray.from_arrays(indices, _strings(names))
    types = {"f64": (pa.float64(), 8), "u64": (pa.uint64(), 8), "u32": (pa.uint32(), 4)}
    if dtype in types:
        arrow_type, width = types[dtype]
        return _from_buffer(arrow_type, len(payload) // width, payload)
    if dtype == "bool":
        # One byte per value in the core; Arrow packs booleans into bits, least significant first.
        values = np.frombuffer(payload, dtype=np.uint8) != 0
        return _from_buffer(pa.bool_(), len(values), np.packbits(values, bitorder="little"))
    raise ValueError(f"series column {name!r} has unknown dtype {dtype!r}")


def _seconds(column: Any) -> Any:
    """``time_ns / 1e9`` as doubles (the conversion to double rounds first, as Arrow's cast)."""
    import numpy as np
    import pyarrow as pa

    _, payload = column
    seconds = np.frombuffer(payload, dtype="<u8").astype(np.float64) / _NS_PER_S
    return _from_buffer(pa.float64(), len(seconds), seconds)


def series_table(columns: Mapping[str, Any]) -> Any:
    """One series (``{column: (dtype, payload)}`` from the core) as a ``pyarrow.Table``."""
    import pyarrow as pa

    names: list[str] = []
    arrays: list[Any] = []
    for name, column in columns.items():
        names.append(name)
        arrays.append(_array(name, column))
        if name == "time_ns":
            names.append("time_s")
            arrays.append(_seconds(column))
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
