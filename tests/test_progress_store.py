"""The progress store: opening, schema, settings, attempts, queue, summary, orphans, corrupt and bad folders."""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizbank.progress.scheduler import Rating
from quizbank.progress.store import (
    DB_NAME,
    SCHEMA_VERSION,
    StoreError,
    default_data_dir,
    format_time,
    open_store,
    parse_time,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "data")
    s.set_setting("enable_fuzzing", False)
    yield s
    s.close()


def test_open_creates_folder_wal_and_schema(tmp_path):
    folder = tmp_path / "a" / "b"
    with open_store(folder) as s:
        assert s.path == folder / DB_NAME
        assert s.path.exists()
        assert s.schema_version == SCHEMA_VERSION
        assert s.notices == []
    conn = sqlite3.connect(folder / DB_NAME)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"settings", "cards", "reviews", "attempts"} <= tables
    conn.close()


def test_reopen_keeps_data_and_does_not_rerun_migrations(tmp_path):
    with open_store(tmp_path) as s:
        s.review("q1", Rating.Good, T0)
    with open_store(tmp_path) as s:
        assert s.review_count() == 1
        assert s.schema_version == SCHEMA_VERSION


def test_default_data_dir_honours_env(monkeypatch, tmp_path):
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "x"))
    assert default_data_dir() == tmp_path / "x"
    monkeypatch.delenv("POSENC_DATA_DIR")
    assert default_data_dir().name == "posenc"


def test_time_format_sorts_as_text_and_round_trips():
    a = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    b = a + timedelta(microseconds=1)
    assert format_time(a) == "2025-01-02T03:04:05.000000+00:00"
    assert format_time(a) < format_time(b)
    assert parse_time(format_time(b)) == b
    with pytest.raises(ValueError):
        format_time(datetime(2025, 1, 1))  # naive


def test_settings_defaults_round_trip_and_validation(store, tmp_path):
    assert store.get_setting("new_per_day") == 20
    assert store.get_setting("desired_retention") == 0.9
    assert store.get_setting("language") == "en"
    assert store.get_setting("keymap") == {}
    assert store.get_setting("unknown", "fallback") == "fallback"
    store.set_setting("language", "zh")
    store.set_setting("new_per_day", 5)
    store.set_setting("keymap", {"rate_good": "g"})
    store.set_setting("desired_retention", 0.85)
    for key, bad in [
        ("language", "fr"),
        ("new_per_day", -1),
        ("new_per_day", True),
        ("desired_retention", 2),
    ]:
        with pytest.raises(ValueError):
            store.set_setting(key, bad)
    store.close()
    with open_store(tmp_path / "data") as again:
        assert again.get_setting("language") == "zh"
        assert again.get_setting("new_per_day") == 5
        assert again.get_setting("keymap") == {"rate_good": "g"}
        assert again.get_setting("desired_retention") == 0.85
        assert again.scheduler.desired_retention == 0.85


def test_record_attempt_stores_rows_and_never_schedules(store):
    store.record_attempt("q1", True, "B", 1200, T0)
    store.record_attempt("q1", False, "B", 900, T0)  # same instant and response: both kept
    store.record_attempt("q2", None, "", 0, T0 + timedelta(seconds=1))
    rows = store.attempts()
    assert [(r.question_id, r.correct, r.response, r.duration_ms) for r in rows] == [
        ("q1", True, "B", 1200),
        ("q1", False, "B", 900),
        ("q2", None, "", 0),
    ]
    assert rows[1].attempted_at == T0 + timedelta(microseconds=1)
    assert store.card("q1") is None and store.review_count() == 0


def test_study_queue_due_first_then_new_limited_per_day(store):
    ids = [f"q{i}" for i in range(8)]
    # Introduce q0..q2 yesterday; rate Easy so they become due on different days.
    yesterday = T0 - timedelta(days=1)
    for qid in ("q0", "q1", "q2"):
        store.review(qid, Rating.Good, yesterday)
    store.review("q1", Rating.Good, yesterday + timedelta(minutes=10))  # graduates: due in days
    queue = store.study_queue(ids, T0, new_per_day=3)
    # q0 and q2 are in learning (due 10 min after yesterday's review): due now, oldest first.
    assert queue.due == ["q0", "q2"]
    assert queue.new == ["q3", "q4", "q5"]
    assert queue.ids == ["q0", "q2", "q3", "q4", "q5"]
    assert len(queue) == 5
    # Two new cards introduced today leave one slot.
    store.review("q3", Rating.Good, T0)
    store.review("q4", Rating.Again, T0)
    queue = store.study_queue(ids, T0 + timedelta(seconds=1), new_per_day=3)
    assert queue.new == ["q5"] and queue.new_left_today == 1
    # Learning cards due within the learn-ahead window are included.
    ahead = store.study_queue(
        ids, T0 + timedelta(seconds=1), new_per_day=3, learn_ahead=timedelta(minutes=20)
    )
    assert set(ahead.due) == {"q0", "q2", "q3", "q4"}
    # The next UTC day has a fresh allowance; the setting is the default limit.
    store.set_setting("new_per_day", 2)
    tomorrow = store.study_queue(ids, T0 + timedelta(days=1), new_per_day=None)
    assert tomorrow.new == ["q5", "q6"]


