"""Per-question status from the progress store: flagged, note, last result, seen, due.

Pure Python (no textual). `load_status(store)` reads the store (call it in a worker); the
result answers the quiz setup filters and gives the status mark shown in Home and Browse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = ["MARK_GLYPHS", "STATUS_FILTERS", "QuestionStatus", "load_status"]

STATUS_FILTERS = ("flagged", "wrong", "unseen")

# status -> glyph (distinct shapes: readable without colour)
MARK_GLYPHS = {"new": "·", "seen": "○", "wrong": "✗", "due": "↻"}


@dataclass(frozen=True)
class QuestionStatus:
    """What the store knows about each question (ids absent from a field are new / unflagged)."""

    flagged: frozenset[str] = frozenset()
    notes: dict[str, str] = field(default_factory=dict)
    last_right: dict[str, bool] = field(default_factory=dict)
    carded: frozenset[str] = frozenset()
    due: frozenset[str] = frozenset()

    def seen(self, question_id: str) -> bool:
        return question_id in self.last_right or question_id in self.carded

    def mark(self, question_id: str) -> str:
        """ "due", "wrong" (wrong last time), "seen" or "new": the most urgent first."""
        if question_id in self.due:
            return "due"
        if self.last_right.get(question_id) is False:
            return "wrong"
        return "seen" if self.seen(question_id) else "new"

    def matches(self, question_id: str, filters: tuple[str, ...] | frozenset[str]) -> bool:
        """True if the question passes every filter ("flagged", "wrong", "unseen")."""
        for name in filters:
            if name == "flagged" and question_id not in self.flagged:
                return False
            if name == "wrong" and self.last_right.get(question_id) is not False:
                return False
            if name == "unseen" and self.seen(question_id):
                return False
        return True


def load_status(store: Any, now: datetime | None = None) -> QuestionStatus:
    """Read flags, notes, last results and card due times from `store` (a ProgressStore)."""
    when = now or datetime.now(UTC)
    marks = store.question_marks()
    due_times = store.card_due_times()
    return QuestionStatus(
        flagged=frozenset(qid for qid, (flagged, _note) in marks.items() if flagged),
        notes={qid: note for qid, (_flagged, note) in marks.items() if note},
        last_right=store.last_results(),
        carded=frozenset(due_times),
        due=frozenset(qid for qid, due in due_times.items() if due <= when),
    )
