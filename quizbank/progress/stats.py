"""Study statistics computed from the progress store (all days are UTC calendar days).

- reviews per day over the last `days` days (oldest first, today last);
- true retention: among reviews of cards that were in the Review state (not learning or relearning steps), the
  share rated Hard, Good or Easy, i.e. recalled (Anki's "true retention"), over the same window;
- due forecast for the next `forecast_days` days (today's bucket includes overdue cards);
- mastery per topic: mean FSRS retrievability R = (1 + F * t / S) ** -w20 over all the topic's questions, an
  unseen one counting as 0;
- current streak: consecutive days with at least one review, ending today (or yesterday, if today has none yet);
- leeches: cards with at least `leech_lapses` lapses (Again while in Review), most-lapsed first;
- the scheduler's parameters: fitted to these reviews (`posenc progress optimize`) or fsrs's defaults.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from quizbank.progress.records import FittedParameters
from quizbank.progress.scheduler import Rating, State, to_utc
from quizbank.progress.store import ProgressStore, TopicProgress, utc_day_start

__all__ = ["DayCount", "Leech", "Stats", "compute_stats", "scheduler_line"]


@dataclass(frozen=True)
class DayCount:
    day: date
    count: int


@dataclass(frozen=True)
class Leech:
    question_id: str
    lapses: int
    topic_id: str | None


@dataclass(frozen=True)
class Stats:
    now: datetime
    days: int
    reviews_per_day: list[DayCount]
    reviews_in_window: int
    reviews_total: int
    reviewed_today: int
    retention_recalled: int
    retention_reviews: int
    due_forecast: list[DayCount]
    mastery: dict[str, TopicProgress]
    streak_days: int
    leeches: list[Leech]
    attempts_in_window: int
    attempts_correct: int
    cards_by_state: dict[str, int]
    fitted: FittedParameters | None = None  # the FSRS parameters in use when fitted; None: fsrs's defaults

    @property
    def true_retention(self) -> float | None:
        """Recalled share of Review-state reviews in the window; None without any."""
        if not self.retention_reviews:
            return None
        return self.retention_recalled / self.retention_reviews

    @property
    def quiz_accuracy(self) -> float | None:
        if not self.attempts_in_window:
            return None
        return self.attempts_correct / self.attempts_in_window


def _streak(active_days: set[date], today: date) -> int:
    day = today if today in active_days else today - timedelta(days=1)
    streak = 0
    while day in active_days:
        streak += 1
        day -= timedelta(days=1)
    return streak


def compute_stats(
    store: ProgressStore,
    topics: Mapping[str, Sequence[str]],
    now: datetime | None = None,
    days: int = 30,
    forecast_days: int = 14,
    leech_lapses: int = 5,
) -> Stats:
    """Stats for the questions in `topics` ({topic_id: [question ids]}); reviews count whatever their question.

    Forecast, card states and leeches cover only questions in `topics` when it is non-empty (orphans have no
    question to study); review counts, retention and the streak cover all history.
    """
    when = to_utc(now)
    today_start = utc_day_start(when)
    today = today_start.date()
    window_start = today_start - timedelta(days=days - 1)

    topic_of = {qid: topic_id for topic_id, ids in topics.items() for qid in ids}
    known = set(topic_of) if topic_of else None

    reviews = store.review_rows()
    per_day = Counter(row.reviewed_at.date() for row in reviews)
    window = [row for row in reviews if row.reviewed_at >= window_start]
    in_review = [row for row in window if row.state_before == State.Review]
    recalled = sum(1 for row in in_review if row.rating != Rating.Again)

    cards = {qid: card for qid, card in store.cards().items() if known is None or qid in known}
    forecast: Counter[int] = Counter()
    for card in cards.values():
        offset = max(0, (utc_day_start(card.due) - today_start).days)
        if offset < forecast_days:
            forecast[offset] += 1
    states = Counter(State(card.state).name.lower() for card in cards.values())

    leeches = sorted(
        (
            Leech(qid, n, topic_of.get(qid))
            for qid, n in store.lapses().items()
            if n >= leech_lapses and (known is None or qid in known)
        ),
        key=lambda leech: (-leech.lapses, leech.question_id),
    )

    attempts = store.attempts(since=window_start)
    graded = [a for a in attempts if a.correct is not None]

    return Stats(
        now=when,
        days=days,
        reviews_per_day=[
            DayCount(d, per_day.get(d, 0))
            for d in (today - timedelta(days=days - 1 - i) for i in range(days))
        ],
        reviews_in_window=len(window),
        reviews_total=len(reviews),
        reviewed_today=per_day.get(today, 0),
        retention_recalled=recalled,
        retention_reviews=len(in_review),
        due_forecast=[DayCount(today + timedelta(days=i), forecast.get(i, 0)) for i in range(forecast_days)],
        mastery=store.topic_summary(topics, when),
        streak_days=_streak(set(per_day), today),
        leeches=leeches,
        attempts_in_window=len(graded),
        attempts_correct=sum(1 for a in graded if a.correct),
        cards_by_state={name: states.get(name, 0) for name in ("learning", "review", "relearning")},
        fitted=store.fitted(),
    )


def scheduler_line(fitted: FittedParameters | None, lang: str = "en") -> str:
    """What schedules: "FSRS-6, fsrs's default parameters" or "FSRS-6 fitted to 1,048 reviews on 2026-05-04
    (log loss 0.4846 -> 0.4670)", in the CLI's language (the app words it in its own strings)."""
    from ..cli_text import say

    if fitted is None:
        return say("stats.scheduler_default", lang)
    text = say(
        "stats.scheduler_fitted", lang, reviews=f"{fitted.reviews:,}", day=f"{fitted.fitted_at:%Y-%m-%d}"
    )
    before, after = fitted.report.get("before"), fitted.report.get("after")
    if isinstance(before, dict) and isinstance(after, dict):
        try:
            text += f" (log loss {float(before['log_loss']):.4f} -> {float(after['log_loss']):.4f})"
        except (KeyError, TypeError, ValueError):
            pass
    return text
