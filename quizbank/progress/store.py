"""The progress store: one SQLite file (`progress.db`) holding cards, reviews, quiz attempts and settings.

Progress lives apart from the YAML banks and is keyed by question id, so editing a question never resets it, and
a question whose id disappears keeps its history (see `orphans`).

Durability and concurrency (the store must never lose a review):

- WAL journal, `synchronous=FULL`: a review is on disk when `review()` returns, and readers never block writers.
- Every write is one `BEGIN IMMEDIATE` transaction, so two processes serialize on the write lock instead of
  failing to upgrade a read lock; `busy_timeout` waits for the lock, and a loop retries "database is locked"
  until a generous deadline.
- The schema is versioned with `PRAGMA user_version`; migrations run at open, inside a write transaction.
- A corrupt or foreign file is moved aside to `progress.db.corrupt-<UTC timestamp>` and a fresh store is made;
  the reason is appended to `store.notices` for the UI to show.

Times are stored as fixed-width ISO-8601 UTC strings ('2025-01-31T08:00:00.000000+00:00'), which sort
chronologically as text. Cards are `fsrs.Card` JSON. Each review row keeps the card JSON before and after it, so
`undo_last()` restores the previous state byte for byte.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from quizbank.progress.paths import DB_NAME, default_data_dir
from quizbank.progress.scheduler import (
    Card,
    Preview,
    Rating,
    SeededScheduler,
    State,
    new_card,
    to_utc,
)

__all__ = [
    "DB_NAME",
    "DEFAULT_SETTINGS",
    "MergeReport",
    "SCHEMA_VERSION",
    "SETTING_HELP",
    "CardInfo",
    "DRILL_CARD_PREFIX",
    "DrillAttemptRow",
    "Orphan",
    "ProgressStore",
    "ReviewResult",
    "ReviewRow",
    "StoreError",
    "StudyQueue",
    "TopicProgress",
    "UndoResult",
    "default_data_dir",
    "format_time",
    "open_store",
    "parse_setting_text",
    "parse_time",
    "utc_day_start",
    "validate_setting",
]

BUSY_TIMEOUT_MS = 5000
LOCK_DEADLINE_S = 120.0

DEFAULT_SETTINGS: dict[str, Any] = {
    "language": "en",
    "keymap": {},
    "new_per_day": 20,
    "desired_retention": 0.9,
    "enable_fuzzing": True,
    "instant_submit": False,
    "quiz_schedules": True,
}

# Each entry moves the schema from version i to i + 1. Never edit a shipped entry; append a new one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL                       -- JSON
    );
    CREATE TABLE cards (
        question_id TEXT PRIMARY KEY,
        card_json   TEXT NOT NULL,                -- fsrs.Card.to_json()
        state       INTEGER NOT NULL,             -- fsrs.State: 1 learning, 2 review, 3 relearning
        due         TEXT NOT NULL,
        last_review TEXT,
        stability   REAL,
        difficulty  REAL
    );
    CREATE INDEX cards_due ON cards (due);
    CREATE TABLE reviews (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        question_id  TEXT NOT NULL,
        rating       INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
        reviewed_at  TEXT NOT NULL,
        duration_ms  INTEGER,
        state_before INTEGER,                     -- NULL: the card was new
        card_before  TEXT,                        -- NULL: the card was new
        card_after   TEXT NOT NULL,
        UNIQUE (question_id, reviewed_at, rating)
    );
    CREATE INDEX reviews_question ON reviews (question_id, reviewed_at);
    CREATE INDEX reviews_time ON reviews (reviewed_at);
    CREATE TABLE attempts (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        question_id  TEXT NOT NULL,
        correct      INTEGER,                     -- 1, 0, or NULL (self-graded)
        response     TEXT NOT NULL,
        duration_ms  INTEGER,
        attempted_at TEXT NOT NULL,
        UNIQUE (question_id, attempted_at, response)
    );
    CREATE INDEX attempts_time ON attempts (attempted_at);
    """,
    """
    CREATE TABLE drill_attempts (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        drill        TEXT NOT NULL,
        passed       INTEGER NOT NULL,            -- 1 every case passed, 0 otherwise
        cases_passed INTEGER NOT NULL,
        cases_total  INTEGER NOT NULL,
        elapsed_ms   INTEGER,
        attempted_at TEXT NOT NULL
    );
    CREATE INDEX drill_attempts_time ON drill_attempts (attempted_at);
    CREATE TABLE mock_sessions (
        id          TEXT PRIMARY KEY,
        started_at  TEXT NOT NULL,
        minutes     INTEGER NOT NULL,
        level       TEXT NOT NULL,
        language    TEXT NOT NULL,
        ended_early INTEGER NOT NULL,
        score       REAL,                         -- 0..1, NULL when nothing was graded
        report_json TEXT NOT NULL                 -- the whole report (items, timings, grades)
    );
    CREATE INDEX mock_sessions_time ON mock_sessions (started_at);
    CREATE TABLE question_marks (
        question_id TEXT PRIMARY KEY,
        flagged     INTEGER NOT NULL DEFAULT 0,
        note        TEXT NOT NULL DEFAULT '',
        updated_at  TEXT NOT NULL
    );
    """,
    # a generated question's showing (quizbank/instances.py): JSON {"seed": N, "params": {...}}; NULL otherwise
    """
    ALTER TABLE attempts ADD COLUMN instance TEXT;
    ALTER TABLE reviews ADD COLUMN instance TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
REQUIRED_TABLES = frozenset(
    {"settings", "cards", "reviews", "attempts", "drill_attempts", "mock_sessions", "question_marks"}
)

T = TypeVar("T")


class StoreError(Exception):
    """A problem the user must act on (unwritable folder, store busy for too long). The message is one line."""


class _CorruptStore(Exception):
    pass


# ---------------------------------------------------------------------------------------------------- time


def format_time(moment: datetime) -> str:
    """Fixed-width ISO-8601 in UTC with microseconds: sorts chronologically as text."""
    return to_utc(moment).strftime("%Y-%m-%dT%H:%M:%S.%f") + "+00:00"


def parse_time(text: str) -> datetime:
    """Parse an ISO-8601 time; it must carry an offset. Returned in UTC."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"time {text!r} has no UTC offset")
    return moment.astimezone(UTC)


