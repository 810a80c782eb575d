"""Study's card plan: which card comes next, what each rating would give it, and what is known of it.

Queue policy (like Anki): cards due now, most overdue first, then new cards up to the daily limit; when those run
out, learning cards due within the next 20 minutes (`LEARN_AHEAD`) are shown early. The card just rated
(`avoid`) is not shown again straight away if anything else is waiting; an undone rating shows its card again
(`force`). The Demo lab's predictions (own cards, `quizbank.predictions`) come before the banks' questions, and
a solved drill's card (`drill:NAME`) is studied only once it exists: a drill is never a new card.

The plan reads the store only (the Study screen computes it in a worker thread). fsrs is imported by the store,
never here, so importing this module stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .store import ProgressStore

__all__ = ["LEARN_AHEAD", "QUIZ_HINT_WINDOW", "StudyPlan", "plan_next"]

LEARN_AHEAD = timedelta(minutes=20)
QUIZ_HINT_WINDOW = timedelta(days=1)  # a new card's quiz answer this recent suggests a rating


@dataclass
class StudyPlan:
    """What to show next, computed off the UI thread."""

    question_id: str | None
    previews: dict[int, tuple[datetime, float]] = field(default_factory=dict)  # rating -> (due, seconds)
    due: int = 0
    new: int = 0
    card_state: int | None = None
    reps: int = 0
    lapses: int = 0
    recall: float | None = None
    next_due: datetime | None = None
    new_limit: int = 0
    quiz_correct: bool | None = None  # the latest Quiz answer since the last review (see QUIZ_HINT_WINDOW)
    quiz_at: datetime | None = None


def plan_next(
    store: ProgressStore,
    ids: list[str],
    now: datetime,
    avoid: str | None,
    force: str | None,
    topic_id: str | None,
) -> StudyPlan:
    """Runs in the worker thread: reads the store only."""
    # the Demo lab's predictions (quizbank.predictions) first: new ones are shown before the banks' new ones
    ids = store.own_card_ids(topic_id) + ids
    if any(qid.startswith("drill:") for qid in ids):  # only solved drills have a card; never new ones
        with_cards = set(store.card_due_times())
        ids = [qid for qid in ids if not qid.startswith("drill:") or qid in with_cards]
    queue = store.study_queue(ids, now)
    candidates = queue.ids
    if not candidates:
        candidates = store.study_queue(ids, now, learn_ahead=LEARN_AHEAD).due
    if force is not None:
        next_id: str | None = force
    elif candidates:
        others = [qid for qid in candidates if qid != avoid]
        next_id = others[0] if others else candidates[0]
    else:
        next_id = None
    plan = StudyPlan(
        question_id=next_id,
        due=len(queue.due),
        new=len(queue.new),
        new_limit=int(store.get_setting("new_per_day")),
    )
    if next_id is None:
        wanted = set(ids)
        dues = [card.due for qid, card in store.cards().items() if qid in wanted]
        plan.next_due = min(dues) if dues else None
        return plan
    for rating, preview in store.preview(next_id, now).items():
        plan.previews[int(rating)] = (preview.due, preview.interval.total_seconds())
    info = store.card_info(next_id, now)
    if info is not None:
        plan.card_state = int(info.card.state)
        plan.reps, plan.lapses, plan.recall = info.reps, info.lapses, info.retrievability
    last_review = info.card.last_review if info is not None else None
    attempt = store.last_attempt(next_id, since=last_review or now - QUIZ_HINT_WINDOW)
    if attempt is not None:
        plan.quiz_correct, plan.quiz_at = attempt.correct, attempt.attempted_at
    return plan
