"""The results store of sweeps: a DuckDB database and Parquet files in one directory.

Layout of a store directory ``DIR``:

* ``DIR/results.duckdb``, with the tables

  - ``meta(name, value)``: ``store_format`` and the celltcp version that created the store;
  - ``scenarios(key, celltcp_version, scenario)``: each resolved scenario (JSON) by its key;
  - ``runs(key, run, ...)``: one row per finished run, keyed by (scenario key, run number):
    ``point`` (its index in the sweep that ran it), ``seed``, ``parameters`` (JSON),
    ``status`` (``ok`` or ``error``), ``error`` (text), ``summary`` (the run's summary.json),
    ``metrics`` (JSON object, concrete path → value, for the patterns in ``metric_spec``),
    ``series`` (JSON list of the kept series), ``events``, ``wall_s`` and ``build`` (the
    digest of the sources of the celltcp that made the run, ``_core.BUILD_ID``; NULL for runs
    stored before it was recorded). A sweep runs again, and replaces, every stored run whose
    build is not its own: the package version stays the same while the models change, and a
    result must come from the code that reports it;

  - ``parameter_values(key, run, name, unit, value)``: each parameter of a run that is a
    quantity written with a unit (``"20Mbps"``) also as a number in its SI base unit
    (``2e7``, ``bit/s``), so that SQL sorts and compares them as numbers (``ORDER BY value``),
    converted by the scenario format's own unit parser. Added after format 1's first release:
    a store without it gets it, filled in from ``runs.parameters``, when opened for writing;

  - the view ``run_parameters(key, run, "<name> [<unit>]", ...)``: the same values one column
    per parameter, named with its unit (``"links.access.rate [bit/s]"``), so that SQL reads a
    run's parameters as numbers without a join of its own (``ORDER BY "links.access.rate
    [bit/s]"``). DuckDB's views cannot pivot on values found in the data, so the view names its
    columns, and it is made again whenever a run brings a parameter it lacks;

* ``DIR/series/<key>/<run>/<name>.parquet``: the kept time series of each run.

The database file is written in DuckDB's storage format of v1.0.0 (storage version 64,
:data:`STORAGE_COMPATIBILITY`), which every DuckDB release since 0.10 reads — the CLI and
the libraries of other languages included — rather than the newest format of the DuckDB
library installed here, which older releases refuse ("version number 999, but we can only
read version 64").

Crash safety (SIGKILL at any instant loses no finished run and leaves no half-written one): a
run's Parquet files are written into a hidden sibling directory, synced, and renamed into place;
only then is its row inserted, in one transaction together with its scenario. A directory
without a row is an orphan of an interrupted write; it is replaced when that run is written
again. A run is finished exactly when its row exists, and the primary key (key, run) makes a
second row impossible. Only the process that holds the database open writes to the store
(DuckDB's file lock admits one writer), so stale temporary directories can be removed on open.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from celltcp import _core
from celltcp.errors import scenario_error

__all__ = [
    "DB_FILE",
    "SERIES_DIR",
    "STORAGE_COMPATIBILITY",
    "STORE_FORMAT",
    "Store",
    "StoredRun",
    "StoredState",
    "parameter_values",
]

#: Version of the layout above; a store of another format is refused, never converted.
STORE_FORMAT = 1
#: DuckDB storage format new database files are written in (DuckDB's
#: ``storage_compatibility_version`` setting): v1.0.0's, storage version 64.
STORAGE_COMPATIBILITY = "v1.0.0"
DB_FILE = "results.duckdb"
SERIES_DIR = "series"

_PARAMETER_VALUES_SCHEMA = (
    "CREATE TABLE parameter_values ("
    " key VARCHAR NOT NULL,"
    " run BIGINT NOT NULL,"
    " name VARCHAR NOT NULL,"
    " unit VARCHAR NOT NULL,"
    " value DOUBLE NOT NULL,"
    " PRIMARY KEY (key, run, name))"
)
_SCHEMA = (
    "CREATE TABLE meta (name VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
    "CREATE TABLE scenarios (key VARCHAR PRIMARY KEY, celltcp_version VARCHAR NOT NULL, "
    "scenario JSON NOT NULL)",
    "CREATE TABLE runs ("
    " key VARCHAR NOT NULL,"
    " run BIGINT NOT NULL,"
    " point BIGINT NOT NULL,"
    " seed BIGINT NOT NULL,"
    " parameters JSON NOT NULL,"
    " status VARCHAR NOT NULL CHECK (status IN ('ok', 'error')),"
    " error VARCHAR,"
    " summary JSON,"
    " metrics JSON NOT NULL,"
    " metric_spec JSON NOT NULL,"
    " series JSON NOT NULL,"
    " events BIGINT NOT NULL,"
    " wall_s DOUBLE NOT NULL,"
    " build VARCHAR,"
    " PRIMARY KEY (key, run))",
    _PARAMETER_VALUES_SCHEMA,
)
_TABLES = {"meta", "scenarios", "runs"}
#: The view of the parameters as columns named with their unit.
PARAMETERS_VIEW = "run_parameters"


def _quoted(text: str, quote: str) -> str:
    """``text`` as an SQL identifier (``"``) or string literal (``'``)."""
    return quote + text.replace(quote, quote * 2) + quote


def parameters_view_sql(columns: Sequence[tuple[str, str]]) -> str:
    """The statement that (re)makes :data:`PARAMETERS_VIEW` for these (name, unit) columns."""
    if not columns:
        return (
            f"CREATE OR REPLACE VIEW {PARAMETERS_VIEW} AS "
            "SELECT DISTINCT key, run FROM parameter_values"
        )
    labels = [f"{name} [{unit}]" for name, unit in columns]
    values = ", ".join(_quoted(label, "'") for label in labels)
    return (
        f"CREATE OR REPLACE VIEW {PARAMETERS_VIEW} AS PIVOT (SELECT key, run, "
        "name || ' [' || unit || ']' AS parameter, value FROM parameter_values) "
        f"ON parameter IN ({values}) USING first(value) GROUP BY key, run"
    )


@dataclass(frozen=True)
class StoredState:
    """Whether a stored run succeeded, and which build made it (None: not recorded)."""

    status: str
    build: str | None

    @property
    def current(self) -> bool:
        """Made by this build of celltcp."""
        return self.build == _core.BUILD_ID


@dataclass(frozen=True)
class StoredRun:
    """One row of ``runs`` as read back (the summary is fetched only on demand)."""

    key: str
    run: int
    point: int
    parameters: dict[str, Any]
    status: str
    error: str | None
    metrics: dict[str, Any]
    metric_spec: list[str]


def parameter_values(parameters: Mapping[str, Any]) -> list[tuple[str, str, float]]:
    """``(name, SI base unit, value)`` of each parameter written as a quantity with a unit
    (``{"links.access.rate": "20Mbps"}`` → ``[("links.access.rate", "bit/s", 2e7)]``); plain
    numbers, booleans, names and tables have none."""
    out = []
    for name, value in parameters.items():
        if isinstance(value, str):
            q = _core.quantity(value)
            if q is not None:
                out.append((name, q[1], q[2]))
    return out


def _store_error(where: str, message: str) -> Exception:
    return scenario_error("store", f"{where}: {message}")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Store:
    """An open store. Use :meth:`open` (a directory) or :meth:`in_memory` (no files)."""

    def __init__(self, con: Any, directory: Path | None):
        self._con = con
        #: The store directory, or None for an in-memory store (which cannot keep series).
        self.directory = directory
        #: The (name, unit) columns the parameters view has.
        self._columns: set[tuple[str, str]] = set()

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def exists(cls, directory: str | os.PathLike[str]) -> bool:
        return (Path(directory) / DB_FILE).is_file()

    @classmethod
    def open(cls, directory: str | os.PathLike[str], *, read_only: bool = False) -> Store:
        """Opens (creating it unless ``read_only``) the store in ``directory``.

        Raises ScenarioError (key ``store``) when the directory is unusable, the database is in
        use by another process, is not a celltcp store, or was written in another store format.
        """
        import duckdb

        root = Path(directory)
        db = root / DB_FILE
        if root.exists() and not root.is_dir():
            raise _store_error(str(root), "exists and is not a directory")
        if read_only and not db.is_file():
            raise _store_error(str(root), f"no sweep store here (no {DB_FILE})")
        if not read_only:
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise _store_error(str(root), f"cannot create: {e.strerror or e}") from None
        try:
            con = duckdb.connect(
                str(db),
                read_only=read_only,
                config={"storage_compatibility_version": STORAGE_COMPATIBILITY},
            )
        except duckdb.Error as e:
            raise _store_error(str(db), _duckdb_message(e)) from None
        store = cls(con, root)
        try:
            store._check_or_create(read_only)
        except BaseException:
            con.close()
            raise
        if not read_only:
            store._add_parameter_values()
            store._add_build_column()
            store._make_parameters_view()
            store._remove_partials()
        return store

    @classmethod
    def in_memory(cls) -> Store:
        """A store that lives in this process only (nothing is written to disk)."""
        import duckdb

        store = cls(duckdb.connect(":memory:"), None)
        store._check_or_create(False)
        return store

    def _check_or_create(self, read_only: bool) -> None:
        shown = str(self.directory) if self.directory else ":memory:"
        tables = {
            r[0]
            for r in self._con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
            ).fetchall()
        }
        if not tables:
            if read_only:
                raise _store_error(shown, "an empty database, not a celltcp sweep store")
            self._con.execute("BEGIN")
            for statement in _SCHEMA:
                self._con.execute(statement)
            self._con.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [["store_format", str(STORE_FORMAT)], ["created_by", _core.__version__]],
            )
            self._con.execute("COMMIT")
            return
        if not tables >= _TABLES:
            raise _store_error(
                shown,
                "a DuckDB database, but not a celltcp sweep store "
                f"(tables: {', '.join(sorted(tables))})",
            )
        meta = dict(self._con.execute("SELECT name, value FROM meta").fetchall())
        found = meta.get("store_format", "?")
        if found != str(STORE_FORMAT):
            raise _store_error(
                shown,
                f"written in store format {found} by celltcp {meta.get('created_by', '?')}; "
                f"celltcp {_core.__version__} reads format {STORE_FORMAT} only "
                "(use another store directory)",
            )

    def _has_parameter_values(self) -> bool:
        return bool(
            self._con.execute(
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_schema = 'main' AND table_name = 'parameter_values'"
            ).fetchone()[0]
        )

    def _add_parameter_values(self) -> None:
        """Adds ``parameter_values`` to a store written before it existed, filled in from the
        stored parameters, in one transaction."""
        if self._has_parameter_values():
            return
        rows = self._con.execute("SELECT key, run, parameters FROM runs").fetchall()
        con = self._con
        con.execute("BEGIN")
        try:
            con.execute(_PARAMETER_VALUES_SCHEMA)
            values = [
                [k, int(r), *v] for k, r, par in rows for v in parameter_values(json.loads(par))
            ]
            if values:
                con.executemany("INSERT INTO parameter_values VALUES (?, ?, ?, ?, ?)", values)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _view_columns(self) -> list[tuple[str, str]]:
        rows = self._con.execute(
            "SELECT DISTINCT name, unit FROM parameter_values ORDER BY name, unit"
        ).fetchall()
        return [(str(n), str(u)) for n, u in rows]

    def _make_parameters_view(self) -> None:
        """(Re)makes the parameters view for the parameters now stored."""
        self._columns = set(self._view_columns())
        self._con.execute(parameters_view_sql(sorted(self._columns)))

    def _add_build_column(self) -> None:
        """Adds ``runs.build`` to a store written before it existed; its runs read as made by
        an unknown build (NULL), so a sweep runs them again."""
        columns = {
            r[0]
            for r in self._con.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = 'main' AND table_name = 'runs'"
            ).fetchall()
        }
        if "build" not in columns:
            self._con.execute("ALTER TABLE runs ADD COLUMN build VARCHAR")

    def _remove_partials(self) -> None:
        """Removes temporary series directories left by a process killed mid-write."""
        series = self.directory / SERIES_DIR if self.directory else None
        if series is None or not series.is_dir():
            return
        for partial in series.glob("*/.*.partial-*"):
            shutil.rmtree(partial, ignore_errors=True)

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ------------------------------------------------------------------------------

    def finished(self, keys: Iterable[str]) -> dict[tuple[str, int], StoredState]:
        """(key, run) → status and build of the stored runs of these scenario keys."""
        rows = self._con.execute(
            "SELECT key, run, status, build FROM runs WHERE list_contains(?, key)",
            [sorted(set(keys))],
        ).fetchall()
        return {(k, int(r)): StoredState(s, b) for k, r, s, b in rows}

    def runs(self, keys: Iterable[str] | None = None) -> list[StoredRun]:
        """The stored runs of these scenario keys (all runs when ``keys`` is None)."""
        query = "SELECT key, run, point, parameters, status, error, metrics, metric_spec FROM runs"
        params: list[Any] = []
        if keys is not None:
            query += " WHERE list_contains(?, key)"
            params.append(sorted(set(keys)))
        rows = self._con.execute(query + " ORDER BY point, key, run", params).fetchall()
        return [
            StoredRun(k, int(r), int(p), json.loads(par), s, err, json.loads(m), json.loads(ms))
            for k, r, p, par, s, err, m, ms in rows
        ]

    def summaries(self, pairs: Sequence[tuple[str, int]]) -> dict[tuple[str, int], dict[str, Any]]:
        """Parsed summary.json of the given (key, run) pairs that completed."""
        out: dict[tuple[str, int], dict[str, Any]] = {}
        by_key: dict[str, list[int]] = {}
        for k, r in pairs:
            by_key.setdefault(k, []).append(r)
        for k, run_list in by_key.items():
            rows = self._con.execute(
                "SELECT run, summary FROM runs WHERE key = ? AND list_contains(?, run) "
                "AND summary IS NOT NULL",
                [k, run_list],
            ).fetchall()
            for r, text in rows:
                out[(k, int(r))] = json.loads(text)
        return out

    def tables(self) -> dict[str, Any]:
        """The store's tables as DataFrames for export: ``runs`` (key, run, point, seed, events,
        wall_s, summary text), ``scenarios`` (key, celltcp_version, scenario JSON text) and
        ``parameter_values`` (computed from the parameters for a store written before that
        table existed and opened read-only)."""
        import pandas as pd

        con = self._con
        runs = con.execute(
            "SELECT key, run, point, seed, events, wall_s, summary FROM runs ORDER BY key, run"
        ).fetchdf()
        scenarios = con.execute(
            "SELECT key, celltcp_version, scenario::VARCHAR AS scenario FROM scenarios ORDER BY key"
        ).fetchdf()
        if self._has_parameter_values():
            values = con.execute(
                "SELECT key, run, name, unit, value FROM parameter_values ORDER BY key, run, name"
            ).fetchdf()
        else:
            rows = con.execute("SELECT key, run, parameters FROM runs ORDER BY key, run")
            values = pd.DataFrame(
                [
                    [k, int(r), *v]
                    for k, r, par in rows.fetchall()
                    for v in parameter_values(json.loads(par))
                ],
                columns=["key", "run", "name", "unit", "value"],
            )
        return {"runs": runs, "scenarios": scenarios, "parameter_values": values}

    def kept_series(self) -> list[tuple[str, int, str]]:
        """(key, run, series name) of every series a stored run kept (files of a run without a
        row are orphans of an interrupted write, not listed)."""
        rows = self._con.execute("SELECT key, run, series FROM runs ORDER BY key, run")
        return [(k, int(r), n) for k, r, names in rows.fetchall() for n in json.loads(names)]

    def scenario(self, key: str) -> dict[str, Any]:
        """The resolved scenario stored under ``key``."""
        row = self._con.execute("SELECT scenario FROM scenarios WHERE key = ?", [key]).fetchone()
        if row is None:
            raise KeyError(key)
        scenario: dict[str, Any] = json.loads(row[0])
        return scenario

    def series_path(self, key: str, run: int, name: str) -> Path:
        """Where the series ``name`` of a run is (or would be) kept."""
        if self.directory is None:
            raise ValueError("an in-memory store keeps no series")
        return self.directory / SERIES_DIR / key / str(run) / f"{name}.parquet"

    def read_series(self, key: str, run: int, name: str) -> Any:
        """A kept series of one run as a DataFrame (FileNotFoundError when not kept)."""
        import pandas as pd

        return pd.read_parquet(self.series_path(key, run, name))

    # -- writing ------------------------------------------------------------------------------

    def _write_series(self, key: str, run: int, files: Mapping[str, bytes]) -> None:
        assert self.directory is not None
        parent = self.directory / SERIES_DIR / key
        parent.mkdir(parents=True, exist_ok=True)
        final = parent / str(run)
        tmp = parent / f".{run}.partial-{os.getpid()}"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir()
        try:
            for name, data in sorted(files.items()):
                with open(tmp / f"{name}.parquet", "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
            _fsync_dir(tmp)
            if final.exists():
                # An orphan (written by a process killed before it inserted the run's row), or
                # the series of a run being replaced.
                shutil.rmtree(final)
            os.rename(tmp, final)
            _fsync_dir(parent)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def write(
        self,
        *,
        key: str,
        run: int,
        point: int,
        seed: int,
        parameters: Mapping[str, Any],
        scenario: Mapping[str, Any],
        status: str,
        error: str | None,
        summary: str | None,
        metrics: Mapping[str, Any],
        metric_spec: Sequence[str],
        series: Mapping[str, bytes],
        events: int,
        wall_s: float,
        build: str,
        replace: bool = False,
    ) -> None:
        """Stores one finished run: its series files first, then its row in one transaction.

        ``replace`` deletes an earlier row of the same (key, run) in that transaction (to
        re-run a failed run, or one another build made); otherwise a second row for a stored
        run is an error. ``build`` is the ``_core.BUILD_ID`` of the process that made the run.
        """
        if series:
            if self.directory is None:
                raise ValueError("an in-memory store keeps no series")
            self._write_series(key, run, series)
        con = self._con
        con.execute("BEGIN")
        try:
            con.execute(
                "INSERT INTO scenarios VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [key, _core.__version__, json.dumps(scenario, sort_keys=True)],
            )
            if replace:
                con.execute("DELETE FROM runs WHERE key = ? AND run = ?", [key, run])
            # Values of a run without its row (its row deleted by hand) are orphans.
            con.execute("DELETE FROM parameter_values WHERE key = ? AND run = ?", [key, run])
            con.execute(
                "INSERT INTO runs (key, run, point, seed, parameters, status, error, summary, "
                "metrics, metric_spec, series, events, wall_s, build) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    key,
                    run,
                    point,
                    seed,
                    json.dumps(dict(parameters)),
                    status,
                    error,
                    summary,
                    json.dumps(dict(metrics), allow_nan=True),
                    json.dumps(list(metric_spec)),
                    json.dumps(sorted(series)),
                    events,
                    wall_s,
                    build,
                ],
            )
            values = parameter_values(parameters)
            if values:
                con.executemany(
                    "INSERT INTO parameter_values VALUES (?, ?, ?, ?, ?)",
                    [[key, run, *v] for v in values],
                )
                if not {(n, u) for n, u, _ in values} <= self._columns:
                    con.execute(parameters_view_sql(self._view_columns()))
            con.execute("COMMIT")
            self._columns.update((n, u) for n, u, _ in values)
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def set_metrics(
        self, updates: Sequence[tuple[str, int, Mapping[str, Any]]], metric_spec: Sequence[str]
    ) -> None:
        """Replaces the ``metrics`` of stored runs (after the metric list changed), atomically."""
        if not updates:
            return
        spec = json.dumps(list(metric_spec))
        con = self._con
        con.execute("BEGIN")
        try:
            con.executemany(
                "UPDATE runs SET metrics = ?, metric_spec = ? WHERE key = ? AND run = ?",
                [[json.dumps(dict(m), allow_nan=True), spec, k, r] for k, r, m in updates],
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def _duckdb_message(e: Exception) -> str:
    text = " ".join(str(e).split())
    if "lock" in text.lower():
        return f"in use by another process ({text})"
    return text
