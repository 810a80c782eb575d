"""Own cards: Study cards the user made that no bank file holds (the Demo lab's predictions).

Each row keeps the card's question as JSON, written by the feature that made it (`quizbank.predictions`);
the store does not read it. The card's schedule and reviews live in `cards` and `reviews` under the same id,
like any question's.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from quizbank.progress.connection import StoreConnection
from quizbank.progress.records import format_time, parse_time
from quizbank.progress.scheduler import to_utc

__all__ = ["OwnCardsTable", "question_text"]


def question_text(question: dict[str, Any]) -> str:
    """A card's question as the store keeps it: one JSON text for one object, whoever writes it."""
    return json.dumps(question, ensure_ascii=False, sort_keys=True)


class OwnCardsTable(StoreConnection):
    """The `own_cards` table."""

    def add_own_cards(self, cards: Iterable[tuple[str, str, str]], now: datetime | None = None) -> int:
        """Add (question id, topic, question JSON) rows in one transaction; an id already there is left as it
        is. Returns how many were added."""
        stamp = format_time(to_utc(now))
        rows = list(cards)

        def body(conn: sqlite3.Connection) -> int:
            added = 0
            for question_id, topic, text in rows:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO own_cards (question_id, topic, question_json, created_at) "
                    "VALUES (?, ?, ?, ?)",
                    (question_id, topic, text, stamp),
                )
                added += cursor.rowcount
            return added

        return self._write(body)

    def own_card_ids(self, topic: str | None = None) -> list[str]:
        """The own cards' ids, oldest first; only those of `topic` unless it is None."""
        query = "SELECT question_id FROM own_cards"
        params: tuple[str, ...] = ()
        if topic is not None:
            query += " WHERE topic = ?"
            params = (topic,)
        rows = self._read(lambda c: c.execute(query + " ORDER BY created_at, question_id", params).fetchall())
        return [row[0] for row in rows]

    def own_card(self, question_id: str) -> str | None:
        """The question JSON of own card `question_id`, or None when there is no such card."""
        row = self._read(
            lambda c: c.execute(
                "SELECT question_json FROM own_cards WHERE question_id = ?", (question_id,)
            ).fetchone()
        )
        return row[0] if row else None

    def own_card_rows(self) -> list[tuple[str, str, str, datetime]]:
        """Every own card as stored: (question id, topic, question JSON, created at), by question id."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT question_id, topic, question_json, created_at FROM own_cards ORDER BY question_id"
            ).fetchall()
        )
        return [(qid, topic, text, parse_time(at)) for qid, topic, text, at in rows]
