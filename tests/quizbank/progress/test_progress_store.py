"""The progress store: opening, schema, settings, attempts, queue, summary, orphans, corrupt and bad folders."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
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
    parse_setting_text,
    parse_time,
    validate_setting,
)
from tui.i18n import tr

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


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
    with pytest.raises(ValueError, match="must be timezone-aware"):
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
        with pytest.raises(ValueError, match=f"^{key} must be "):
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
    assert summary["alpha"].mastery == pytest.approx((r1 + r2 + 0.0) / 3)  # a3 is unseen: counts as 0
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


UNPRIVILEGED_UID = 65534  # "nobody"


def _as_unprivileged_user(action) -> str:
    """Run `action()` (returning a str) where file permissions are enforced, and return its result, or
    "raised <Type>: <message>" if it raised.

    As root (who ignores permission bits) it runs in a forked child that has dropped to uid/gid 65534;
    otherwise in this process.
    """

    def outcome() -> str:
        try:
            return action()
        except Exception as exc:  # noqa: BLE001 - the test reports whatever it raised
            return f"raised {type(exc).__name__}: {exc}"

    if os.geteuid() != 0:
        return outcome()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: drop root, run, report through the pipe
        code = 0
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(UNPRIVILEGED_UID)
            os.setuid(UNPRIVILEGED_UID)
            os.write(write_end, outcome().encode())
        except BaseException:  # noqa: BLE001 - a child's exit code says it failed
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return b"".join(chunks).decode()


@pytest.fixture
def shared_tmp():
    """A temporary folder that uid 65534 can traverse (pytest's tmp_path lives under a 0700 folder)."""
    folder = Path(tempfile.mkdtemp(prefix="posenc-ro-"))
    folder.chmod(0o755)
    yield folder
    for path in folder.rglob("*"):
        if path.is_dir():
            path.chmod(0o700)
    shutil.rmtree(folder, ignore_errors=True)


def _open_and_describe(folder: Path):
    def action() -> str:
        with open_store(folder) as s:
            return f"opened {s.path}"

    return action


def test_read_only_data_dir_gives_clear_message(shared_tmp):
    folder = shared_tmp / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    result = _as_unprivileged_user(_open_and_describe(folder))
    assert result == (
        f"raised StoreError: data directory {folder} is not writable; "
        "choose another folder with --data-dir DIR or POSENC_DATA_DIR"
    )
    result = _as_unprivileged_user(_open_and_describe(folder / "sub"))
    assert result.startswith(f"raised StoreError: cannot create data directory {folder / 'sub'}: ")
    assert "Permission denied" in result and "\n" not in result


def test_read_only_store_file_gives_clear_message_before_any_review(shared_tmp):
    """A progress.db this user cannot write would open for reading and lose the first rating: refused."""
    folder = shared_tmp / "data"
    with open_store(folder) as s:
        s.review("q1", Rating.Good, T0)
    folder.chmod(0o777)  # the folder is writable, the file is not
    db = folder / DB_NAME
    for side in ("-wal", "-shm"):
        (folder / (DB_NAME + side)).unlink(missing_ok=True)
    db.chmod(0o444)
    result = _as_unprivileged_user(_open_and_describe(folder))
    assert result == (
        f"raised StoreError: progress store file {db} is read-only for this user; make it writable "
        "(chmod u+rw) or choose another folder with --data-dir DIR or POSENC_DATA_DIR"
    )
    db.chmod(0o644)
    with open_store(folder) as s:  # nothing was lost or moved aside
        assert s.review_count() == 1 and s.notices == []


def test_missing_tables_in_a_current_store_are_moved_aside(tmp_path):
    with open_store(tmp_path) as s:
        s.review("q1", Rating.Good, T0)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("DROP TABLE reviews")
    conn.commit()
    conn.close()
    with open_store(tmp_path) as s:
        assert s.review_count() == 0
        assert len(s.notices) == 1 and "tables missing: reviews" in s.notices[0]
    assert len(list(tmp_path.glob(f"{DB_NAME}.corrupt-*"))) == 1


def test_migrations_upgrade_an_old_store_and_keep_its_history(tmp_path, monkeypatch):
    from quizbank.progress import migrations as store_module

    with open_store(tmp_path) as s:
        s.review("q1", Rating.Good, T0)
        s.set_setting("new_per_day", 7)
    step = "ALTER TABLE reviews ADD COLUMN device TEXT; CREATE INDEX reviews_device ON reviews (device)"
    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, step))
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with open_store(tmp_path) as s:
        assert s.schema_version == SCHEMA_VERSION + 1
        assert s.review_count() == 1 and s.get_setting("new_per_day") == 7
        columns = [row[1] for row in s._read(lambda c: c.execute("PRAGMA table_info(reviews)").fetchall())]
        assert columns[-1] == "device"
    with open_store(tmp_path) as s:  # not run twice
        assert s.schema_version == SCHEMA_VERSION + 1


