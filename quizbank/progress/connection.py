"""The progress store's connection: opening, integrity check and recovery, migrations, and the transaction
helpers every table uses.

Durability and concurrency (the store must never lose a review):

- WAL journal, `synchronous=FULL`: a write is on disk when the call returns, and readers never block writers.
- Every write is one `BEGIN IMMEDIATE` transaction (`_write`), so two processes serialize on the write lock instead
  of failing to upgrade a read lock; `busy_timeout` waits for the lock, and a loop retries "database is locked"
  until a generous deadline. Every read is one read transaction (`_read`): one consistent snapshot.
- The schema is versioned with `PRAGMA user_version`; migrations (`migrations.py`) run at open, inside one write
  transaction.
- A corrupt or foreign file is moved aside to `progress.db.corrupt-<UTC timestamp>` and a fresh store is made;
  the reason is appended to `store.notices` for the UI to show.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TypeVar

from quizbank.progress import migrations
from quizbank.progress.migrations import split_sql
from quizbank.progress.scheduler import SeededScheduler

__all__ = [
    "BUSY_TIMEOUT_MS",
    "LOCK_DEADLINE_S",
    "StoreConnection",
    "StoreError",
    "ensure_dir",
    "ensure_files_writable",
]

BUSY_TIMEOUT_MS = 5000
LOCK_DEADLINE_S = 120.0

T = TypeVar("T")


class StoreError(Exception):
    """A problem the user must act on (unwritable folder, store busy for too long). The message is one line."""


class _CorruptStore(Exception):
    pass


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _is_access_problem(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return any(
        part in text for part in ("unable to open", "readonly", "read-only", "disk i/o", "permission", "full")
    )


def ensure_dir(data_dir: Path) -> None:
    hint = "choose another folder with --data-dir DIR or POSENC_DATA_DIR"
    if data_dir.exists() and not data_dir.is_dir():
        raise StoreError(f"data directory {data_dir} is not a folder; {hint}")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise StoreError(f"cannot create data directory {data_dir}: {reason}; {hint}") from None
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise StoreError(f"data directory {data_dir} is not writable; {hint}")


def _refused(path: Path) -> bool:
    return not os.access(path, os.R_OK | os.W_OK)


def ensure_files_writable(path: Path) -> None:
    """A progress.db (or its -wal / -shm) that this user may not write opens for reading but fails at the first
    review; refuse it up front with the fix, rather than lose the first rating. A -wal or -shm file that another
    process removes meanwhile (SQLite does as its last connection closes) is no problem: os.access then fails
    for a file that is no longer there, so a failure counts only if the file is still there and still refused."""
    for candidate in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if _refused(candidate) and candidate.exists() and _refused(candidate):
            raise StoreError(
                f"progress store file {candidate} is read-only for this user; make it writable "
                "(chmod u+rw) or choose another folder with --data-dir DIR or POSENC_DATA_DIR"
            )


@dataclass
class _Session:
    undo_stack: list[int] = field(default_factory=list)


class StoreConnection:
    """One SQLite connection behind a lock, with the store's state. Thread-safe (one lock around the connection).

    The per-concept parts of the store (settings, cards and reviews, attempts, mock sessions, marks, merge) are
    mixins over this class; `quizbank.progress.store.ProgressStore` composes them.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.notices: list[str] = []
        self._lock = threading.RLock()
        self._session = _Session()
        self._settings_cache: dict[str, Any] | None = None
        self._fitted_cache: tuple[Any] | None = None  # (FittedParameters | None,) once read
        self._scheduler_key: tuple[Any, ...] | None = None
        self._scheduler: SeededScheduler | None = None
        self._conn = self._connect_or_recover()

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open progress store {self.path}: {exc}") from None
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._retry(lambda: self._check_integrity(conn))
            mode = self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            if str(mode).lower() != "wal":
                raise StoreError(f"cannot switch {self.path} to WAL mode (got {mode})")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            self._retry(lambda: self._migrate(conn))
        except BaseException:
            conn.close()
            raise
        return conn

    def _check_integrity(self, conn: sqlite3.Connection) -> None:
        try:
            # One read transaction, so the three reads see one snapshot: read one by one, another process
            # creating the store could commit in between (version 0, yet tables) and a good store look foreign.
            conn.execute("BEGIN")
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                tables = {
                    row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                }
                check = conn.execute("PRAGMA quick_check").fetchone()[0]
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                raise
            if _is_access_problem(exc):
                raise StoreError(f"cannot read progress store {self.path}: {exc}") from None
            raise _CorruptStore(str(exc)) from None
        except sqlite3.DatabaseError as exc:  # "file is not a database", "database disk image is malformed"
            raise _CorruptStore(str(exc)) from None
        if check != "ok":
            raise _CorruptStore(f"integrity check failed: {check}")
        if version == 0 and tables - {"sqlite_sequence"}:
            raise _CorruptStore("it is an SQLite file from another program")
        missing = migrations.REQUIRED_TABLES - tables
        newest = migrations.SCHEMA_VERSION
        if version == newest and missing:
            raise _CorruptStore(f"tables missing: {', '.join(sorted(missing))}")
        if version > newest:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this posenc supports ({newest}); "
                "upgrade posenc"
            )

    def _connect_or_recover(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except _CorruptStore as exc:
            moved = self._move_aside()
            self.notices.append(
                f"The progress store {self.path} could not be read ({exc}); it was moved to {moved.name} "
                "and a fresh store was started."
            )
        return self._connect()

    def _move_aside(self) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        counter = 1
        while target.exists():
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{counter}")
            counter += 1
        try:
            os.replace(self.path, target)
            for suffix in ("-wal", "-journal"):
                side = self.path.with_name(self.path.name + suffix)
                if side.exists():
                    os.replace(side, target.with_name(target.name + suffix))
            shm = self.path.with_name(self.path.name + "-shm")
            if shm.exists():
                shm.unlink()
        except OSError as exc:
            raise StoreError(
                f"progress store {self.path} is corrupt and cannot be moved aside: {exc}"
            ) from None
        return target

    def _retry(self, action: Callable[[], T]) -> T:
        deadline = time.monotonic() + LOCK_DEADLINE_S
        delay = 0.005
        while True:
            try:
                return action()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    if _is_access_problem(exc):
                        raise StoreError(f"progress store {self.path}: {exc}") from None
                    raise
                if time.monotonic() > deadline:
                    raise StoreError(
                        f"progress store {self.path} stayed locked by another process for "
                        f"{LOCK_DEADLINE_S:.0f} s; close other posenc windows and try again"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.2)

    def _write(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run `body` in one IMMEDIATE transaction; retried as a whole while the database is busy."""

        def attempt() -> T:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = body(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            return result

        with self._lock:
            return self._retry(attempt)

    def _read(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run `body` in one read transaction, so that it sees one consistent snapshot."""

        def attempt() -> T:
            conn = self._conn
            conn.execute("BEGIN")
            try:
                return body(conn)
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

        with self._lock:
            return self._retry(attempt)

    def _migrate(self, conn: sqlite3.Connection) -> None:
        """Run the migrations from the stored `user_version` up to SCHEMA_VERSION in ONE write transaction:
        either every step applies, or the file is left exactly as it was."""
        conn.execute("BEGIN IMMEDIATE")
        version = target = 0
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for target in range(version, migrations.SCHEMA_VERSION):
                for statement in split_sql(migrations.MIGRATIONS[target]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target + 1}")
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error) and not _is_busy(exc) and not _is_access_problem(exc):
                raise StoreError(
                    f"cannot upgrade progress store {self.path} from schema version {version} to {target + 1} "
                    f"({exc}); the file was left unchanged"
                ) from None
            raise

    @property
    def schema_version(self) -> int:
        return self._read(lambda c: c.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.close()
                finally:
                    self._conn = None  # type: ignore[assignment]

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
