"""Attempts: quiz answers (auto- or self-graded; they feed stats and never schedule by themselves) and graded
coding-drill runs (the first pass creates the drill's Study card)."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from typing import Any

from quizbank.progress.cards import put_card
from quizbank.progress.connection import StoreConnection
from quizbank.progress.records import (
    DRILL_CARD_PREFIX,
    AttemptRow,
    DrillAttemptRow,
    as_ms,
    format_time,
    instance_json,
    parse_time,
)
from quizbank.progress.scheduler import new_card, to_utc

__all__ = ["AttemptsTable"]


class AttemptsTable(StoreConnection):
    """The `attempts` and `drill_attempts` tables."""

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
        shown = instance_json(instance)

        def body(conn: sqlite3.Connection) -> None:
            stamp = when
            while True:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO attempts (question_id, correct, response, duration_ms, attempted_at, "
                    "instance) VALUES (?, ?, ?, ?, ?, ?)",
                    (question_id, flag, str(response), as_ms(duration_ms), format_time(stamp), shown),
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

        row = (drill, int(bool(passed)), int(cases_passed), int(cases_total), as_ms(elapsed_ms))

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
            put_card(conn, card_id, card.to_json(), card)
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

    def last_results(self) -> dict[str, bool]:
        """{question id: whether its latest auto- or self-graded attempt was right} (graded attempts only)."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT question_id, correct FROM attempts WHERE correct IS NOT NULL ORDER BY attempted_at, id"
            ).fetchall()
        )
        return {qid: bool(ok) for qid, ok in rows}
