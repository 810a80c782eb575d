"""One turn of the Study screen's store worker, off the UI thread and without Textual.

A turn does what the user asked of the store ("plan", "rate" or "undo"), plans the next card
(`quizbank.progress.study_plan`), draws fresh numbers for it when it is a generated question (`tui.live`;
one no draw gives an answer for is skipped and the next card planned) and reads the card's question when it is
an own card (a Demo lab prediction, `quizbank.predictions`). Any failure comes back as the turn's `error`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quizbank.progress.study_plan import StudyPlan, plan_next

from ..live import draw_showing, is_generated

__all__ = ["StudyTurn", "take_turn"]


@dataclass(frozen=True)
class StudyTurn:
    """What a turn did (`rated`: ReviewResult, `undone`: UndoResult) and the next plan."""

    plan: StudyPlan | None
    rated: Any = None
    undone: Any = None
    error: str | None = None
    nothing_to_undo: bool = False
    live: Any = None  # the next card's showing when it is a generated question (tui.live)
    skipped: tuple[
        tuple[str, str], ...
    ] = ()  # (question id, why): generated questions whose numbers could not be drawn
    own: Any = None  # the next card's question when it is an own card (no bank holds it)


def _error(exc: Exception) -> StudyTurn:
    text = str(exc).strip().splitlines()
    return StudyTurn(None, error=text[0] if text else type(exc).__name__)


def take_turn(
    store: Any,
    bankset: Any,
    runner: Any,
    action: str,
    payload: Any,
    ids: list[str],
    clock: Callable[[], datetime],
    when: datetime | None,
    topic_id: str | None,
) -> StudyTurn:
    """Touch the store for `action` ("plan", "rate": payload (question id, rating, ms, instance), "undo"),
    then plan the next card. `when` is the review's time: None lets the store read the time inside its
    transaction (commit order); `clock` gives the plan's."""
    try:
        rated = undone = None
        avoid = force = None
        if action == "rate":
            question_id, rating, duration_ms, instance = payload
            if instance is None:
                rated = store.review(question_id, rating, when, duration_ms)
            else:
                rated = store.review(question_id, rating, when, duration_ms, instance=instance)
            avoid = question_id
        elif action == "plan":
            store.reload_settings()  # `posenc progress config` may have changed them meanwhile
        elif action == "undo":
            undone = store.undo_last()
            if undone is None:
                return StudyTurn(None, nothing_to_undo=True)
            force = undone.question_id
        plan = plan_next(store, ids, clock(), avoid, force, topic_id)
    except Exception as exc:  # noqa: BLE001 - shown to the user; the app keeps running
        return _error(exc)
    live = own = None
    skipped: list[tuple[str, str]] = []
    while True:
        question = bankset.questions.get(plan.question_id or "") if bankset else None
        if question is None or not is_generated(question):
            break
        try:  # fresh numbers for every showing, computed by the demo host (still in this worker)
            live = draw_showing(question, runner)
            break
        except Exception as exc:  # noqa: BLE001 - no seed gave an answer: skip the card, plan the next one
            skipped.append((question.id, " ".join(str(exc).split())))
            left_out = {qid for qid, _ in skipped}
            try:
                plan = plan_next(store, [q for q in ids if q not in left_out], clock(), avoid, None, topic_id)
            except Exception as exc:  # noqa: BLE001 - a worker reports any failure
                return _error(exc)
    if question is None and plan.question_id is not None:
        from quizbank.predictions import study_question

        try:
            own = study_question(store, plan.question_id)
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            return StudyTurn(None, error=" ".join(str(exc).split()))
    return StudyTurn(plan, rated=rated, undone=undone, live=live, own=own, skipped=tuple(skipped))
