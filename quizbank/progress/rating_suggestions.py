"""The rating a typed open answer's key points suggest (Study shows it; only the user's own rating schedules).

Any contradicted point suggests Again; else by the share of points covered: under 40% Again, under 70% Hard,
under 100% Good, every point Easy.
"""

from __future__ import annotations

__all__ = ["RATING_SHARES", "suggested_rating"]

# (coverage below this share, rating): Again, Hard, Good; all points covered suggests Easy
RATING_SHARES = ((0.4, 1), (0.7, 2), (1.0, 3))


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
