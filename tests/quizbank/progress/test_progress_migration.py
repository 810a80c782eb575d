"""A store written by the first schema version opens under the current one with its history intact."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from quizbank.progress.store import DB_NAME, MIGRATIONS, REQUIRED_TABLES, SCHEMA_VERSION, open_store


def _write_version_one_store(folder) -> None:
    folder.mkdir(parents=True)
    conn = sqlite3.connect(folder / DB_NAME)
    conn.executescript(MIGRATIONS[0])
    conn.execute(
        "INSERT INTO attempts (question_id, correct, response, duration_ms, attempted_at) VALUES (?, ?, ?, ?, ?)",
        ("rope.basics", 1, "b", 1200, "2026-01-02T03:04:05.000000Z"),
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def test_version_one_store_migrates_to_current_and_keeps_attempts(tmp_path):
    folder = tmp_path / "data"
    _write_version_one_store(folder)
    with open_store(folder) as store:
        assert store.schema_version == SCHEMA_VERSION >= 2
        assert store.notices == []  # migrated, not moved aside as corrupt
        rows = store.attempts(since=datetime(2026, 1, 1, tzinfo=UTC))
        assert [(r.question_id, r.correct) for r in rows] == [("rope.basics", True)]
    conn = sqlite3.connect(folder / DB_NAME)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    assert tables >= REQUIRED_TABLES
    assert {"drill_attempts", "mock_sessions", "question_marks"} <= tables