def utc_day_start(moment: datetime) -> datetime:
    moment = to_utc(moment)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


# ---------------------------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class TopicProgress:
    """Per-topic counts for Home: cards due now, never-studied questions, studied cards, and mastery: the
    mean retrievability over every question of the topic, never-studied ones counting as 0."""

    due: int
    new: int
    studied: int
    mastery: float | None


@dataclass(frozen=True)
class StudyQueue:
    """Question ids to study: due cards (most overdue first), then today's new cards (bank order)."""

    due: list[str]
    new: list[str]
    new_left_today: int

    @property
    def ids(self) -> list[str]:
        return self.due + self.new

    def __len__(self) -> int:
        return len(self.due) + len(self.new)

    def __iter__(self):
        return iter(self.ids)


@dataclass(frozen=True)
class ReviewResult:
    review_id: int
    question_id: str
    rating: Rating
    reviewed_at: datetime
    card_before: Card | None
    card_after: Card


@dataclass(frozen=True)
class UndoResult:
    question_id: str
    rating: Rating
    card: Card | None  # the restored card, None if the question is new again


@dataclass(frozen=True)
class CardInfo:
    question_id: str
    card: Card
    reps: int
    lapses: int
    retrievability: float


@dataclass(frozen=True)
class ReviewRow:
    question_id: str
    rating: Rating
    reviewed_at: datetime
    duration_ms: int | None
    state_before: State | None  # None: first review of a new card


@dataclass(frozen=True)
class AttemptRow:
    question_id: str
    correct: bool | None
    response: str
    duration_ms: int | None
    attempted_at: datetime


@dataclass(frozen=True)
class DrillAttemptRow:
    drill: str
    passed: bool
    cases_passed: int
    cases_total: int
    elapsed_ms: int | None
    attempted_at: datetime


DRILL_CARD_PREFIX = "drill:"  # a solved drill's Study card is `drill:NAME`


@dataclass(frozen=True)
class MergeReport:
    reviews_added: int
    reviews_skipped: int
    cards_rebuilt: int
    attempts_added: int
    cards_added: int
    settings_added: int


@dataclass(frozen=True)
class Orphan:
    question_id: str
    reviews: int
    attempts: int
    last_activity: datetime | None


