"""quizbank.question_status: the per-question mark (new, seen, wrong, due), flags and notes, and the filters
Quiz setup and Browse use."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from quizbank.progress.store import open_store
from quizbank.question_status import load_status

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def test_status_marks_and_filters(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.record_attempt("a", True, "1", 10)
    store.record_attempt("b", True, "1", 10, at=NOW)
    store.record_attempt("b", False, "2", 10, at=NOW.replace(hour=13))  # wrong last time
    store.review("c", 1, NOW)  # a card, due soon after NOW
    assert store.set_question_mark("a", flagged=True) == (True, "")
    assert store.set_question_mark("a", note="  check the sign  ") == (True, "check the sign")
    assert store.set_question_mark("d", note="later") == (False, "later")
    assert store.question_marks() == {"a": (True, "check the sign"), "d": (False, "later")}
    status = load_status(store, now=datetime(2030, 1, 1, tzinfo=UTC))
    assert [status.mark(q) for q in "abcd"] == ["seen", "wrong", "due", "new"]
    assert status.flagged == {"a"} and status.notes == {"a": "check the sign", "d": "later"}
    ids = list("abcd")
    assert [q for q in ids if status.matches(q, ("flagged",))] == ["a"]
    assert [q for q in ids if status.matches(q, ("wrong",))] == ["b"]
    assert [q for q in ids if status.matches(q, ("unseen",))] == ["d"]
    assert [q for q in ids if status.matches(q, ("flagged", "unseen"))] == []
    store.close()
