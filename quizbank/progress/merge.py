"""History maintenance across tables: orphaned ids, moving history from merged-away question ids, and merging a
validated backup in one transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from quizbank.progress.cards import CardsTable, put_card
from quizbank.progress.records import DRILL_CARD_PREFIX, MergeReport, Orphan, as_ms, format_time, parse_loose
from quizbank.progress.scheduler import Card, SeededScheduler
from quizbank.progress.settings import DEFAULT_SETTINGS, validate_setting

__all__ = ["MergeTable"]


class MergeTable(CardsTable):
    """Operations that span the cards, reviews, attempts and marks tables."""

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
            out.append(Orphan(qid, int(reviews), int(attempts), parse_loose(last)))
        return out

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
                    (question_id, int(rating), format_time(reviewed_at), as_ms(duration_ms)),
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
                        as_ms(duration_ms),
                        format_time(at),
                    ),
                )
                attempts_added += cursor.rowcount
            for question_id, card in (cards or {}).items():
                if conn.execute("SELECT 1 FROM cards WHERE question_id = ?", (question_id,)).fetchone():
                    continue
                if conn.execute("SELECT 1 FROM reviews WHERE question_id = ?", (question_id,)).fetchone():
                    continue
                put_card(conn, question_id, card.to_json(), card)
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