# ---------------------------------------------------------------------------------------------------- opening


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _is_access_problem(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return any(
        part in text for part in ("unable to open", "readonly", "read-only", "disk i/o", "permission", "full")
    )


def _ensure_dir(data_dir: Path) -> None:
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


def open_store(data_dir: str | os.PathLike[str] | None = None) -> ProgressStore:
    """Open (creating if needed) the store in `data_dir` (default: `default_data_dir()`).

    Raises StoreError (one-line message) if the folder cannot be created or written.
    """
    folder = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    _ensure_dir(folder)
    _ensure_files_writable(folder / DB_NAME)
    return ProgressStore(folder / DB_NAME)


def _ensure_files_writable(path: Path) -> None:
    """A progress.db (or its -wal / -shm) that this user may not write opens for reading but fails at the first
    review; refuse it up front with the fix, rather than lose the first rating."""
    for candidate in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if candidate.exists() and not os.access(candidate, os.R_OK | os.W_OK):
            raise StoreError(
                f"progress store file {candidate} is read-only for this user; make it writable "
                "(chmod u+rw) or choose another folder with --data-dir DIR or POSENC_DATA_DIR"
            )


# ---------------------------------------------------------------------------------------------------- store


@dataclass
class _Session:
    undo_stack: list[int] = field(default_factory=list)


class ProgressStore:
    """Cards, reviews, attempts and settings in one SQLite file. Thread-safe (one lock around the connection).

    Every method taking `now` accepts an aware datetime (the clock is injectable for tests); None means the
    current UTC time.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.notices: list[str] = []
        self._lock = threading.RLock()
        self._session = _Session()
        self._settings_cache: dict[str, Any] | None = None
        self._scheduler_key: tuple[Any, ...] | None = None
        self._scheduler: SeededScheduler | None = None
        self._conn = self._connect_or_recover()

    # ------------------------------------------------------------------ connection

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
        missing = REQUIRED_TABLES - tables
        if version == SCHEMA_VERSION and missing:
            raise _CorruptStore(f"tables missing: {', '.join(sorted(missing))}")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this posenc supports ({SCHEMA_VERSION}); "
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
            for target in range(version, SCHEMA_VERSION):
                for statement in _split_sql(MIGRATIONS[target]):
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

    def __enter__(self) -> ProgressStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ settings

    def _settings(self) -> dict[str, Any]:
        if self._settings_cache is None:
            rows = self._read(lambda c: c.execute("SELECT key, value FROM settings").fetchall())
            cache: dict[str, Any] = {}
            for key, value in rows:
                try:
                    cache[key] = json.loads(value)
                except ValueError:
                    continue
            self._settings_cache = cache
        return self._settings_cache

    def get_setting(self, key: str, default: Any = None) -> Any:
        """A stored setting; else `default` if given; else the built-in default (DEFAULT_SETTINGS)."""
        settings = self._settings()
        if key in settings:
            return settings[key]
        if default is not None:
            return default
        return DEFAULT_SETTINGS.get(key)

    def set_setting(self, key: str, value: Any) -> None:
        """Store a JSON-serializable setting. Known keys are validated (ValueError on a bad value)."""
        value = validate_setting(key, value)
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        self._write(
            lambda c: c.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, text),
            )
        )
        self._settings()[key] = value

    def reset_setting(self, key: str) -> bool:
        """Forget a stored setting (back to the built-in default). True if one was stored."""
        cursor = self._write(lambda c: c.execute("DELETE FROM settings WHERE key = ?", (key,)))
        self._settings().pop(key, None)
        return bool(cursor.rowcount)

    def stored_settings(self) -> dict[str, Any]:
        """Only the settings the user has set (not the built-in defaults)."""
        return dict(self._settings())

    def reload_settings(self) -> None:
        self._settings_cache = None

    @property
    def scheduler(self) -> SeededScheduler:
        """The FSRS scheduler for the current settings (desired_retention, enable_fuzzing)."""
        key = (float(self.get_setting("desired_retention")), bool(self.get_setting("enable_fuzzing")))
        if self._scheduler is None or self._scheduler_key != key:
            self._scheduler = SeededScheduler(desired_retention=key[0], enable_fuzzing=key[1])
            self._scheduler_key = key
        return self._scheduler

    # ------------------------------------------------------------------ attempts

    def record_attempt(
        self,
        question_id: str,
        correct: bool | None,
        response: str,
        duration_ms: int | None,
        at: datetime | None = None,
        *,
        instance: dict[str, Any] | None = None,
    ) -> None:
        """Record an auto-graded (or self-graded: correct=None) answer. Feeds stats; never schedules.
        `instance`: the seed and parameters of a generated question's showing."""
        when = to_utc(at)
        flag = None if correct is None else int(bool(correct))
        shown = _instance_json(instance)

        def body(conn: sqlite3.Connection) -> None:
            stamp = when
            while True:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO attempts (question_id, correct, response, duration_ms, attempted_at, "
                    "instance) VALUES (?, ?, ?, ?, ?, ?)",
                    (question_id, flag, str(response), _as_ms(duration_ms), format_time(stamp), shown),
                )
                if cursor.rowcount:
                    return
                stamp += timedelta(microseconds=1)

        self._write(body)

    def last_attempt(self, question_id: str, since: datetime | None = None) -> AttemptRow | None:
        """The latest auto-graded attempt (correct is not NULL) at `question_id`, at or after `since`."""
        query = (
            "SELECT question_id, correct, response, duration_ms, attempted_at FROM attempts "
            "WHERE question_id = ? AND correct IS NOT NULL"
        )
        params: tuple[Any, ...] = (question_id,)
        if since is not None:
            query += " AND attempted_at >= ?"
            params += (format_time(since),)
        row = self._read(
            lambda c: c.execute(query + " ORDER BY attempted_at DESC, id DESC LIMIT 1", params).fetchone()
        )
        if row is None:
            return None
        qid, ok, resp, dur, at = row
        return AttemptRow(qid, bool(ok), resp, dur, parse_time(at))

    def attempts(self, since: datetime | None = None) -> list[AttemptRow]:
        query = "SELECT question_id, correct, response, duration_ms, attempted_at FROM attempts"
        params: tuple[Any, ...] = ()
        if since is not None:
            query += " WHERE attempted_at >= ?"
            params = (format_time(since),)
        rows = self._read(lambda c: c.execute(query + " ORDER BY attempted_at, id", params).fetchall())
        return [
            AttemptRow(qid, None if ok is None else bool(ok), resp, dur, parse_time(at))
            for qid, ok, resp, dur, at in rows
        ]

    # ------------------------------------------------------------------ coding drills

    def record_drill_attempt(
        self,
        drill: str,
        passed: bool,
        cases_passed: int,
        cases_total: int,
        elapsed_ms: float | None,
        at: datetime | None = None,
    ) -> bool:
        """Record one graded drill attempt. The first pass creates the Study card `drill:NAME`, due a day
        later (re-implement it from memory). Returns True when that card was created."""
        when = to_utc(at)
        card_id = DRILL_CARD_PREFIX + drill

        row = (drill, int(bool(passed)), int(cases_passed), int(cases_total), _as_ms(elapsed_ms))

        def body(conn: sqlite3.Connection) -> bool:
            conn.execute(
                "INSERT INTO drill_attempts (drill, passed, cases_passed, cases_total, elapsed_ms, attempted_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (*row, format_time(when)),
            )
            if not passed or conn.execute("SELECT 1 FROM cards WHERE question_id = ?", (card_id,)).fetchone():
                return False
            card = new_card(card_id, when)
            card.due = when + timedelta(days=1)
            _put_card(conn, card_id, card.to_json(), card)
            return True

        return self._write(body)

    def drill_attempts(self, drill: str | None = None) -> list[DrillAttemptRow]:
        """Drill attempts, oldest first (one drill's, or all)."""
        query = "SELECT drill, passed, cases_passed, cases_total, elapsed_ms, attempted_at FROM drill_attempts"  # fmt: skip
        params: tuple[Any, ...] = ()
        if drill is not None:
            query += " WHERE drill = ?"
            params = (drill,)
        rows = self._read(lambda c: c.execute(query + " ORDER BY attempted_at, id", params).fetchall())
        return [
            DrillAttemptRow(name, bool(ok), int(n_ok), int(n), ms, parse_time(at))
            for name, ok, n_ok, n, ms, at in rows
        ]

    # ------------------------------------------------------------------ mock interviews

    def save_mock_session(
        self,
        session_id: str,
        started_at: datetime,
        minutes: int,
        level: str,
        language: str,
        ended_early: bool,
        score: float | None,
        report: Mapping[str, Any],
    ) -> None:
        """Save (or replace) one mock interview with its whole report (JSON) in one transaction."""
        text = json.dumps(report, ensure_ascii=False, sort_keys=True)
        row = (session_id, format_time(started_at), int(minutes), level, language, int(bool(ended_early)))
        self._write(
            lambda c: c.execute(
                "INSERT OR REPLACE INTO mock_sessions (id, started_at, minutes, level, language, ended_early, "
                "score, report_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*row, None if score is None else float(score), text),
            )
        )

    def mock_sessions(self) -> list[dict[str, Any]]:
        """Every saved mock interview's report (oldest first); a row whose JSON is unreadable is skipped."""
        rows = self._read(
            lambda c: c.execute("SELECT report_json FROM mock_sessions ORDER BY started_at, id").fetchall()
        )
        out = []
        for (text,) in rows:
            try:
                report = json.loads(text)
            except ValueError:
                continue
            if isinstance(report, dict):
                out.append(report)
        return out

    def make_due_now(self, question_ids: Iterable[str], now: datetime | None = None) -> int:
        """Put these cards in front of Study: an existing card becomes due `now`, a new question gets a fresh
        card due `now` (no review is recorded). Returns how many cards were written."""
        when = to_utc(now)

        def body(conn: sqlite3.Connection) -> int:
            count = 0
            for question_id in dict.fromkeys(question_ids):
                row = conn.execute(
                    "SELECT card_json FROM cards WHERE question_id = ?", (question_id,)
                ).fetchone()
                card = Card.from_json(row[0]) if row else new_card(question_id, when)
                if row and card.due <= when:
                    continue
                card.due = when
                _put_card(conn, question_id, card.to_json(), card)
                count += 1
            return count

        return self._write(body)

    # ------------------------------------------------------------------ question marks (flag, note)

    def question_marks(self) -> dict[str, tuple[bool, str]]:
        """{question id: (flagged, note)} for every question with a flag or a note."""
        rows = self._read(
            lambda c: c.execute("SELECT question_id, flagged, note FROM question_marks").fetchall()
        )
        return {qid: (bool(flagged), note) for qid, flagged, note in rows if flagged or note}

    def set_question_mark(
        self, question_id: str, *, flagged: bool | None = None, note: str | None = None
    ) -> tuple[bool, str]:
        """Set the flag and/or the note of a question (None keeps that part); returns (flagged, note)."""
        stamp = format_time(datetime.now(UTC))

        def body(conn: sqlite3.Connection) -> tuple[bool, str]:
            row = conn.execute(
                "SELECT flagged, note FROM question_marks WHERE question_id = ?", (question_id,)
            ).fetchone()
            new_flag = bool(row[0]) if (flagged is None and row) else bool(flagged)
            new_note = (row[1] if row else "") if note is None else note.strip()
            conn.execute(
                "INSERT INTO question_marks (question_id, flagged, note, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(question_id) DO UPDATE SET flagged = excluded.flagged, note = excluded.note, "
                "updated_at = excluded.updated_at",
                (question_id, int(new_flag), new_note, stamp),
            )
            return new_flag, new_note

        return self._write(body)

    def last_results(self) -> dict[str, bool]:
        """{question id: whether its latest auto- or self-graded attempt was right} (graded attempts only)."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT question_id, correct FROM attempts WHERE correct IS NOT NULL ORDER BY attempted_at, id"
            ).fetchall()
        )
        return {qid: bool(ok) for qid, ok in rows}

    def card_due_times(self) -> dict[str, datetime]:
        """{question id: due time} for every card (no JSON parsing: cheap enough for status marks)."""
        rows = self._read(lambda c: c.execute("SELECT question_id, due FROM cards").fetchall())
        return {qid: parse_time(due) for qid, due in rows}

    # ------------------------------------------------------------------ cards

    def card(self, question_id: str) -> Card | None:
        row = self._read(
            lambda c: c.execute(
                "SELECT card_json FROM cards WHERE question_id = ?", (question_id,)
            ).fetchone()
        )
        return Card.from_json(row[0]) if row else None

    def card_json(self, question_id: str) -> str | None:
        """The stored card JSON text (exactly as saved), or None for a new question."""
        row = self._read(
            lambda c: c.execute(
                "SELECT card_json FROM cards WHERE question_id = ?", (question_id,)
            ).fetchone()
        )
        return row[0] if row else None

    def cards(self) -> dict[str, Card]:
        rows = self._read(lambda c: c.execute("SELECT question_id, card_json FROM cards").fetchall())
        return {qid: Card.from_json(text) for qid, text in rows}

    def card_info(self, question_id: str, now: datetime | None = None) -> CardInfo | None:
        """The card with its review count, lapse count and current retrievability; None if never studied."""
        card = self.card(question_id)
        if card is None:
            return None
        reps, lapses = self._read(
            lambda c: c.execute(
                "SELECT COUNT(*), COALESCE(SUM(rating = 1 AND state_before = 2), 0) FROM reviews "
                "WHERE question_id = ?",
                (question_id,),
            ).fetchone()
        )
        retrievability = self.scheduler.get_card_retrievability(card, to_utc(now))
        return CardInfo(question_id, card, int(reps), int(lapses), float(retrievability))

    def lapses(self) -> dict[str, int]:
        """Lapses per question: Again ratings given while the card was in the Review state."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT question_id, COUNT(*) FROM reviews WHERE rating = 1 AND state_before = 2 "
                "GROUP BY question_id"
            ).fetchall()
        )
        return {qid: int(n) for qid, n in rows}

    def review_rows(self, since: datetime | None = None) -> list[ReviewRow]:
        query = "SELECT question_id, rating, reviewed_at, duration_ms, state_before FROM reviews"
        params: tuple[Any, ...] = ()
        if since is not None:
            query += " WHERE reviewed_at >= ?"
            params = (format_time(since),)
        rows = self._read(lambda c: c.execute(query + " ORDER BY reviewed_at, id", params).fetchall())
        return [
            ReviewRow(qid, Rating(rating), parse_time(at), dur, None if state is None else State(state))
            for qid, rating, at, dur, state in rows
        ]

    def review_count(self) -> int:
        return self._read(lambda c: c.execute("SELECT COUNT(*) FROM reviews").fetchone()[0])

    # ------------------------------------------------------------------ queue and summary

    def introduced_on_day(self, now: datetime | None = None) -> int:
        """New cards first reviewed during the UTC day of `now`."""
        start = utc_day_start(to_utc(now))
        end = start + timedelta(days=1)
        return self._read(
            lambda c: c.execute(
                "SELECT COUNT(*) FROM reviews WHERE card_before IS NULL AND reviewed_at >= ? AND reviewed_at < ?",
                (format_time(start), format_time(end)),
            ).fetchone()[0]
        )

    def study_queue(
        self,
        question_ids: Iterable[str],
        now: datetime | None = None,
        new_per_day: int | None = None,
        learn_ahead: timedelta = timedelta(0),
    ) -> StudyQueue:
        """Cards due by `now + learn_ahead` (earliest due first), then up to `new_per_day` (setting if None)
        new questions per UTC day, minus those already introduced today. New ones keep the given order."""
        when = to_utc(now)
        limit = int(self.get_setting("new_per_day") if new_per_day is None else new_per_day)
        ids = list(dict.fromkeys(question_ids))
        rows = self._read(lambda c: c.execute("SELECT question_id, due FROM cards").fetchall())
        due_at = {qid: due for qid, due in rows}
        horizon = format_time(when + learn_ahead)
        position = {qid: i for i, qid in enumerate(ids)}
        due = sorted(
            (qid for qid in ids if qid in due_at and due_at[qid] <= horizon),
            key=lambda qid: (due_at[qid], position[qid]),
        )
        left = max(0, limit - self.introduced_on_day(when))
        new = [qid for qid in ids if qid not in due_at][:left]
        return StudyQueue(due=due, new=new, new_left_today=left)

    def topic_summary(
        self, topics: Mapping[str, Sequence[str]], now: datetime | None = None
    ) -> dict[str, TopicProgress]:
        """{topic_id: TopicProgress} for {topic_id: [question ids]}. Mastery is the mean retrievability
        now over all the topic's questions, an unseen one counting as 0 (None until one is studied)."""
        when = to_utc(now)
        stamp = format_time(when)
        rows = self._read(lambda c: c.execute("SELECT question_id, due, card_json FROM cards").fetchall())
        known = {qid: (due, text) for qid, due, text in rows}
        scheduler = self.scheduler
        retrievability: dict[str, float] = {}
        summary: dict[str, TopicProgress] = {}
        for topic_id, question_ids in topics.items():
            due = new = studied = 0
            total = 0.0
            for qid in dict.fromkeys(question_ids):
                entry = known.get(qid)
                if entry is None:
                    new += 1
                    continue
                studied += 1
                if entry[0] <= stamp:
                    due += 1
                if qid not in retrievability:
                    retrievability[qid] = float(
                        scheduler.get_card_retrievability(Card.from_json(entry[1]), when)
                    )
                total += retrievability[qid]
            summary[topic_id] = TopicProgress(
                due=due, new=new, studied=studied, mastery=(total / (studied + new)) if studied else None
            )
        return summary

    # ------------------------------------------------------------------ scheduling

    def preview(self, question_id: str, now: datetime | None = None) -> dict[Rating, Preview]:
        """What each rating would give: {Rating: Preview(due, interval)}. Changes nothing."""
        when = to_utc(now)

        def body(conn: sqlite3.Connection) -> tuple[str | None, int]:
            row = conn.execute("SELECT card_json FROM cards WHERE question_id = ?", (question_id,)).fetchone()
            count = conn.execute(
                "SELECT COUNT(*) FROM reviews WHERE question_id = ?", (question_id,)
            ).fetchone()
            return (row[0] if row else None), int(count[0])

        text, index = self._read(body)
        card = Card.from_json(text) if text else new_card(question_id, when)
        out: dict[Rating, Preview] = {}
        for rating in Rating:
            after = self.scheduler.review_seeded(question_id, index, card, rating, when)
            out[rating] = Preview(rating=rating, due=after.due, interval=after.due - when)
        return out

    def review(
        self,
        question_id: str,
        rating: Rating | int,
        now: datetime | None = None,
        duration_ms: int | None = None,
        *,
        instance: dict[str, Any] | None = None,
    ) -> ReviewResult:
        """Rate a card and commit at once (one transaction): the review row (with the card before and after)
        and the new card state. The review joins this session's undo stack. `instance`: the seed and
        parameters of a generated question's showing (one card per question, whatever the numbers)."""
        rating = Rating(int(rating))
        shown = _instance_json(instance)
        fixed = to_utc(now) if now is not None else None
        scheduler = self.scheduler

        def body(conn: sqlite3.Connection) -> ReviewResult:
            # Without an explicit time, read the clock inside the transaction, so that reviews from several
            # processes get times in commit order and a card's history never runs backwards.
            stamp = fixed if fixed is not None else datetime.now(UTC)
            row = conn.execute("SELECT card_json FROM cards WHERE question_id = ?", (question_id,)).fetchone()
            before_text = row[0] if row else None
            index = conn.execute(
                "SELECT COUNT(*) FROM reviews WHERE question_id = ?", (question_id,)
            ).fetchone()[0]
            while conn.execute(
                "SELECT 1 FROM reviews WHERE question_id = ? AND reviewed_at = ? AND rating = ?",
                (question_id, format_time(stamp), int(rating)),
            ).fetchone():
                stamp += timedelta(microseconds=1)  # same card, same rating, same instant: keep both
            before = Card.from_json(before_text) if before_text else new_card(question_id, stamp)
            after = scheduler.review_seeded(question_id, index, before, rating, stamp, duration_ms)
            after_text = after.to_json()
            cursor = conn.execute(
                "INSERT INTO reviews (question_id, rating, reviewed_at, duration_ms, state_before, card_before, "
                "card_after, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    question_id,
                    int(rating),
                    format_time(stamp),
                    _as_ms(duration_ms),
                    None if before_text is None else int(before.state),
                    before_text,
                    after_text,
                    shown,
                ),
            )
            _put_card(conn, question_id, after_text, after)
            return ReviewResult(
                review_id=int(cursor.lastrowid),
                question_id=question_id,
                rating=rating,
                reviewed_at=stamp,
                card_before=Card.from_json(before_text) if before_text else None,
                card_after=after,
            )

        result = self._write(body)
        self._session.undo_stack.append(result.review_id)
        return result

    @property
    def can_undo(self) -> bool:
        return bool(self._session.undo_stack)

    def undo_last(self) -> UndoResult | None:
        """Undo this session's most recent review: restore the card JSON saved before it (or make the question
        new again) and delete the review row, in one transaction. None if there is nothing to undo.

        Refuses (StoreError) if another process has reviewed that card since, rather than lose that review.
        """
        if not self._session.undo_stack:
            return None
        review_id = self._session.undo_stack[-1]

        def body(conn: sqlite3.Connection) -> UndoResult | None:
            row = conn.execute(
                "SELECT question_id, rating, card_before, card_after FROM reviews WHERE id = ?", (review_id,)
            ).fetchone()
            if row is None:
                return None
            question_id, rating, before_text, after_text = row
            latest = conn.execute(
                "SELECT id FROM reviews WHERE question_id = ? ORDER BY reviewed_at DESC, id DESC LIMIT 1",
                (question_id,),
            ).fetchone()[0]
            current = conn.execute(
                "SELECT card_json FROM cards WHERE question_id = ?", (question_id,)
            ).fetchone()
            if latest != review_id or current is None or current[0] != after_text:
                raise StoreError(f"cannot undo: {question_id} was reviewed again since (in another window?)")
            if before_text is None:
                conn.execute("DELETE FROM cards WHERE question_id = ?", (question_id,))
                restored = None
            else:
                restored = Card.from_json(before_text)
                _put_card(conn, question_id, before_text, restored)
            conn.execute("DELETE FROM reviews WHERE id = ?", (review_id,))
            return UndoResult(question_id=question_id, rating=Rating(rating), card=restored)

        result = self._write(body)
        self._session.undo_stack.pop()
        return result

    # ------------------------------------------------------------------ history maintenance

    def orphans(self, known_ids: Iterable[str]) -> list[Orphan]:
        """Question ids with history (cards, reviews or attempts) that are not in `known_ids`, sorted by id."""
        known = set(known_ids)

        def body(conn: sqlite3.Connection) -> list[tuple[str, int, int, str | None]]:
            return conn.execute(
                """
                SELECT qid, SUM(reviews), SUM(attempts), MAX(last) FROM (
                    SELECT question_id AS qid, 0 AS reviews, 0 AS attempts, last_review AS last FROM cards
                    UNION ALL
                    SELECT question_id, COUNT(*), 0, MAX(reviewed_at) FROM reviews GROUP BY question_id
                    UNION ALL
                    SELECT question_id, 0, COUNT(*), MAX(attempted_at) FROM attempts GROUP BY question_id
                ) GROUP BY qid ORDER BY qid
                """
            ).fetchall()

        out = []
        for qid, reviews, attempts, last in self._read(body):
            if qid in known or qid.startswith(DRILL_CARD_PREFIX):
                continue
            out.append(Orphan(qid, int(reviews), int(attempts), _parse_loose(last)))
        return out

    def replay(self, conn: sqlite3.Connection, question_id: str, scheduler: SeededScheduler) -> None:
        """Rebuild a card and its reviews' before/after states from its review history, in time order.

        Used after merging a backup. Must run inside a write transaction (`conn` from `_write`); take
        `scheduler` from `self.scheduler` before starting it.
        """
        rows = conn.execute(
            "SELECT id, rating, reviewed_at, duration_ms FROM reviews WHERE question_id = ? "
            "ORDER BY reviewed_at, id",
            (question_id,),
        ).fetchall()
        if not rows:
            return
        card: Card | None = None
        before_text: str | None = None
        for index, (review_id, rating, reviewed_at, duration_ms) in enumerate(rows):
            when = parse_time(reviewed_at)
            before = card if card is not None else new_card(question_id, when)
            after = scheduler.review_seeded(question_id, index, before, Rating(rating), when, duration_ms)
            after_text = after.to_json()
            conn.execute(
                "UPDATE reviews SET state_before = ?, card_before = ?, card_after = ? WHERE id = ?",
                (None if card is None else int(card.state), before_text, after_text, review_id),
            )
            card, before_text = after, after_text
        assert card is not None and before_text is not None
        _put_card(conn, question_id, before_text, card)

    def migrate_replaced_ids(self, mapping: Mapping[str, str]) -> int:
        """Move the history of merged-away question ids (old -> new) onto the question replacing them, in one
        transaction: reviews, attempts, the card and the question mark. Where both ids have a card, the one
        reviewed last is kept; a review or attempt already present under the new id is not duplicated; marks
        merge (flagged if either is, both notes kept). Returns how many old ids had anything to move, so a
        second call with the same mapping changes nothing and returns 0."""
        pairs = sorted((old, new) for old, new in mapping.items() if old != new)
        if not pairs:
            return 0

        def body(conn: sqlite3.Connection) -> int:
            moved = 0
            for old, new in pairs:
                found = False
                for table in ("reviews", "attempts"):
                    cursor = conn.execute(
                        f"UPDATE OR IGNORE {table} SET question_id = ? WHERE question_id = ?", (new, old)
                    )
                    found |= cursor.rowcount > 0
                    found |= conn.execute(f"DELETE FROM {table} WHERE question_id = ?", (old,)).rowcount > 0
                old_card = conn.execute(
                    "SELECT last_review FROM cards WHERE question_id = ?", (old,)
                ).fetchone()
                if old_card is not None:
                    found = True
                    new_card_row = conn.execute(
                        "SELECT last_review FROM cards WHERE question_id = ?", (new,)
                    ).fetchone()
                    old_newer = new_card_row is None or (
                        old_card[0] is not None and (new_card_row[0] is None or old_card[0] > new_card_row[0])
                    )
                    if old_newer:
                        conn.execute("DELETE FROM cards WHERE question_id = ?", (new,))
                        conn.execute("UPDATE cards SET question_id = ? WHERE question_id = ?", (new, old))
                    else:
                        conn.execute("DELETE FROM cards WHERE question_id = ?", (old,))
                mark = conn.execute(
                    "SELECT flagged, note, updated_at FROM question_marks WHERE question_id = ?", (old,)
                ).fetchone()
                if mark is not None:
                    found = True
                    here = conn.execute(
                        "SELECT flagged, note, updated_at FROM question_marks WHERE question_id = ?", (new,)
                    ).fetchone()
                    if here is None:
                        conn.execute(
                            "UPDATE question_marks SET question_id = ? WHERE question_id = ?", (new, old)
                        )
                    else:
                        notes = [n for n in (here[1], mark[1]) if n.strip()]
                        note = "\n".join(dict.fromkeys(notes))
                        conn.execute(
                            "UPDATE question_marks SET flagged = ?, note = ?, updated_at = ? WHERE question_id = ?",
                            (int(bool(here[0] or mark[0])), note, max(here[2], mark[2]), new),
                        )
                        conn.execute("DELETE FROM question_marks WHERE question_id = ?", (old,))
                moved += found
            return moved

        return self._write(body)

    def merge_history(
        self,
        reviews: Sequence[tuple[str, int, datetime, int | None]],
        attempts: Sequence[tuple[str, bool | None, str, int | None, datetime]] = (),
        cards: Mapping[str, Card] | None = None,
        settings: Mapping[str, Any] | None = None,
    ) -> MergeReport:
        """Merge already-validated history (a backup) in ONE transaction; nothing is written if anything fails.

        reviews: (question_id, rating, reviewed_at, duration_ms); a review whose (question_id, reviewed_at, rating)
        exists is skipped, so merging the same backup twice adds nothing. Cards that gained reviews are rebuilt
        by replaying their whole history. `cards` only fills in questions that have no history at all here;
        `settings` only fills keys not set here. attempts: (question_id, correct, response, duration_ms, at).
        """
        settings = dict(settings or {})
        for key, value in settings.items():
            settings[key] = validate_setting(key, value)
        # Replay with the settings in force after the merge (backup settings fill unset keys only).
        local = self._settings()
        effective = {**DEFAULT_SETTINGS, **settings, **local}
        scheduler = SeededScheduler(
            desired_retention=float(effective["desired_retention"]),
            enable_fuzzing=bool(effective["enable_fuzzing"]),
        )

        def body(conn: sqlite3.Connection) -> MergeReport:
            added = skipped = attempts_added = cards_added = settings_added = 0
            touched: set[str] = set()
            for question_id, rating, reviewed_at, duration_ms in reviews:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO reviews (question_id, rating, reviewed_at, duration_ms, card_after) "
                    "VALUES (?, ?, ?, ?, '')",
                    (question_id, int(rating), format_time(reviewed_at), _as_ms(duration_ms)),
                )
                if cursor.rowcount:
                    added += 1
                    touched.add(question_id)
                else:
                    skipped += 1
            for question_id in sorted(touched):
                self.replay(conn, question_id, scheduler)
            for question_id, correct, response, duration_ms, at in attempts:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO attempts (question_id, correct, response, duration_ms, attempted_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (
                        question_id,
                        None if correct is None else int(bool(correct)),
                        response,
                        _as_ms(duration_ms),
                        format_time(at),
                    ),
                )
                attempts_added += cursor.rowcount
            for question_id, card in (cards or {}).items():
                if conn.execute("SELECT 1 FROM cards WHERE question_id = ?", (question_id,)).fetchone():
                    continue
                if conn.execute("SELECT 1 FROM reviews WHERE question_id = ?", (question_id,)).fetchone():
                    continue
                _put_card(conn, question_id, card.to_json(), card)
                cards_added += 1
            for key, value in settings.items():
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)",
                    (key, json.dumps(value, ensure_ascii=False, sort_keys=True)),
                )
                settings_added += cursor.rowcount
            return MergeReport(added, skipped, len(touched), attempts_added, cards_added, settings_added)

        report = self._write(body)
        self.reload_settings()
        return report


