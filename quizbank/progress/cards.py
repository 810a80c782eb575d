"""Cards and reviews: each question's FSRS card, the review log (with the card before and after every rating),
the Study queue and per-topic summary, rating with its preview, undo, and replay of a card's history.

Cards are `fsrs.Card` JSON. Each review row keeps the card JSON before and after it, so `undo_last()` restores
the previous state byte for byte.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from quizbank.progress.connection import StoreError
from quizbank.progress.records import (
    CardInfo,
    ReviewRecord,
    ReviewResult,
    ReviewRow,
    StudyQueue,
    TopicProgress,
    UndoResult,
    as_ms,
    format_time,
    instance_json,
    parse_instance,
    parse_time,
    utc_day_start,
)
from quizbank.progress.scheduler import Card, Preview, Rating, SeededScheduler, State, new_card, to_utc
from quizbank.progress.settings import SettingsTable

__all__ = ["CardsTable", "put_card"]


def put_card(conn: sqlite3.Connection, question_id: str, text: str, card: Card) -> None:
    conn.execute(
        "INSERT INTO cards (question_id, card_json, state, due, last_review, stability, difficulty) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(question_id) DO UPDATE SET card_json = excluded.card_json, "
        "state = excluded.state, due = excluded.due, last_review = excluded.last_review, "
        "stability = excluded.stability, difficulty = excluded.difficulty",
        (
            question_id,
            text,
            int(card.state),
            format_time(card.due),
            format_time(card.last_review) if card.last_review else None,
            card.stability,
            card.difficulty,
        ),
    )


class CardsTable(SettingsTable):
    """The `cards` and `reviews` tables."""

    def make_due_now(self, question_ids: Iterable[str], now: datetime | None = None) -> int:
        """Put these cards in front of Study: an existing card becomes due `now`, a new question gets a fresh
        card due `now` (no review is recorded). Returns how many cards were written."""
        when = to_utc(now)

        def body(conn: sqlite3.Connection) -> int:
            count = 0
            for question_id in dict.fromkeys(question_ids):
                row = conn.execute(
                    "SELECT card_json FROM cards WHERE question_id = ?", (question_id,)
                ).fetchone()
                card = Card.from_json(row[0]) if row else new_card(question_id, when)
                if row and card.due <= when:
                    continue
                card.due = when
                put_card(conn, question_id, card.to_json(), card)
                count += 1
            return count

        return self._write(body)

    def card_due_times(self) -> dict[str, datetime]:
        """{question id: due time} for every card (no JSON parsing: cheap enough for status marks)."""
        rows = self._read(lambda c: c.execute("SELECT question_id, due FROM cards").fetchall())
        return {qid: parse_time(due) for qid, due in rows}

    # ------------------------------------------------------------------ cards

    def card(self, question_id: str) -> Card | None:
        row = self._read(
            lambda c: c.execute(
                "SELECT card_json FROM cards WHERE question_id = ?", (question_id,)
            ).fetchone()
        )
        return Card.from_json(row[0]) if row else None

    def card_json(self, question_id: str) -> str | None:
        """The stored card JSON text (exactly as saved), or None for a new question."""
        row = self._read(
            lambda c: c.execute(
                "SELECT card_json FROM cards WHERE question_id = ?", (question_id,)
            ).fetchone()
        )
        return row[0] if row else None

    def card_rows(self) -> list[tuple[str, str]]:
        """(question id, card JSON exactly as stored) for every card, by question id."""
        return self._read(
            lambda c: c.execute("SELECT question_id, card_json FROM cards ORDER BY question_id").fetchall()
        )

    def review_records(self) -> list[ReviewRecord]:
        """Every review row as stored (with the card JSON before and after), oldest first."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT question_id, rating, reviewed_at, duration_ms, state_before, card_before, card_after, "
                "instance FROM reviews ORDER BY reviewed_at, id"
            ).fetchall()
        )
        return [
            ReviewRecord(qid, int(rating), parse_time(at), dur, state, before, after, parse_instance(shown))
            for qid, rating, at, dur, state, before, after, shown in rows
        ]

    def cards(self) -> dict[str, Card]:
        rows = self._read(lambda c: c.execute("SELECT question_id, card_json FROM cards").fetchall())
        return {qid: Card.from_json(text) for qid, text in rows}

    def card_info(self, question_id: str, now: datetime | None = None) -> CardInfo | None:
        """The card with its review count, lapse count and current retrievability; None if never studied."""
        card = self.card(question_id)
        if card is None:
            return None
        reps, lapses = self._read(
            lambda c: c.execute(
                "SELECT COUNT(*), COALESCE(SUM(rating = 1 AND state_before = 2), 0) FROM reviews "
                "WHERE question_id = ?",
                (question_id,),
            ).fetchone()
        )
        retrievability = self.scheduler.get_card_retrievability(card, to_utc(now))
        return CardInfo(question_id, card, int(reps), int(lapses), float(retrievability))

    def lapses(self) -> dict[str, int]:
        """Lapses per question: Again ratings given while the card was in the Review state."""
        rows = self._read(
            lambda c: c.execute(
                "SELECT question_id, COUNT(*) FROM reviews WHERE rating = 1 AND state_before = 2 "
                "GROUP BY question_id"
            ).fetchall()
        )
        return {qid: int(n) for qid, n in rows}

    def review_rows(self, since: datetime | None = None) -> list[ReviewRow]:
        query = "SELECT question_id, rating, reviewed_at, duration_ms, state_before, instance FROM reviews"
        params: tuple[Any, ...] = ()
        if since is not None:
            query += " WHERE reviewed_at >= ?"
            params = (format_time(since),)
        rows = self._read(lambda c: c.execute(query + " ORDER BY reviewed_at, id", params).fetchall())
        return [
            ReviewRow(
                qid,
                Rating(rating),
                parse_time(at),
                dur,
                None if state is None else State(state),
                parse_instance(shown),
            )
            for qid, rating, at, dur, state, shown in rows
        ]

    def review_count(self) -> int:
        return self._read(lambda c: c.execute("SELECT COUNT(*) FROM reviews").fetchone()[0])

    # ------------------------------------------------------------------ queue and summary

    def introduced_on_day(self, now: datetime | None = None) -> int:
        """New cards first reviewed during the UTC day of `now`."""
        start = utc_day_start(to_utc(now))
        end = start + timedelta(days=1)
        return self._read(
            lambda c: c.execute(
                "SELECT COUNT(*) FROM reviews WHERE card_before IS NULL AND reviewed_at >= ? AND reviewed_at < ?",
                (format_time(start), format_time(end)),
            ).fetchone()[0]
        )

    def study_queue(
        self,
        question_ids: Iterable[str],
        now: datetime | None = None,
        new_per_day: int | None = None,
        learn_ahead: timedelta = timedelta(0),
    ) -> StudyQueue:
        """Cards due by `now + learn_ahead` (earliest due first), then up to `new_per_day` (setting if None)
        new questions per UTC day, minus those already introduced today. New ones keep the given order."""
        when = to_utc(now)
        limit = int(self.get_setting("new_per_day") if new_per_day is None else new_per_day)
        ids = list(dict.fromkeys(question_ids))
        rows = self._read(lambda c: c.execute("SELECT question_id, due FROM cards").fetchall())
        due_at = {qid: due for qid, due in rows}
        horizon = format_time(when + learn_ahead)
        position = {qid: i for i, qid in enumerate(ids)}
        due = sorted(
            (qid for qid in ids if qid in due_at and due_at[qid] <= horizon),
            key=lambda qid: (due_at[qid], position[qid]),
        )
        left = max(0, limit - self.introduced_on_day(when))
        new = [qid for qid in ids if qid not in due_at][:left]
        return StudyQueue(due=due, new=new, new_left_today=left)

    def topic_summary(
        self, topics: Mapping[str, Sequence[str]], now: datetime | None = None
    ) -> dict[str, TopicProgress]:
        """{topic_id: TopicProgress} for {topic_id: [question ids]}. Mastery is the mean retrievability
        now over all the topic's questions, an unseen one counting as 0 (None until one is studied)."""
        when = to_utc(now)
        stamp = format_time(when)
        rows = self._read(lambda c: c.execute("SELECT question_id, due, card_json FROM cards").fetchall())
        known = {qid: (due, text) for qid, due, text in rows}
        scheduler = self.scheduler
        retrievability: dict[str, float] = {}
        summary: dict[str, TopicProgress] = {}
        for topic_id, question_ids in topics.items():
            due = new = studied = 0
            total = 0.0
            for qid in dict.fromkeys(question_ids):
                entry = known.get(qid)
                if entry is None:
                    new += 1
                    continue
                studied += 1
                if entry[0] <= stamp:
                    due += 1
                if qid not in retrievability:
                    retrievability[qid] = float(
                        scheduler.get_card_retrievability(Card.from_json(entry[1]), when)
                    )
                total += retrievability[qid]
            summary[topic_id] = TopicProgress(
                due=due, new=new, studied=studied, mastery=(total / (studied + new)) if studied else None
            )
        return summary

    # ------------------------------------------------------------------ scheduling

    def preview(self, question_id: str, now: datetime | None = None) -> dict[Rating, Preview]:
        """What each rating would give: {Rating: Preview(due, interval)}. Changes nothing."""
        when = to_utc(now)

        def body(conn: sqlite3.Connection) -> tuple[str | None, int]:
            row = conn.execute("SELECT card_json FROM cards WHERE question_id = ?", (question_id,)).fetchone()
            count = conn.execute(
                "SELECT COUNT(*) FROM reviews WHERE question_id = ?", (question_id,)
            ).fetchone()
            return (row[0] if row else None), int(count[0])

        text, index = self._read(body)
        card = Card.from_json(text) if text else new_card(question_id, when)
        out: dict[Rating, Preview] = {}
        for rating in Rating:
            after = self.scheduler.review_seeded(question_id, index, card, rating, when)
            out[rating] = Preview(rating=rating, due=after.due, interval=after.due - when)
        return out

    def review(
        self,
        question_id: str,
        rating: Rating | int,
        now: datetime | None = None,
        duration_ms: int | None = None,
        *,
        instance: dict[str, Any] | None = None,
    ) -> ReviewResult:
        """Rate a card and commit at once (one transaction): the review row (with the card before and after)
        and the new card state. The review joins this session's undo stack. `instance`: the seed and
        parameters of a generated question's showing (one card per question, whatever the numbers)."""
        result = self._review(question_id, Rating(int(rating)), now, duration_ms, instance, only_if_due=False)
        assert result is not None
        return result

    def review_quiz_answer(
        self,
        question_id: str,
        correct: bool,
        now: datetime | None = None,
        duration_ms: int | None = None,
        *,
        instance: dict[str, Any] | None = None,
    ) -> ReviewResult | None:
        """A quiz answer as a Study review, when it tells the scheduler something (so that every card state
        comes from its review rows): a wrong answer is an Again review (a never-studied question gets its
        first card, learning, due in a minute; a studied card lapses into relearning), a right one on a card
        due by `now` a Good review. A right answer otherwise changes nothing (None). The due check and the
        review are one transaction; `now` None reads the clock inside it, as `review` does."""
        if not correct:
            return self.review(question_id, Rating.Again, now, duration_ms, instance=instance)
        return self._review(question_id, Rating.Good, now, duration_ms, instance, only_if_due=True)

    def _review(
        self,
        question_id: str,
        rating: Rating,
        now: datetime | None,
        duration_ms: int | None,
        instance: dict[str, Any] | None,
        *,
        only_if_due: bool,
    ) -> ReviewResult | None:
        shown = instance_json(instance)
        fixed = to_utc(now) if now is not None else None
        scheduler = self.scheduler

        def body(conn: sqlite3.Connection) -> ReviewResult | None:
            # Without an explicit time, read the clock inside the transaction, so that reviews from several
            # processes get times in commit order and a card's history never runs backwards.
            stamp = fixed if fixed is not None else datetime.now(UTC)
            row = conn.execute("SELECT card_json FROM cards WHERE question_id = ?", (question_id,)).fetchone()
            before_text = row[0] if row else None
            if only_if_due and (before_text is None or Card.from_json(before_text).due > stamp):
                return None
            index = conn.execute(
                "SELECT COUNT(*) FROM reviews WHERE question_id = ?", (question_id,)
            ).fetchone()[0]
            while conn.execute(
                "SELECT 1 FROM reviews WHERE question_id = ? AND reviewed_at = ? AND rating = ?",
                (question_id, format_time(stamp), int(rating)),
            ).fetchone():
                stamp += timedelta(microseconds=1)  # same card, same rating, same instant: keep both
            before = Card.from_json(before_text) if before_text else new_card(question_id, stamp)
            after = scheduler.review_seeded(question_id, index, before, rating, stamp, duration_ms)
            after_text = after.to_json()
            cursor = conn.execute(
                "INSERT INTO reviews (question_id, rating, reviewed_at, duration_ms, state_before, card_before, "
                "card_after, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    question_id,
                    int(rating),
                    format_time(stamp),
                    as_ms(duration_ms),
                    None if before_text is None else int(before.state),
                    before_text,
                    after_text,
                    shown,
                ),
            )
            put_card(conn, question_id, after_text, after)
            review_id = cursor.lastrowid
            assert review_id is not None  # an INSERT sets it
            return ReviewResult(
                review_id=review_id,
                question_id=question_id,
                rating=rating,
                reviewed_at=stamp,
                card_before=Card.from_json(before_text) if before_text else None,
                card_after=after,
            )

        result = self._write(body)
        if result is not None:
            self._session.undo_stack.append(result.review_id)
        return result

    @property
    def can_undo(self) -> bool:
        return bool(self._session.undo_stack)

    def undo_last(self) -> UndoResult | None:
        """Undo this session's most recent review: restore the card JSON saved before it (or make the question
        new again) and delete the review row, in one transaction. None if there is nothing to undo.

        Refuses (StoreError) if another process has reviewed that card since, rather than lose that review.
        """
        if not self._session.undo_stack:
            return None
        review_id = self._session.undo_stack[-1]

        def body(conn: sqlite3.Connection) -> UndoResult | None:
            row = conn.execute(
                "SELECT question_id, rating, card_before, card_after FROM reviews WHERE id = ?", (review_id,)
            ).fetchone()
            if row is None:
                return None
            question_id, rating, before_text, after_text = row
            latest = conn.execute(
                "SELECT id FROM reviews WHERE question_id = ? ORDER BY reviewed_at DESC, id DESC LIMIT 1",
                (question_id,),
            ).fetchone()[0]
            current = conn.execute(
                "SELECT card_json FROM cards WHERE question_id = ?", (question_id,)
            ).fetchone()
            if latest != review_id or current is None or current[0] != after_text:
                raise StoreError(f"cannot undo: {question_id} was reviewed again since (in another window?)")
            if before_text is None:
                conn.execute("DELETE FROM cards WHERE question_id = ?", (question_id,))
                restored = None
            else:
                restored = Card.from_json(before_text)
                put_card(conn, question_id, before_text, restored)
            conn.execute("DELETE FROM reviews WHERE id = ?", (review_id,))
            return UndoResult(question_id=question_id, rating=Rating(rating), card=restored)

        result = self._write(body)
        self._session.undo_stack.pop()
        return result

    def replay(self, conn: sqlite3.Connection, question_id: str, scheduler: SeededScheduler) -> None:
        """Rebuild a card and its reviews' before/after states from its review history, in time order.

        Used after merging a backup. Must run inside a write transaction (`conn` from `_write`); take
        `scheduler` from `self.scheduler` before starting it.
        """
        rows = conn.execute(
            "SELECT id, rating, reviewed_at, duration_ms FROM reviews WHERE question_id = ? "
            "ORDER BY reviewed_at, id",
            (question_id,),
        ).fetchall()
        if not rows:
            return
        card: Card | None = None
        before_text: str | None = None
        for index, (review_id, rating, reviewed_at, duration_ms) in enumerate(rows):
            when = parse_time(reviewed_at)
            before = card if card is not None else new_card(question_id, when)
            after = scheduler.review_seeded(question_id, index, before, Rating(rating), when, duration_ms)
            after_text = after.to_json()
            conn.execute(
                "UPDATE reviews SET state_before = ?, card_before = ?, card_after = ? WHERE id = ?",
                (None if card is None else int(card.state), before_text, after_text, review_id),
            )
            card, before_text = after, after_text
        assert card is not None and before_text is not None
        put_card(conn, question_id, before_text, card)
