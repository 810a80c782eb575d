"""Typed answers to open questions, kept with their verdicts: what Quiz, Study and the mock interview hand to
the store once an answer is judged (`keep_typed_answer`), and the question's history Browse shows under the
note (`typed_history`): each try with its time, where it was typed, the key points it covered (with the change
from the try before) and the text, so the candidate sees how the explanation changed.

The store write runs in a thread worker of the app (the UI never waits on the disk, and a worker of the app
outlives the screen that asked for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from textual.content import Content

from .i18n import tr

__all__ = ["MARK_GLYPHS", "judged_answer", "keep_typed_answer", "typed_history"]

MARK_GLYPHS = {"covered": "✓", "contradicted": "✗", "not_found": "·"}
MARK_STYLES = {
    "covered": "bold $text-success",
    "contradicted": "bold $text-error",
    "not_found": "bold $text-muted",
}
SHOWN_CHARS = 400  # of each answer in the history; the backup keeps it whole


def judged_answer(widget: Any) -> tuple[str, tuple[Any, ...]] | None:
    """(the typed text, a `PointMark` per key point) of an open answer the judge has read: Quiz's and Study's
    `OpenAnswer` (its `typed`) or the mock's `OpenItem` (its `answer`), each with `verdicts` and `marks()`.
    None when nothing was typed or nothing judged (a question without key points)."""
    from quizbank.progress.typed_answers import point_marks

    verdicts = list(getattr(widget, "verdicts", None) or [])
    text = getattr(widget, "typed", None)
    if not isinstance(text, str):
        text = getattr(widget, "answer", "")
    text = text.strip() if isinstance(text, str) else ""
    if not verdicts or not text:
        return None
    return text, point_marks(verdicts, widget.marks())


def keep_typed_answer(
    app: Any, question_id: str, source: str, widget: Any, at: datetime | None = None
) -> bool:
    """Keep `widget`'s judged answer in the store (`source`: "quiz", "study" or "mock"; `at`: the screen's
    clock, None for the store's). Returns whether there was one to keep."""
    judged = judged_answer(widget)
    store = getattr(app, "store", None)
    if judged is None or store is None:
        return False
    text, points = judged

    def save() -> None:
        try:
            store.record_typed_answer(question_id, text, points, source, at)
        except Exception as exc:  # noqa: BLE001 - shown, never raised: the answer was still graded
            error = " ".join(str(exc).split()) or type(exc).__name__
            app.notify(tr("store.record_failed", app.language, error=error), severity="error")

    app.run_worker(save, thread=True, group="record", exit_on_error=False, name="typed-answer")
    return True


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SHOWN_CHARS else flat[: SHOWN_CHARS - 1].rstrip() + "…"


def typed_history(rows: Sequence[Any], lang: str) -> Content:
    """The question's typed answers (`TypedAnswer`s, oldest first) as Browse shows them."""
    parts: list[Any] = [(tr("typed.title", lang, n=len(rows)), "bold $text-accent")]
    previous: int | None = None
    for row in rows:
        total = len(row.points)
        when = row.answered_at.strftime("%Y-%m-%d %H:%M")
        marks = [(MARK_GLYPHS[p.mark], MARK_STYLES[p.mark]) for p in row.points if p.mark in MARK_GLYPHS]
        parts += ["\n", (f"{when} UTC", "dim"), "  ", (tr(f"typed.source.{row.source}", lang), "bold")]
        parts += ["  ", tr("typed.points", lang, covered=row.covered, total=total), " ", *marks]
        if previous is not None and row.covered != previous:
            change = row.covered - previous
            parts += [" ", (f"({change:+d})", "bold $text-success" if change > 0 else "bold $text-error")]
        if row.contradicted:
            parts += ["  ", (tr("typed.contradicted", lang, n=row.contradicted), "bold $text-error")]
        parts += ["\n  ", (_short(row.answer), "italic")]
        previous = row.covered
    return Content.assemble(*parts)
