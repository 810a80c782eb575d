"""Stats on a hand-seeded store: every number checked against the seeded history."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from quizbank.progress.scheduler import Rating, State
from quizbank.progress.stats import Leech, compute_stats
from quizbank.progress.store import open_store

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def at(day: int, hour: int, minute: int = 0, month: int = 3) -> datetime:
    return datetime(2025, month, day, hour, minute, tzinfo=UTC)


@pytest.fixture
def seeded(tmp_path):
    store = open_store(tmp_path)
    store.set_setting("enable_fuzzing", False)
    # An old review, 40 days back: outside the 30-day window, of a question no longer in the banks.
    store.review("old", Rating.Good, NOW - timedelta(days=40))
    # "leech": learned on Mar 1, then forgotten every day Mar 2..6 (5 lapses), relearned each time.
    store.review("leech", Rating.Good, at(1, 9))
    store.review("leech", Rating.Good, at(1, 9, 10))
    for day in range(2, 7):
        store.review("leech", Rating.Again, at(day, 9))
        store.review("leech", Rating.Good, at(day, 9, 10))
    # "a": learned Mar 8, recalled on Mar 10 while in review.
    store.review("a", Rating.Good, at(8, 9))
    store.review("a", Rating.Good, at(8, 9, 10))
    store.review("a", Rating.Good, at(10, 9))
    # "b": still in learning steps since Mar 9 (overdue).
    store.review("b", Rating.Again, at(9, 9))
    store.review("b", Rating.Good, at(9, 9, 1))
    # Quiz attempts: two right and one wrong in the window, one self-graded, one too old to count.
    store.record_attempt("a", True, "A", 1000, at(9, 10))
    store.record_attempt("a", True, "A", 1000, at(10, 10))
    store.record_attempt("b", False, "C", 3000, at(10, 10, 5))
    store.record_attempt("b", None, "", 3000, at(10, 10, 6))
    store.record_attempt("b", True, "B", 3000, NOW - timedelta(days=31))
    yield store
    store.close()


TOPICS = {"t1": ["leech", "a"], "t2": ["b", "never"]}


def test_review_counts_per_day_and_totals(seeded):
    stats = compute_stats(seeded, TOPICS, NOW)
    assert len(stats.reviews_per_day) == 30
    assert stats.reviews_per_day[0].day == date(2025, 2, 9)
    assert stats.reviews_per_day[-1].day == date(2025, 3, 10)
    nonzero = {d.day.day: d.count for d in stats.reviews_per_day if d.count}
    assert nonzero == {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 2, 10: 1}
    assert stats.reviews_in_window == 17
    assert stats.reviews_total == 18
    assert stats.reviewed_today == 1


def test_true_retention_counts_only_review_state_reviews(seeded):
    stats = compute_stats(seeded, TOPICS, NOW)
    # In review state: the leech's 5 Again ratings and "a"'s Good on Mar 10. Learning steps do not count.
    assert (stats.retention_recalled, stats.retention_reviews) == (1, 6)
    assert stats.true_retention == pytest.approx(1 / 6)


def test_streak_counts_consecutive_utc_days(seeded):
    assert compute_stats(seeded, TOPICS, NOW).streak_days == 3  # Mar 8, 9, 10 (Mar 7 has none)
    # Before today's first review the streak still counts up to yesterday.
    assert compute_stats(seeded, TOPICS, at(11, 8)).streak_days == 3
    # A day without reviews breaks it.
    assert compute_stats(seeded, TOPICS, at(12, 8)).streak_days == 0


def test_leeches_and_card_states(seeded):
    stats = compute_stats(seeded, TOPICS, NOW)
    assert stats.leeches == [Leech("leech", 5, "t1")]
    assert compute_stats(seeded, TOPICS, NOW, leech_lapses=6).leeches == []
    assert stats.cards_by_state == {"learning": 1, "review": 2, "relearning": 0}


def test_due_forecast_buckets(seeded):
    stats = compute_stats(seeded, TOPICS, NOW)
    cards = seeded.cards()
    assert len(stats.due_forecast) == 14 and stats.due_forecast[0].day == date(2025, 3, 10)
    assert cards["b"].state == State.Learning and cards["b"].due < NOW  # overdue -> today
    assert cards["leech"].due < NOW  # short interval after 5 lapses -> overdue -> today
    a_offset = (cards["a"].due.date() - date(2025, 3, 10)).days
    assert 1 <= a_offset < 14
    expected = [0] * 14
    expected[0] += 2
    expected[a_offset] += 1
    assert [d.count for d in stats.due_forecast] == expected  # "old" is not in the banks: not forecast


def test_mastery_and_quiz_accuracy(seeded):
    stats = compute_stats(seeded, TOPICS, NOW)
    scheduler = seeded.scheduler
    cards = seeded.cards()
    r = {q: scheduler.get_card_retrievability(cards[q], NOW) for q in ("leech", "a", "b")}
    assert stats.mastery["t1"].mastery == pytest.approx((r["leech"] + r["a"]) / 2)
    assert stats.mastery["t1"].studied == 2 and stats.mastery["t1"].new == 0
    assert stats.mastery["t2"].mastery == pytest.approx(r["b"] / 2)  # its unseen question counts as 0
    assert stats.mastery["t2"].new == 1 and stats.mastery["t2"].due == 1
    assert (stats.attempts_correct, stats.attempts_in_window) == (2, 3)
    assert stats.quiz_accuracy == pytest.approx(2 / 3)


def test_empty_store_stats(tmp_path):
    with open_store(tmp_path) as store:
        stats = compute_stats(store, {"t": ["x"]}, NOW)
    assert stats.true_retention is None and stats.quiz_accuracy is None
    assert stats.streak_days == 0 and stats.leeches == [] and stats.reviews_total == 0
    assert [d.count for d in stats.due_forecast] == [0] * 14
    assert stats.mastery["t"].mastery is None and stats.mastery["t"].new == 1
