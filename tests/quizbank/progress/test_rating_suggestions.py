"""The rating a typed open answer's key points suggest (`quizbank.progress.rating_suggestions`)."""

from __future__ import annotations

from quizbank.progress.rating_suggestions import suggested_rating


def test_suggested_rating_follows_the_share_of_points_covered() -> None:
    assert suggested_rating(0, 4) == 1 and suggested_rating(1, 4) == 1  # < 40%: Again
    assert suggested_rating(2, 4) == 2 and suggested_rating(2, 3) == 2  # 50%, 67%: Hard
    assert suggested_rating(3, 4) == 3 and suggested_rating(7, 10) == 3  # 75%, 70%: Good
    assert suggested_rating(4, 4) == 4 and suggested_rating(1, 1) == 4  # all: Easy
    assert suggested_rating(0, 0) is None
