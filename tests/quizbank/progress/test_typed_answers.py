"""Typed answers to open questions: kept with the judge's verdict and the candidate's mark per key point, read
back oldest first, moved with merged-away ids, and added by a migration to a store of the previous schema."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from quizbank.judge import judge_answer
from quizbank.progress.migrations import MIGRATIONS
from quizbank.progress.records import PointMark
from quizbank.progress.store import DB_NAME, SCHEMA_VERSION, open_store
from quizbank.progress.typed_answers import point_marks

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


class _Point:
    """A key point as the judge reads it (a schema KeyPoint has these fields)."""

    def __init__(self, en: str, accept: list[str]) -> None:
        self.en, self.zh, self.accept, self.match, self.misconceptions = en, None, accept, [], []


POINTS = [_Point("RoPE rotates q and k", ["rotate q k"]), _Point("V is never rotated", ["v not rotate"])]


def test_an_answer_is_kept_with_its_verdicts_and_marks_and_read_back_in_order(tmp_path) -> None:
    first = "RoPE rotates q and k by the position angle."
    verdicts = judge_answer(POINTS, first)
    assert [v.verdict for v in verdicts] == ["covered", "not_found"]
    with open_store(tmp_path) as store:
        kept = store.record_typed_answer(
            "q.rope", first, point_marks(verdicts, ["covered", "not_found"]), "quiz", T0
        )
        assert kept.answered_at == T0 and kept.covered == 1
        later = "It rotates q and k; v is not rotated at all."
        store.record_typed_answer(
            "q.rope", later, point_marks(judge_answer(POINTS, later), ["covered", "covered"]), "study",
            T0 + timedelta(days=3),
        )  # fmt: skip
        store.record_typed_answer("q.other", "x", (), "mock", T0 + timedelta(days=1))
        rows = store.typed_answers("q.rope")
    assert [(r.source, r.answer, r.covered, len(r.points)) for r in rows] == [
        ("quiz", first, 1, 2),
        ("study", later, 2, 2),
    ]
    assert rows[0].points[0].verdict == "covered" and rows[0].points[0].rule == "accept: rotate q k"
    assert rows[0].points[0].evidence == first
    assert rows[1].points[1] == PointMark(
        "covered", "covered", "v is not rotated at all.", "accept: v not rotate"
    )


def test_the_same_answer_at_the_same_instant_is_kept_twice_a_microsecond_apart(tmp_path) -> None:
    with open_store(tmp_path) as store:
        a = store.record_typed_answer("q", "same", (), "quiz", T0)
        b = store.record_typed_answer("q", "same", (), "quiz", T0)
        assert b.answered_at - a.answered_at == timedelta(microseconds=1)
        assert len(store.typed_answers()) == 2


@pytest.mark.parametrize(
    ("answer", "points", "source", "message"),
    [
        ("a", (), "exam", "source must be one of quiz, study, mock"),
        ("  ", (), "quiz", "must not be empty"),
        ("a", (PointMark("covered", "maybe"),), "quiz", "verdicts and marks are one of"),
    ],
)
def test_bad_rows_are_refused_before_anything_is_written(tmp_path, answer, points, source, message) -> None:
    with open_store(tmp_path) as store:
        with pytest.raises(ValueError, match=message):
            store.record_typed_answer("q", answer, points, source, T0)
        assert store.typed_answers() == []


def test_typed_answers_move_with_a_merged_away_id(tmp_path) -> None:
    with open_store(tmp_path) as store:
        store.record_typed_answer("q.old", "before the merge", (), "quiz", T0)
        assert store.migrate_replaced_ids({"q.old": "q.new"}) == 1
        assert [(t.question_id, t.answer) for t in store.typed_answers()] == [("q.new", "before the merge")]


def test_a_store_of_the_previous_schema_gains_the_table_and_keeps_its_rows(tmp_path) -> None:
    version = MIGRATIONS.index(next(m for m in MIGRATIONS if "CREATE TABLE typed_answers" in m))
    conn = sqlite3.connect(tmp_path / DB_NAME)
    for script in MIGRATIONS[:version]:
        conn.executescript(script)
    conn.execute(
        "INSERT INTO attempts (question_id, correct, response, duration_ms, attempted_at) VALUES (?, ?, ?, ?, ?)",
        ("q", None, "typed long ago", 10, "2025-01-01T00:00:00.000000+00:00"),
    )
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    with open_store(tmp_path) as store:
        assert store.schema_version == SCHEMA_VERSION and store.notices == []
        assert [a.response for a in store.attempts()] == ["typed long ago"]
        store.record_typed_answer("q", "now kept", (), "study", T0)
        assert [t.answer for t in store.typed_answers("q")] == ["now kept"]
