"""History maintenance across tables: orphaned ids, moving history from merged-away question ids, and merging a
validated backup in one transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from quizbank.progress.cards import CardsTable, put_card
from quizbank.progress.fitted import put_fitted
from quizbank.progress.own_cards import question_text
from quizbank.progress.records import (
    DRILL_CARD_PREFIX,
    ImportedHistory,
    MergeReport,
    Orphan,
    ReviewRecord,
    as_ms,
    format_time,
    instance_json,
    parse_loose,
    parse_time,
)
from quizbank.progress.scheduler import SeededScheduler
from quizbank.progress.settings import DEFAULT_SETTINGS, make_scheduler, validate_setting
from quizbank.progress.typed_answers import insert_typed_answer

__all__ = ["MergeTable", "move_ids"]


class MergeTable(CardsTable):
    """Operations that span the cards, reviews, attempts and marks tables."""

    def orphans(self, known_ids: Iterable[str]) -> list[Orphan]:
        """Question ids with history (cards, reviews or attempts) that are not in `known_ids` nor own cards,
        sorted by id."""
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
                ) WHERE qid NOT IN (SELECT question_id FROM own_cards) GROUP BY qid ORDER BY qid
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
        transaction: reviews, attempts, typed answers, the card and the question mark. Where both ids have a
        card, the one reviewed last is kept; a review or attempt already present under the new id is not duplicated; marks
        merge (flagged if either is, both notes kept). Each pair is recorded in `id_migrations`. Returns how many
        old ids had anything to move, so a second call with the same mapping changes nothing and returns 0."""
        pairs = sorted((old, new) for old, new in mapping.items() if old != new)
        if not pairs:
            return 0
        return self._write(lambda conn: move_ids(conn, pairs))

    def id_migrations(self) -> list[tuple[str, str, datetime]]:
        """Every id migration this store applied: (old id, new id, first applied at), by old id."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT old_id, new_id, applied_at FROM id_migrations ORDER BY old_id"
            ).fetchall()
        )
        return [(old, new, parse_time(at)) for old, new, at in rows]

    def merge_backup(self, history: ImportedHistory) -> MergeReport:
        """Merge a validated backup in ONE transaction; nothing is written if anything fails. The rules (see
        docs/backup.md) make a merge idempotent: merging the same backup twice changes nothing.

        - Reviews are identified by (question_id, reviewed_at, rating); one already here is skipped.
        - A card: if this store has no review of the question, the backup's card and review rows are taken as
          they are (byte for byte: a restore is exact). If both sides have reviews and the backup brings new
          ones, the card is rebuilt by replaying the merged history in time order with this store's settings.
          Otherwise this store's card stays; a card only the backup has (e.g. one added from a mock interview,
          without reviews) is added. Version-1 reviews carry no card states: their cards are always replayed.
        - Quiz attempts (question_id, attempted_at, response) and drill attempts (every field) are added once.
          A review or quiz attempt keeps its `instance` (a generated question's seed and parameters).
        - Mock sessions are identified by their id; one already here stays.
        - A question mark (flag and note): the one updated last wins; a tie keeps this store's.
        - Typed answers (question_id, answered_at, answer) are added once.
        - Fitted FSRS parameters: the ones fitted last win (the backup's fill a store without any).
        - Settings only fill keys not set here.
        - Own cards (a Demo lab prediction's question) are identified by question id; one already here stays.
        - Id migrations are recorded, then every migration either side applied moves history left under an
          old id (e.g. from an older backup) onto its replacement.
        """
        settings = {key: validate_setting(key, value) for key, value in history.settings.items()}
        # Replay with the settings in force after the merge (backup settings fill unset keys only) and the
        # fitted parameters in force after it (the ones fitted last).
        effective = {**DEFAULT_SETTINGS, **settings, **self._settings()}
        here = self.fitted()
        taken = history.fitted is not None and (here is None or history.fitted.fitted_at > here.fitted_at)
        fitted = history.fitted if taken else here
        scheduler = make_scheduler(
            float(effective["desired_retention"]),
            bool(effective["enable_fuzzing"]),
            fitted.parameters if fitted is not None else None,
        )

        def body(conn: sqlite3.Connection) -> MergeReport:
            counts = dict.fromkeys(
                (
                    "reviews_added",
                    "reviews_skipped",
                    "cards_rebuilt",
                    "attempts_added",
                    "cards_added",
                    "settings_added",
                    "drill_attempts_added",
                    "mock_sessions_added",
                    "marks_changed",
                    "id_migrations_added",
                    "typed_answers_added",
                    "fitted_taken",
                    "own_cards_added",
                ),
                0,
            )
            for question_id, topic, question, created_at in history.own_cards:
                counts["own_cards_added"] += conn.execute(
                    "INSERT OR IGNORE INTO own_cards (question_id, topic, question_json, created_at) "
                    "VALUES (?, ?, ?, ?)",
                    (question_id, topic, question_text(question), format_time(created_at)),
                ).rowcount
            for old, new, at in history.id_migrations:
                counts["id_migrations_added"] += conn.execute(
                    "INSERT OR IGNORE INTO id_migrations (old_id, new_id, applied_at) VALUES (?, ?, ?)",
                    (old, new, format_time(at)),
                ).rowcount
            by_question: dict[str, list[ReviewRecord]] = {}
            for record in history.reviews:
                by_question.setdefault(record.question_id, []).append(record)
            for question_id in sorted(set(by_question) | set(history.cards)):
                self._merge_card(
                    conn, question_id, by_question.get(question_id, []), history, scheduler, counts
                )
            for question_id, correct, response, duration_ms, at, shown in history.attempts:
                counts["attempts_added"] += conn.execute(
                    "INSERT OR IGNORE INTO attempts (question_id, correct, response, duration_ms, attempted_at, "
                    "instance) VALUES (?, ?, ?, ?, ?, ?)",
                    (question_id, None if correct is None else int(bool(correct)), response, as_ms(duration_ms),
                     format_time(at), instance_json(shown)),
                ).rowcount  # fmt: skip
            for drill, passed, n_ok, n, elapsed_ms, at in history.drill_attempts:
                row = (drill, int(bool(passed)), int(n_ok), int(n), as_ms(elapsed_ms), format_time(at))
                if conn.execute(
                    "SELECT 1 FROM drill_attempts WHERE drill = ? AND passed = ? AND cases_passed = ? AND "
                    "cases_total = ? AND elapsed_ms IS ? AND attempted_at = ?",
                    row,
                ).fetchone():
                    continue
                conn.execute(
                    "INSERT INTO drill_attempts (drill, passed, cases_passed, cases_total, elapsed_ms, "
                    "attempted_at) VALUES (?, ?, ?, ?, ?, ?)",
                    row,
                )
                counts["drill_attempts_added"] += 1
            for session_id, started, minutes, level, language, early, score, report in history.mock_sessions:
                counts["mock_sessions_added"] += conn.execute(
                    "INSERT OR IGNORE INTO mock_sessions (id, started_at, minutes, level, language, ended_early, "
                    "score, report_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (session_id, format_time(started), int(minutes), level, language, int(bool(early)),
                     None if score is None else float(score), json.dumps(report, ensure_ascii=False, sort_keys=True)),
                ).rowcount  # fmt: skip
            for question_id, flagged, note, updated_at in history.marks:
                stamp = format_time(updated_at)
                here = conn.execute(
                    "SELECT updated_at FROM question_marks WHERE question_id = ?", (question_id,)
                ).fetchone()
                if here is not None and here[0] >= stamp:
                    continue
                conn.execute(
                    "INSERT INTO question_marks (question_id, flagged, note, updated_at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(question_id) DO UPDATE SET flagged = excluded.flagged, note = excluded.note, "
                    "updated_at = excluded.updated_at",
                    (question_id, int(bool(flagged)), note, stamp),
                )
                counts["marks_changed"] += 1
            for typed in history.typed_answers:
                counts["typed_answers_added"] += insert_typed_answer(conn, typed)
            if taken and history.fitted is not None:  # taken implies fitted
                put_fitted(conn, history.fitted)
                counts["fitted_taken"] = 1
            for key, value in settings.items():
                counts["settings_added"] += conn.execute(
                    "INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)",
                    (key, json.dumps(value, ensure_ascii=False, sort_keys=True)),
                ).rowcount
            pairs = conn.execute("SELECT old_id, new_id FROM id_migrations ORDER BY old_id").fetchall()
            move_ids(conn, [(old, new) for old, new in pairs if old != new])
            return MergeReport(**counts)

        report = self._write(body)
        self.reload_settings()
        return report

    def _merge_card(
        self,
        conn: sqlite3.Connection,
        question_id: str,
        records: list[ReviewRecord],
        history: ImportedHistory,
        scheduler: SeededScheduler,
        counts: dict[str, int],
    ) -> None:
        """One question's reviews and card, by the rules of `merge_backup`."""
        had_reviews = (
            conn.execute("SELECT 1 FROM reviews WHERE question_id = ? LIMIT 1", (question_id,)).fetchone()
            is not None
        )
        card = history.cards.get(question_id)
        verbatim = not had_reviews and card is not None and all(r.card_after is not None for r in records)
        added = 0
        for record in records:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO reviews (question_id, rating, reviewed_at, duration_ms, state_before, "
                "card_before, card_after, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    question_id,
                    int(record.rating),
                    format_time(record.reviewed_at),
                    as_ms(record.duration_ms),
                    record.state_before if verbatim else None,
                    record.card_before if verbatim else None,
                    record.card_after if verbatim else "",
                    instance_json(record.instance),
                ),
            )
            added += cursor.rowcount
        counts["reviews_added"] += added
        counts["reviews_skipped"] += len(records) - added
        has_card = conn.execute("SELECT 1 FROM cards WHERE question_id = ?", (question_id,)).fetchone()
        if added and verbatim and card is not None:  # verbatim implies a card
            put_card(conn, question_id, card.to_json(), card)
            counts["cards_added"] += 1
        elif added:
            self.replay(conn, question_id, scheduler)
            counts["cards_rebuilt"] += 1
        elif card is not None and has_card is None and not had_reviews:
            put_card(conn, question_id, card.to_json(), card)
            counts["cards_added"] += 1


def move_ids(conn: sqlite3.Connection, pairs: Sequence[tuple[str, str]]) -> int:
    """Move history old -> new for each pair (see `MergeTable.migrate_replaced_ids`) inside the caller's write
    transaction, and record each pair in `id_migrations` (kept: a backup carries them). Returns how many old
    ids had anything to move."""
    stamp = format_time(datetime.now(UTC))
    for old, new in pairs:
        conn.execute(
            "INSERT OR IGNORE INTO id_migrations (old_id, new_id, applied_at) VALUES (?, ?, ?)",
            (old, new, stamp),
        )
    moved = 0
    for old, new in pairs:
        found = False
        for table in ("reviews", "attempts", "typed_answers"):
            cursor = conn.execute(
                f"UPDATE OR IGNORE {table} SET question_id = ? WHERE question_id = ?", (new, old)
            )
            found |= cursor.rowcount > 0
            found |= conn.execute(f"DELETE FROM {table} WHERE question_id = ?", (old,)).rowcount > 0
        old_card = conn.execute("SELECT last_review FROM cards WHERE question_id = ?", (old,)).fetchone()
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
                conn.execute("UPDATE question_marks SET question_id = ? WHERE question_id = ?", (new, old))
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
