"""Typed answers: what the candidate typed to an open question (in Quiz, Study or a mock interview), kept with
the judge's verdict and the candidate's mark for every key point, so that a question's history shows how the
explanation changed from one try to the next.

Each row is identified by (question id, time, answer); importing a backup adds the rows this store lacks.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from quizbank.progress.connection import StoreConnection
from quizbank.progress.records import (
    POINT_STATES,
    TYPED_SOURCES,
    PointMark,
    TypedAnswer,
    format_time,
    parse_time,
)
from quizbank.progress.scheduler import to_utc

__all__ = ["TypedAnswersTable", "insert_typed_answer", "point_marks"]


def point_marks(verdicts: Iterable[Any], marks: Iterable[str]) -> tuple[PointMark, ...]:
    """PointMarks from the judge's verdicts (`quizbank.judge.PointVerdict`, or anything with `verdict`,
    `evidence`, `rule`) and the candidate's marks, point by point."""
    out = []
    for verdict, mark in zip(verdicts, marks, strict=True):
        out.append(
            PointMark(
                str(verdict.verdict), str(mark), str(getattr(verdict, "evidence", "") or ""),
                str(getattr(verdict, "rule", "") or ""),
            )
        )  # fmt: skip
    return tuple(out)


def _points_json(points: Iterable[PointMark]) -> str:
    return json.dumps([point.as_dict() for point in points], ensure_ascii=False, sort_keys=True)


def _parse_points(text: str) -> tuple[PointMark, ...]:
    """The `points_json` column read back; an entry no posenc wrote reads as not found."""
    try:
        items = json.loads(text)
    except ValueError:
        return ()
    out = []
    for item in items if isinstance(items, list) else []:
        item = item if isinstance(item, dict) else {}
        verdict = item.get("verdict") if item.get("verdict") in POINT_STATES else "not_found"
        mark = item.get("mark") if item.get("mark") in POINT_STATES else verdict
        out.append(
            PointMark(str(verdict), str(mark), str(item.get("evidence") or ""), str(item.get("rule") or ""))
        )
    return tuple(out)


def _check(answer: TypedAnswer) -> None:
    if answer.source not in TYPED_SOURCES:
        raise ValueError(
            f"typed answer source must be one of {', '.join(TYPED_SOURCES)} (got {answer.source!r})"
        )
    for point in answer.points:
        if point.verdict not in POINT_STATES or point.mark not in POINT_STATES:
            raise ValueError(f"key point verdicts and marks are one of {', '.join(POINT_STATES)}")
    if not answer.answer.strip():
        raise ValueError("a typed answer must not be empty")


def insert_typed_answer(conn: sqlite3.Connection, answer: TypedAnswer) -> int:
    """Add one row inside the caller's write transaction unless (question id, time, answer) is there: 1 or 0."""
    return conn.execute(
        "INSERT OR IGNORE INTO typed_answers (question_id, answered_at, source, answer, points_json) "
        "VALUES (?, ?, ?, ?, ?)",
        (answer.question_id, format_time(answer.answered_at), answer.source, answer.answer,
         _points_json(answer.points)),
    ).rowcount  # fmt: skip


class TypedAnswersTable(StoreConnection):
    """The `typed_answers` table."""

    def record_typed_answer(
        self,
        question_id: str,
        answer: str,
        points: Iterable[PointMark],
        source: str,
        at: datetime | None = None,
    ) -> TypedAnswer:
        """Keep an answer typed to an open question with its key points' verdicts and marks (`point_marks`).
        `source`: "quiz", "study" or "mock". Returns the row as stored (its time moves on by a microsecond
        when the same answer to the same question was kept at the same instant). ValueError on a bad
        source, verdict or mark, or an empty answer."""
        typed = TypedAnswer(question_id, to_utc(at), source, str(answer), tuple(points))
        _check(typed)

        def body(conn: sqlite3.Connection) -> TypedAnswer:
            row = typed
            while not insert_typed_answer(conn, row):
                row = TypedAnswer(row.question_id, row.answered_at + timedelta(microseconds=1), row.source,
                                  row.answer, row.points)  # fmt: skip
            return row

        return self._write(body)

    def typed_answers(self, question_id: str | None = None) -> list[TypedAnswer]:
        """Typed answers, oldest first: one question's, or every question's."""
        query = "SELECT question_id, answered_at, source, answer, points_json FROM typed_answers"
        params: tuple[Any, ...] = ()
        if question_id is not None:
            query += " WHERE question_id = ?"
            params = (question_id,)
        rows = self._read(lambda c: c.execute(query + " ORDER BY answered_at, id", params).fetchall())
        return [
            TypedAnswer(qid, parse_time(at), source, text, _parse_points(points))
            for qid, at, source, text, points in rows
        ]
