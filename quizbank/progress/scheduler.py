"""FSRS-6 scheduling on top of the `fsrs` package (py-fsrs 6.x, https://github.com/open-spaced-repetition/py-fsrs).

FSRS models memory with three numbers per card: difficulty D, stability S (days until recall probability drops
to 90 %) and retrievability R(t) = (1 + F * t / S) ** -w20, with F = 0.9 ** (-1 / w20) - 1, so R(S) = 0.9. After
each review the next interval is the t at which R(t) falls to the desired retention.

The package's own fuzz (a few days of random spread on long intervals, so that cards learned together do not stay
together) draws from the global `random` module. Here the fuzz is drawn from a generator seeded by the question id
and the card's review count, so that:

- the interval a rating button previews is exactly the interval the review then gives;
- replaying a card's history (after `progress import`) rebuilds the same states;
- tests are deterministic even with fuzzing on.

Every datetime is timezone-aware UTC.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fsrs import Card, Rating, Scheduler, State
from fsrs.scheduler import DEFAULT_PARAMETERS, FUZZ_RANGES, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

__all__ = [
    "DEFAULT_PARAMETERS",
    "RATING_LABELS",
    "Card",
    "Preview",
    "check_parameters",
    "Rating",
    "SeededScheduler",
    "State",
    "format_interval",
    "new_card",
    "stable_card_id",
    "suggest_rating",
    "to_utc",
]

RATING_LABELS: dict[Rating, str] = {
    Rating.Again: "Again",
    Rating.Hard: "Hard",
    Rating.Good: "Good",
    Rating.Easy: "Easy",
}


def to_utc(moment: datetime | None) -> datetime:
    """`moment` as an aware datetime in `datetime.UTC` (the now if None). Naive datetimes are rejected."""
    if moment is None:
        return datetime.now(UTC)
    if moment.tzinfo is None or moment.tzinfo.utcoffset(moment) is None:
        raise ValueError(f"naive datetime {moment.isoformat()} given; progress times must be timezone-aware")
    return moment.astimezone(UTC)


def check_parameters(values: object) -> tuple[float, ...]:
    """FSRS-6 weights (21 finite numbers, each within fsrs's bounds) as a tuple of floats; ValueError with a
    one-line reason naming the first weight out of bounds."""
    if not isinstance(values, list | tuple) or len(values) != len(DEFAULT_PARAMETERS):
        raise ValueError(f"FSRS-6 parameters are a list of {len(DEFAULT_PARAMETERS)} numbers")
    out = []
    for index, (value, low, high) in enumerate(zip(values, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= float(value) <= high:
            raise ValueError(
                f"FSRS-6 parameter w{index} must be a number from {low:g} to {high:g} (got {value!r})"
            )
        out.append(float(value))
    return tuple(out)


def stable_card_id(question_id: str) -> int:
    """A card id that depends only on the question id (first 52 bits of its SHA-256), so it fits JSON numbers."""
    digest = hashlib.sha256(question_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 12


def new_card(question_id: str, now: datetime) -> Card:
    """A never-reviewed card: FSRS state Learning, step 0, due now."""
    return Card(card_id=stable_card_id(question_id), due=to_utc(now))


def _fuzz_seed(question_id: str, review_index: int, last_review: datetime | None) -> int:
    stamp = last_review.isoformat() if last_review else "new"
    digest = hashlib.sha256(f"{question_id}|{review_index}|{stamp}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class SeededScheduler(Scheduler):
    """`fsrs.Scheduler` whose interval fuzz comes from a per-review seeded generator (see module docstring).

    Parameters are those of `fsrs.Scheduler`: desired_retention (0.9 by default), learning_steps (1 min, 10 min),
    relearning_steps (10 min), maximum_interval (36500 days), enable_fuzzing.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fuzz_rng = random.Random(0)

    def review_seeded(
        self,
        question_id: str,
        review_index: int,
        card: Card,
        rating: Rating,
        when: datetime,
        duration_ms: int | None = None,
    ) -> Card:
        """Review a copy of `card` (the argument is not changed); `review_index` = reviews the card had before."""
        self._fuzz_rng.seed(_fuzz_seed(question_id, review_index, card.last_review))
        after, _log = self.review_card(card, Rating(int(rating)), to_utc(when), duration_ms)
        return after

    def _get_fuzzed_interval(self, *, interval: timedelta) -> timedelta:
        # Same ranges as fsrs.Scheduler._get_fuzzed_interval (Anki's fuzz), but a seeded draw.
        interval_days = interval.days
        if interval_days < 2.5:
            return interval
        delta = 1.0
        for fuzz_range in FUZZ_RANGES:
            delta += fuzz_range["factor"] * max(
                min(float(interval_days), fuzz_range["end"]) - fuzz_range["start"], 0.0
            )
        min_ivl = max(2, round(interval_days - delta))
        max_ivl = min(round(interval_days + delta), self.maximum_interval)
        min_ivl = min(min_ivl, max_ivl)
        fuzzed = self._fuzz_rng.random() * (max_ivl - min_ivl + 1) + min_ivl
        return timedelta(days=min(round(fuzzed), self.maximum_interval))


@dataclass(frozen=True)
class Preview:
    """What one rating would do: the card's next due time and the interval from now."""

    rating: Rating
    due: datetime
    interval: timedelta

    @property
    def label(self) -> str:
        return format_interval(self.interval)


# unit suffixes per language: minute, hour, day, month, year (Chinese puts a space before the unit)
INTERVAL_UNITS = {"en": ("m", "h", "d", "mo", "y"), "zh": (" 分钟", " 小时", " 天", " 个月", " 年")}


def format_interval(interval: timedelta, lang: str = "en") -> str:
    """Anki-style short interval: '<1m', '10m', '5h', '3d', '1.5mo', '2.1y'; in Chinese ('zh')
    '<1 分钟', '10 分钟', '5 小时', '3 天', '1.5 个月', '2.1 年'."""
    minute, hour, day, month, year = INTERVAL_UNITS.get(lang, INTERVAL_UNITS["en"])
    seconds = interval.total_seconds()
    if seconds < 60:
        return f"<1{minute}"
    minutes = seconds / 60
    if minutes < 60:
        return f"{round(minutes)}{minute}"
    hours = minutes / 60
    if hours < 24:
        return f"{round(hours)}{hour}"
    days = hours / 24
    if days < 30:
        return f"{round(days)}{day}"
    if days < 365:
        return f"{days / 30.4375:.1f}".removesuffix(".0") + month
    return f"{days / 365.25:.1f}".removesuffix(".0") + year


def suggest_rating(correct: bool | None) -> Rating | None:
    """A rating suggested by auto-grading: wrong -> Again, right -> Good.

    None (self-graded, or not answered) suggests nothing. Only the user's own rating schedules.
    """
    if correct is None:
        return None
    return Rating.Good if correct else Rating.Again
