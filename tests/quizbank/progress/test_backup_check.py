"""Checks on a progress backup before it is imported (quizbank/progress/backup_check.py): every field is
validated before anything is written (exit 2, one line naming the record, never a value the store cannot
read back), and a store written before these checks existed still gives one line, not a traceback."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.export_bank import main, seeded_data_dir

from quizbank.progress.backup import BackupError, export_backup, import_backup, parse_backup
from quizbank.progress.store import open_store

pytestmark = pytest.mark.usefixtures("env")  # data and user banks in tmp_path (conftest)


def _backup(review: dict | None = None, **extra) -> dict:
    base = {
        "question_id": "q.one",
        "rating": 3,
        "reviewed_at": "2025-03-01T09:00:00+00:00",
        "duration_ms": 1000,
    }
    return {
        "format": "posenc-progress",
        "version": 1,
        "cards": [],
        "reviews": [{**base, **(review or {})}],
        **extra,
    }


def _import(tmp_path: Path, data: dict | str, capsys) -> tuple[int, str]:
    path = tmp_path / "backup.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    code = main(["--data-dir", str(tmp_path / "data"), "progress", "import", str(path)])
    return code, capsys.readouterr().err


def _store_still_reads(tmp_path: Path, capsys) -> dict:
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "export"]) == 0
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "stats"]) == 0
    out = capsys.readouterr().out
    return json.loads(out[: out.rindex("}") + 1])


@pytest.mark.parametrize(
    ("review", "where"),
    [
        ({"duration_ms": 2**70}, "reviews[0].duration_ms"),  # beyond SQLite's 64-bit integers
        ({"duration_ms": 86_400_001}, "reviews[0].duration_ms"),  # more than a day
        ({"duration_ms": -1}, "reviews[0].duration_ms"),
        ({"reviewed_at": "9999-12-31T23:59:59-05:00"}, "reviews[0].reviewed_at"),  # overflows at UTC
        ({"reviewed_at": "0001-01-01T00:00:00+01:00"}, "reviews[0].reviewed_at"),  # underflows at UTC
        ({"reviewed_at": "0999-06-01T00:00:00+00:00"}, "reviews[0].reviewed_at"),  # stored as '999-...'
        ({"reviewed_at": "2200-01-01T00:00:00+00:00"}, "reviews[0].reviewed_at"),
        ({"reviewed_at": "1969-12-31T23:59:59+00:00"}, "reviews[0].reviewed_at"),
        ({"question_id": "q\ud800"}, "reviews[0].question_id"),  # a lone surrogate
        ({"question_id": "q\x1b]0;x\x07"}, "reviews[0].question_id"),
        ({"question_id": "q" * 201}, "reviews[0].question_id"),
        ({"question_id": "a\nb"}, "reviews[0].question_id"),
        ({"rating": 5}, "reviews[0].rating"),
    ],
)
def test_bad_fields_exit_2_with_one_line_naming_the_record(tmp_path, capsys, review, where):
    code, err = _import(tmp_path, _backup(review), capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("posenc: error: malformed backup: ") and where in err
    assert "Traceback" not in err
    assert _store_still_reads(tmp_path, capsys)["reviews"] == []  # nothing was written


def test_edges_of_the_window_are_accepted(tmp_path, capsys):
    data = _backup({"duration_ms": 86_400_000, "reviewed_at": "1970-01-01T00:00:00+00:00"})
    data["reviews"].append(
        {"question_id": "q.two", "rating": 1, "reviewed_at": "2199-12-31T23:59:59+00:00", "duration_ms": 0}
    )
    code, err = _import(tmp_path, data, capsys)
    assert code == 0, err
    exported = _store_still_reads(tmp_path, capsys)
    assert [r["reviewed_at"][:4] for r in exported["reviews"]] == ["1970", "2199"]


@pytest.mark.parametrize(
    ("card", "where"),
    [
        ({"stability": 1e300}, "cards[0].stability"),
        ({"difficulty": 11.0}, "cards[0].difficulty"),
        ({"step": 2**63}, "cards[0].step"),
        ({"due": "0999-01-01T00:00:00+00:00"}, "cards[0].due"),
        ({"last_review": "9999-12-31T23:59:59-01:00"}, "cards[0].last_review"),
    ],
)
def test_bad_card_fields_are_refused(tmp_path, capsys, card, where):
    good = {"question_id": "c.one", "state": 2, "step": None, "stability": 3.0, "difficulty": 5.0}
    good |= {"due": "2025-03-05T00:00:00+00:00", "last_review": "2025-03-01T00:00:00+00:00"}
    data = {"format": "posenc-progress", "version": 1, "cards": [{**good, **card}], "reviews": []}
    code, err = _import(tmp_path, data, capsys)
    assert code == 2 and where in err and err.count("\n") == 1


def test_attempt_response_and_settings_are_checked(tmp_path, capsys):
    attempt = {
        "question_id": "q",
        "correct": True,
        "response": "x\ud800",
        "attempted_at": "2025-01-01T00:00:00Z",
    }
    code, err = _import(tmp_path, _backup(attempts=[attempt]), capsys)
    assert code == 2 and "attempts[0].response: contains U+D800 (lone surrogate)" in err
    code, err = _import(tmp_path, _backup(settings={"keymap": {"posenc.x": "\x1b[31m"}}), capsys)
    assert code == 2 and "settings.keymap['posenc.x']" in err and "\x1b" not in err


@pytest.mark.parametrize(
    ("own", "where"),
    [
        ({"question": "predict 0.5"}, "own_cards[0].question: must be an object"),
        ({"question": {"prompt": "\x1b[31m"}}, "own_cards[0].question.prompt: contains"),
        ({"topic": None}, "own_cards[0].topic"),
        ({"created_at": "yesterday"}, "own_cards[0].created_at"),
    ],
)
def test_bad_own_cards_are_refused(tmp_path, capsys, own, where):
    good = {"question_id": "predict.x.1", "topic": "alibi", "question": {"id": "predict.x.1"}}
    good["created_at"] = "2025-03-01T09:00:00+00:00"
    code, err = _import(tmp_path, _backup(version=2, own_cards=[{**good, **own}]), capsys)
    assert code == 2 and where in err and err.count("\n") == 1 and "\x1b" not in err


def test_deep_json_is_one_line_not_a_traceback(tmp_path, capsys):
    code, err = _import(tmp_path, "[" * 100_000 + "]" * 100_000, capsys)
    assert code == 2 and err.count("\n") == 1 and "nested too deeply" in err


def test_huge_file_is_refused_before_reading(tmp_path, capsys):
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:  # sparse: no disk used, and it is never read
        handle.truncate(257 * 1024 * 1024)
    code = main(["--data-dir", str(tmp_path / "data"), "progress", "import", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "over the 256 MiB limit for a backup" in err


REVIEW_TIMES = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
).flatmap(
    lambda moment: st.integers(-23 * 60, 23 * 60).map(
        lambda minutes: moment.replace(tzinfo=timezone(timedelta(minutes=minutes))).isoformat()
    )
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    at=REVIEW_TIMES,
    duration=st.one_of(st.none(), st.integers(-(2**64), 2**64)),
    qid=st.text(min_size=0, max_size=210),
)
def test_anything_accepted_can_be_read_back(tmp_path_factory, at, duration, qid):
    """Property: a backup is refused with BackupError, or imported into a store that then exports and
    re-parses it unchanged: never a crash, never a value the store cannot read back."""
    data = _backup({"reviewed_at": at, "duration_ms": duration, "question_id": qid})
    try:
        parse_backup(data)
    except BackupError as exc:
        assert len(str(exc).splitlines()) == 1
        return
    folder = tmp_path_factory.mktemp("prop")
    with open_store(folder) as store:
        import_backup(store, data)
        exported = export_backup(store)
    again = parse_backup(json.loads(json.dumps(exported)))
    assert len(again.reviews) == 1 and again.reviews[0][0] == qid and again.reviews[0][3] == duration


# ---------------------------------------------------------------------------------------------------- a store written before these checks


def test_a_store_broken_by_an_older_posenc_gives_one_line(tmp_path, capsys):
    """Before the import checks, a year-0999 review was stored as '999-...'; reading it must not crash."""
    import sqlite3

    data = seeded_data_dir(tmp_path)
    conn = sqlite3.connect(data / "progress.db")
    with conn:
        conn.execute("UPDATE reviews SET reviewed_at = '999-06-01T00:00:00.000000+00:00'")
    conn.close()
    for action in ("export", "stats"):
        assert main(["--data-dir", str(data), "progress", action]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "progress store holds an unreadable value" in err