def test_topic_summary_counts_and_mastery(store):
    store.review("a1", Rating.Good, T0)
    store.review("a1", Rating.Good, T0 + timedelta(minutes=10))  # review state, due in ~2 days
    store.review("a2", Rating.Again, T0)  # learning, due in 1 minute
    topics = {"alpha": ["a1", "a2", "a3"], "beta": ["b1"], "empty": []}
    now = T0 + timedelta(hours=1)
    summary = store.topic_summary(topics, now)
    assert summary["alpha"].due == 1 and summary["alpha"].new == 1 and summary["alpha"].studied == 2
    r1 = store.scheduler.get_card_retrievability(store.card("a1"), now)
    r2 = store.scheduler.get_card_retrievability(store.card("a2"), now)
    assert summary["alpha"].mastery == pytest.approx((r1 + r2) / 2)
    assert summary["beta"].mastery is None and summary["beta"].new == 1
    assert summary["empty"].studied == 0 and summary["empty"].mastery is None


def test_orphans_list_history_without_question(store):
    store.review("gone.one", Rating.Good, T0)
    store.record_attempt("gone.two", True, "x", 10, T0 + timedelta(days=1))
    store.review("kept", Rating.Good, T0)
    orphans = store.orphans(["kept"])
    assert [(o.question_id, o.reviews, o.attempts) for o in orphans] == [
        ("gone.one", 1, 0),
        ("gone.two", 0, 1),
    ]
    assert orphans[1].last_activity == T0 + timedelta(days=1)


def test_newer_schema_is_refused(tmp_path):
    with open_store(tmp_path):
        pass
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        open_store(tmp_path)


def test_garbage_file_is_moved_aside_and_fresh_store_starts(tmp_path):
    (tmp_path / DB_NAME).write_bytes(b"this is not sqlite at all\n" * 200)
    with open_store(tmp_path) as s:
        assert len(s.notices) == 1 and "moved to progress.db.corrupt-" in s.notices[0]
        s.review("q", Rating.Good, T0)
        assert s.review_count() == 1
    aside = sorted(tmp_path.glob(f"{DB_NAME}.corrupt-*"))
    assert len(aside) == 1
    assert aside[0].read_bytes().startswith(b"this is not sqlite")


def test_damaged_sqlite_file_is_moved_aside(tmp_path):
    with open_store(tmp_path) as s:
        for i in range(200):
            s.record_attempt(f"q{i}", True, "x" * 200, 1, T0)
    raw = bytearray((tmp_path / DB_NAME).read_bytes())
    assert raw.startswith(b"SQLite format 3")
    raw[4096:12288] = b"\xff" * 8192  # overwrite pages 2 and 3
    (tmp_path / DB_NAME).write_bytes(bytes(raw))
    with open_store(tmp_path) as s:
        assert s.notices and "could not be read" in s.notices[0]
        assert s.attempts() == []
    assert len(list(tmp_path.glob(f"{DB_NAME}.corrupt-*"))) == 1


def test_foreign_sqlite_file_is_moved_aside(tmp_path):
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("CREATE TABLE photos (id INTEGER)")
    conn.commit()
    conn.close()
    with open_store(tmp_path) as s:
        assert "another program" in s.notices[0]
    assert len(list(tmp_path.glob(f"{DB_NAME}.corrupt-*"))) == 1


def test_uncreatable_data_dir_gives_one_line_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError) as info:
        open_store(blocker / "sub")
    assert "cannot create data directory" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(StoreError, match="not a folder"):
        open_store(blocker)


def _chmod_is_enforced(folder: Path) -> bool:
    probe = folder / "probe"
    folder.chmod(0o500)
    try:
        probe.write_text("x")
    except OSError:
        return True
    finally:
        folder.chmod(0o700)
    probe.unlink()
    return False


def test_read_only_data_dir_gives_clear_message(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    if not _chmod_is_enforced(folder):
        pytest.skip("running with privileges that ignore directory permissions (root)")
    folder.chmod(0o500)
    try:
        with pytest.raises(StoreError) as info:
            open_store(folder)
        assert "not writable" in str(info.value) and "--data-dir" in str(info.value)
    finally:
        folder.chmod(0o700)


def test_settings_table_holds_json(store):
    store.set_setting("keymap", {"undo": "z"})
    conn = sqlite3.connect(store.path)
    value = conn.execute("SELECT value FROM settings WHERE key = 'keymap'").fetchone()[0]
    conn.close()
    assert json.loads(value) == {"undo": "z"}


def test_store_is_usable_from_another_thread(store):
    import threading

    errors = []

    def work():
        try:
            store.review("threaded", Rating.Good, T0)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == [] and store.review_count() == 1


def test_env_data_dir_is_used_by_open_store(monkeypatch, tmp_path):
    monkeypatch.setenv("POSENC_DATA_DIR", os.fspath(tmp_path / "envdir"))
    with open_store() as s:
        assert s.path == tmp_path / "envdir" / DB_NAME
