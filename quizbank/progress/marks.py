"""Question marks: a flag and a free-text note per question, set from any screen that shows a question."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from quizbank.progress.connection import StoreConnection
from quizbank.progress.records import format_time, parse_time

__all__ = ["MarksTable"]


class MarksTable(StoreConnection):
    """The `question_marks` table."""

    def question_marks(self) -> dict[str, tuple[bool, str]]:
        """{question id: (flagged, note)} for every question with a flag or a note."""
        rows = self._read(
            lambda c: c.execute("SELECT question_id, flagged, note FROM question_marks").fetchall()
        )
        return {qid: (bool(flagged), note) for qid, flagged, note in rows if flagged or note}

    def mark_rows(self) -> list[tuple[str, bool, str, datetime]]:
        """Every mark row, cleared ones too: (question id, flagged, note, updated at), by question id."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT question_id, flagged, note, updated_at FROM question_marks ORDER BY question_id"
            ).fetchall()
        )
        return [(qid, bool(flagged), note, parse_time(at)) for qid, flagged, note, at in rows]

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