def test_a_failing_migration_leaves_the_file_unchanged(tmp_path, monkeypatch):
    from quizbank.progress import migrations as store_module

    with open_store(tmp_path) as s:
        s.review("q1", Rating.Good, T0)
    broken = "ALTER TABLE reviews ADD COLUMN device TEXT; ALTER TABLE no_such_table ADD COLUMN x TEXT"
    monkeypatch.setattr(store_module, "MIGRATIONS", (*store_module.MIGRATIONS, broken))
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError) as info:
        open_store(tmp_path)
    message = str(info.value)
    assert f"from schema version {SCHEMA_VERSION} to {SCHEMA_VERSION + 1}" in message
    assert "no such table: no_such_table" in message and "left unchanged" in message
    monkeypatch.undo()
    with open_store(tmp_path) as s:
        assert s.schema_version == SCHEMA_VERSION and s.review_count() == 1 and s.notices == []
        columns = [row[1] for row in s._read(lambda c: c.execute("PRAGMA table_info(reviews)").fetchall())]
        assert "device" not in columns
    assert list(tmp_path.glob(f"{DB_NAME}.corrupt-*")) == []


def test_reset_setting_and_parse_setting_text(store):
    store.set_setting("new_per_day", 5)
    assert store.reset_setting("new_per_day") is True
    assert store.get_setting("new_per_day") == 20 and "new_per_day" not in store.stored_settings()
    assert store.reset_setting("new_per_day") is False
    assert parse_setting_text("new_per_day", " 12 ") == 12
    assert parse_setting_text("desired_retention", "0.85") == 0.85
    assert parse_setting_text("desired_retention", "92%") == pytest.approx(0.92)
    assert parse_setting_text("enable_fuzzing", "off") is False
    assert parse_setting_text("enable_fuzzing", "Yes") is True
    assert parse_setting_text("language", "zh") == "zh"
    assert parse_setting_text("keymap", '{"posenc.study.undo": "z"}') == {"posenc.study.undo": "z"}
    for key, text, reason in [
        ("new_per_day", "ten", "whole number"),
        ("new_per_day", "-1", "whole number"),
        ("desired_retention", "0.5", "0.70 to 0.99"),
        ("desired_retention", "high", "0.70 to 0.99"),
        ("enable_fuzzing", "maybe", "true or false"),
        ("language", "fr", "'en' or 'zh'"),
        ("keymap", "[1]", "binding ids"),
        ("keymap", '{"posenc.next": ""}', "non-empty"),
        ("keymap", "{oops", "JSON object"),
        ("colour", "red", "unknown setting 'colour'"),
    ]:
        with pytest.raises(ValueError, match=reason):
            parse_setting_text(key, text)


def test_last_attempt_is_the_latest_graded_one_since(store):
    store.record_attempt("q1", False, "A", 100, T0)
    store.record_attempt("q1", True, "B", 100, T0 + timedelta(hours=1))
    store.record_attempt("q1", None, "", 100, T0 + timedelta(hours=2))  # self-graded: not a hint
    store.record_attempt("q2", False, "A", 100, T0 + timedelta(hours=3))
    latest = store.last_attempt("q1")
    assert (latest.correct, latest.response, latest.attempted_at) == (True, "B", T0 + timedelta(hours=1))
    assert store.last_attempt("q1", since=T0 + timedelta(minutes=90)) is None
    assert store.last_attempt("q3") is None


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
        except Exception as exc:  # pragma: no cover - reported below  # noqa: BLE001
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == [] and store.review_count() == 1


def test_env_data_dir_is_used_by_open_store(monkeypatch, tmp_path):
    monkeypatch.setenv("POSENC_DATA_DIR", os.fspath(tmp_path / "envdir"))
    with open_store() as s:
        assert s.path == tmp_path / "envdir" / DB_NAME


def test_mastery_counts_unseen_questions_as_not_mastered(tmp_path: Path) -> None:
    from quizbank.progress.scheduler import Rating
    from quizbank.progress.store import open_store

    t0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    with open_store(tmp_path / "data") as store:
        store.review("a", Rating.Good, t0)
        now = t0 + timedelta(minutes=5)
        r = store.scheduler.get_card_retrievability(store.card("a"), now)
        summary = store.topic_summary({"t": ["a"] + [f"new{i}" for i in range(19)], "u": ["x"]}, now)
    assert summary["t"].studied == 1 and summary["t"].new == 19
    assert summary["t"].mastery == pytest.approx(r / 20)  # not r (= 100% after one card)
    assert summary["u"].mastery is None  # nothing studied yet
    assert "unseen" in tr("home.mastery_means", "en") and "没学过" in tr("home.mastery_means", "zh")


def test_quiz_settings_are_validated() -> None:
    assert parse_setting_text("instant_submit", "yes") is True
    assert parse_setting_text("quiz_schedules", "off") is False
    with pytest.raises(ValueError, match="instant_submit must be true or false"):
        validate_setting("instant_submit", "yes")
