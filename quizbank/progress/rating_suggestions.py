"""The rating Study suggests for a card, and why. Only shown: only the user's own rating schedules.

- the card's own auto-graded answer: wrong -> Again, right -> Good (`for_answer`, reason "wrong" / "right");
- a Quiz answer given since the card's last review (for a new card, in the last day): the same, reason
  "quiz_wrong" / "quiz_right" (`for_quiz_answer`);
- a typed open answer's key points (`for_key_points`): any contradicted point suggests Again (reason
  "contradicted"); else by the share of points covered (reason "points"): under 40% Again, under 70% Hard,
  under 100% Good, every point Easy (`suggested_rating`).

fsrs is imported only when a right/wrong answer is mapped (`quizbank.progress.scheduler.suggest_rating`), so the
answer widgets may import this module cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "RATING_SHARES",
    "Suggestion",
    "for_answer",
    "for_key_points",
    "for_quiz_answer",
    "suggested_rating",
]

# (coverage below this share, rating): Again, Hard, Good; all points covered suggests Easy
RATING_SHARES = ((0.4, 1), (0.7, 2), (1.0, 3))


@dataclass(frozen=True)
class Suggestion:
    """A suggested rating (1 Again .. 4 Easy) and its reason; `covered`/`total`/`contradicted` count the key
    points of a typed open answer (reasons "points" and "contradicted")."""

    rating: int
    reason: str  # "right", "wrong", "quiz_right", "quiz_wrong", "points" or "contradicted"
    covered: int = 0
    total: int = 0
    contradicted: int = 0


def suggested_rating(covered: int, total: int, contradicted: int = 0) -> int | None:
    """The rating (1 Again .. 4 Easy) that covering `covered` of `total` key points suggests; a point the
    answer contradicts suggests Again whatever the rest."""
    if total <= 0:
        return None
    if contradicted:
        return 1
    share = covered / total
    for limit, rating in RATING_SHARES:
        if share < limit:
            return rating
    return 4


def _graded(correct: bool | None, prefix: str) -> Suggestion | None:
    from .scheduler import suggest_rating

    rating = suggest_rating(correct)
    if rating is None:
        return None
    return Suggestion(int(rating), prefix + ("right" if correct else "wrong"))


def for_answer(correct: bool | None) -> Suggestion | None:
    """The card's own auto-graded answer (None: self-graded or not answered, nothing suggested)."""
    return _graded(correct, "")


def for_quiz_answer(correct: bool | None) -> Suggestion | None:
    """A Quiz answer given since the card's last review (`StudyPlan.quiz_correct`)."""
    return _graded(correct, "quiz_")


def for_key_points(covered: int, total: int, contradicted: int = 0) -> Suggestion | None:
    """A typed open answer's key points: `covered` of `total`, `contradicted` of them contradicted."""
    rating = suggested_rating(covered, total, contradicted)
    if rating is None:
        return None
    reason = "contradicted" if contradicted else "points"
    return Suggestion(rating, reason, covered, total, contradicted)