# ---------------------------------------------------------------------------------------------------- helpers


def _put_card(conn: sqlite3.Connection, question_id: str, text: str, card: Card) -> None:
    conn.execute(
        "INSERT INTO cards (question_id, card_json, state, due, last_review, stability, difficulty) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(question_id) DO UPDATE SET card_json = excluded.card_json, "
        "state = excluded.state, due = excluded.due, last_review = excluded.last_review, "
        "stability = excluded.stability, difficulty = excluded.difficulty",
        (
            question_id,
            text,
            int(card.state),
            format_time(card.due),
            format_time(card.last_review) if card.last_review else None,
            card.stability,
            card.difficulty,
        ),
    )


def _instance_json(instance: dict[str, Any] | None) -> str | None:
    """A showing's {"seed", "params"} as compact JSON for the `instance` column (None stays NULL)."""
    if instance is None:
        return None
    return json.dumps({"seed": int(instance["seed"]), "params": dict(instance["params"])}, sort_keys=True)


def _as_ms(duration_ms: int | None) -> int | None:
    if duration_ms is None:
        return None
    return max(0, int(duration_ms))


def _parse_loose(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return parse_time(text)
    except ValueError:
        return None


def _split_sql(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]


SETTING_HELP: dict[str, str] = {
    "language": "interface language: en or zh (the app's `l` key also sets it)",
    "new_per_day": "new cards introduced per UTC day in Study, 0 to 9999",
    "desired_retention": "recall probability FSRS schedules for, 0.70 to 0.99 (higher: shorter intervals)",
    "keymap": 'key remaps as JSON {"binding id": "keys"}, e.g. {"posenc.study.undo": "z"} (ids: ? in the app)',
    "enable_fuzzing": "spread long intervals by a few days so cards learned together part: true or false",
    "instant_submit": "quiz: a single-choice or true/false key answers at once (else Space/Enter confirms)",
    "quiz_schedules": "quiz answers update the Study cards (a wrong answer makes the card due): true or false",
}

_TRUE_WORDS = ("true", "yes", "on", "1")
_FALSE_WORDS = ("false", "no", "off", "0")


def parse_setting_text(key: str, text: str) -> Any:
    """A setting typed on the command line (`posenc progress config KEY VALUE`), parsed and validated.

    Numbers and booleans are read as such; `keymap` takes a JSON object. ValueError with a one-line reason.
    """
    if key not in DEFAULT_SETTINGS:
        raise ValueError(f"unknown setting {key!r}; known: {', '.join(sorted(DEFAULT_SETTINGS))}")
    raw = text.strip()
    value: Any
    if key == "new_per_day":
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"new_per_day must be a whole number from 0 to 9999 (got {text!r})") from None
    elif key == "desired_retention":
        try:
            value = float(raw.rstrip("%")) / (100 if raw.endswith("%") else 1)
        except ValueError:
            raise ValueError(f"desired_retention must be a number from 0.70 to 0.99 (got {text!r})") from None
    elif key in ("enable_fuzzing", "instant_submit", "quiz_schedules"):
        if raw.lower() not in _TRUE_WORDS + _FALSE_WORDS:
            raise ValueError(f"{key} must be true or false (got {text!r})")
        value = raw.lower() in _TRUE_WORDS
    elif key == "keymap":
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise ValueError(
                f'keymap must be a JSON object such as \'{{"posenc.study.undo": "z"}}\' ({exc})'
            ) from None
    else:
        value = raw
    return validate_setting(key, value)


def validate_setting(key: str, value: Any) -> Any:
    """`value` checked (and normalized) for a known settings key; ValueError with a one-line reason."""
    if key == "language":
        if value not in ("en", "zh"):
            raise ValueError("language must be 'en' or 'zh'")
    elif key == "new_per_day":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 9999:
            raise ValueError("new_per_day must be a whole number from 0 to 9999")
    elif key == "desired_retention":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.7 <= float(value) <= 0.99:
            raise ValueError("desired_retention must be a number from 0.70 to 0.99")
        value = float(value)
    elif key == "keymap":
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and k.strip() and isinstance(v, str) and v.strip() for k, v in value.items()
        ):
            raise ValueError("keymap must map binding ids to non-empty key strings")
    elif key in ("enable_fuzzing", "instant_submit", "quiz_schedules"):
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        raise ValueError(f"setting {key} must be JSON-serializable") from None
    return value
