"""The rating a typed open answer's key points suggest (`quizbank.progress.rating_suggestions`)."""

from __future__ import annotations

from quizbank.progress.rating_suggestions import (
    Suggestion,
    for_answer,
    for_key_points,
    for_quiz_answer,
    suggested_rating,
)


def test_suggested_rating_follows_the_share_of_points_covered() -> None:
    assert suggested_rating(0, 4) == 1 and suggested_rating(1, 4) == 1  # < 40%: Again
    assert suggested_rating(2, 4) == 2 and suggested_rating(2, 3) == 2  # 50%, 67%: Hard
    assert suggested_rating(3, 4) == 3 and suggested_rating(7, 10) == 3  # 75%, 70%: Good
    assert suggested_rating(4, 4) == 4 and suggested_rating(1, 1) == 4  # all: Easy
    assert suggested_rating(0, 0) is None


def test_a_graded_answer_suggests_good_or_again_with_its_reason() -> None:
    assert for_answer(True) == Suggestion(3, "right") and for_answer(False) == Suggestion(1, "wrong")
    assert for_quiz_answer(True) == Suggestion(3, "quiz_right")
    assert for_quiz_answer(False) == Suggestion(1, "quiz_wrong")
    assert for_answer(None) is None and for_quiz_answer(None) is None  # self-graded: nothing


def test_key_points_suggest_by_coverage_unless_one_is_contradicted() -> None:
    assert for_key_points(3, 4) == Suggestion(3, "points", covered=3, total=4)
    assert for_key_points(4, 4, 1) == Suggestion(1, "contradicted", covered=4, total=4, contradicted=1)
    assert for_key_points(0, 0) is None
