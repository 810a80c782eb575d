"""FSRS scheduling through the store with a fixed clock: growth, lapses, previews, undo, a simulated week."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from quizbank.progress.scheduler import (
    Rating,
    SeededScheduler,
    State,
    format_interval,
    new_card,
    stable_card_id,
    suggest_rating,
)
from quizbank.progress.stats import compute_stats
from quizbank.progress.store import open_store

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def _interval(result) -> timedelta:
    return result.card_after.due - result.reviewed_at


def test_good_intervals_grow_and_again_resets(store):
    now = T0
    intervals = []
    for _ in range(7):
        result = store.review("q", Rating.Good, now)
        intervals.append(_interval(result))
        now = result.card_after.due
    # Learning steps (10 min), then graduation, then strictly growing review intervals.
    assert intervals[0] == timedelta(minutes=10)
    review_intervals = intervals[1:]
    assert all(b > a for a, b in zip(review_intervals, review_intervals[1:]))
    assert review_intervals[0] >= timedelta(days=1)
    assert review_intervals[-1] > timedelta(days=60)
    card = store.card("q")
    assert card.state == State.Review
    stability_before = card.stability

    lapse = store.review("q", Rating.Again, now)
    assert lapse.card_after.state == State.Relearning
    assert _interval(lapse) == timedelta(minutes=10)  # relearning step
    assert lapse.card_after.stability < stability_before
    info = store.card_info("q", now)
    assert info.reps == 8 and info.lapses == 1

    relearned = store.review("q", Rating.Good, lapse.card_after.due)
    assert relearned.card_after.state == State.Review
    assert _interval(relearned) < review_intervals[-1]  # reset: far shorter than before the lapse


def test_known_first_intervals_for_a_new_card(store):
    preview = store.preview("new-q", T0)
    assert {r: p.interval for r, p in preview.items()} == {
        Rating.Again: timedelta(minutes=1),
        Rating.Hard: timedelta(minutes=5, seconds=30),  # mean of the 1 and 10 minute steps
        Rating.Good: timedelta(minutes=10),
        Rating.Easy: timedelta(days=8),  # FSRS-6 default w3 = 8.2956 days -> 8
    }
    assert store.card("new-q") is None and store.review_count() == 0  # preview changes nothing


@pytest.mark.parametrize("fuzz", [False, True])
def test_preview_matches_the_review_it_previews(tmp_path, fuzz):
    with open_store(tmp_path) as store:
        store.set_setting("enable_fuzzing", fuzz)
        now = T0
        for step, rating in enumerate([Rating.Good, Rating.Good, Rating.Easy, Rating.Hard, Rating.Good] * 2):
            preview = store.preview("q", now)
            result = store.review("q", rating, now)
            assert result.card_after.due == preview[rating].due, step
            now = result.card_after.due + timedelta(hours=step)


def test_undo_restores_exactly_and_deletes_the_review(store):
    store.review("q", Rating.Good, T0)
    second = store.review("q", Rating.Good, T0 + timedelta(minutes=10))
    saved_json = store.card_json("q")
    saved_info = store.card_info("q", T0 + timedelta(days=1))
    store.review("q", Rating.Again, second.card_after.due, duration_ms=4000)
    assert store.card_json("q") != saved_json
    undone = store.undo_last()
    assert undone.question_id == "q" and undone.rating == Rating.Again
    assert store.card_json("q") == saved_json  # byte for byte
    assert undone.card.to_dict() == second.card_after.to_dict()
    assert store.review_count() == 2
    assert store.card_info("q", T0 + timedelta(days=1)) == saved_info
    # Undo back to a new question, then nothing is left to undo.
    store.undo_last()
    assert store.undo_last().card is None
    assert store.card("q") is None and store.review_count() == 0
    assert store.undo_last() is None and not store.can_undo
    # After undo the same rating at the same time gives the same state as before.
    redo = store.review("q", Rating.Good, T0)
    assert redo.card_after.due == T0 + timedelta(minutes=10)


def test_undo_is_per_session_and_refuses_to_drop_a_later_review(tmp_path):
    first = open_store(tmp_path)
    other = open_store(tmp_path)
    try:
        first.review("q", Rating.Good, T0)
        assert other.undo_last() is None  # nothing rated in that session
        other.review("q", Rating.Good, T0 + timedelta(minutes=10))
        from quizbank.progress.store import StoreError

        with pytest.raises(StoreError, match="reviewed again"):
            first.undo_last()
        assert first.review_count() == 2
    finally:
        first.close()
        other.close()


def test_higher_desired_retention_gives_shorter_intervals(tmp_path):
    def graduated_interval(retention: float) -> timedelta:
        folder = tmp_path / str(retention)
        with open_store(folder) as s:
            s.set_setting("enable_fuzzing", False)
            s.set_setting("desired_retention", retention)
            s.review("q", Rating.Good, T0)
            result = s.review("q", Rating.Good, T0 + timedelta(minutes=10))
            result = s.review("q", Rating.Good, result.card_after.due)
            return _interval(result)

    assert graduated_interval(0.95) < graduated_interval(0.9) < graduated_interval(0.8)


def test_a_simulated_week_gives_sensible_intervals_and_stats(store):
    """30 questions, 10 new a day, one study session a day for 7 days. `hard-*` ones are always forgotten once
    they reach review; the rest are answered Good. Learning steps are repeated within the session."""
    ids = [f"easy-{i:02d}" for i in range(24)] + [f"hard-{i}" for i in range(6)]
    store.set_setting("new_per_day", 10)
    log: list[tuple[str, Rating, datetime]] = []
    for day in range(7):
        now = T0 + timedelta(days=day)
        queue = store.study_queue(ids, now)
        pending = list(queue.ids)
        while pending:
            qid = pending.pop(0)
            card = store.card(qid)
            rating = (
                Rating.Again
                if qid.startswith("hard") and card is not None and card.state == State.Review
                else Rating.Good
            )
            result = store.review(qid, rating, now)
            log.append((qid, rating, now))
            now += timedelta(seconds=30)
            if result.card_after.due <= now + timedelta(minutes=20):  # learning step: see it again today
                now = max(now, result.card_after.due)
                pending.append(qid)

    final = T0 + timedelta(days=7)
    cards = store.cards()
    assert set(cards) == set(ids)  # 10 new per day: all 30 introduced by day 3
    assert store.introduced_on_day(T0) == 10 and store.introduced_on_day(T0 + timedelta(days=3)) == 0
    easy_intervals = [(cards[q].due - cards[q].last_review).days for q in ids if q.startswith("easy")]
    assert all(2 <= d <= 40 for d in easy_intervals), easy_intervals
    assert all(cards[q].due > final - timedelta(days=1) for q in ids)  # nothing left overdue after a week
    hard_lapses = {q: n for q, n in store.lapses().items()}
    assert set(hard_lapses) == {f"hard-{i}" for i in range(6)}
    hard_stability = max(cards[f"hard-{i}"].stability for i in range(6))
    easy_stability = min(cards[q].stability for q in ids if q.startswith("easy"))
    assert hard_stability < easy_stability

    last = max(at for _, _, at in log)
    stats = compute_stats(store, {"all": ids}, last)
    active_days = {at.date() for _, _, at in log}
    expected_streak, day = 0, last.date()
    while day in active_days:
        expected_streak, day = expected_streak + 1, day - timedelta(days=1)
    assert stats.streak_days == expected_streak >= 5
    per_day = {d.day: d.count for d in stats.reviews_per_day}
    for date in sorted(active_days):
        assert per_day[date] == sum(1 for _, _, at in log if at.date() == date)
    assert stats.reviews_in_window == len(log)
    assert sum(per_day.values()) == len(log)
    lapses = [(q, r) for q, r, _ in log if q.startswith("hard") and r == Rating.Again]
    assert stats.retention_reviews - stats.retention_recalled == len(lapses) == 6
    assert 0.5 < stats.true_retention < 1
    horizon = last.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=14)
    assert sum(d.count for d in stats.due_forecast) == sum(1 for c in cards.values() if c.due < horizon)


def test_stable_card_id_and_new_card():
    assert stable_card_id("rope.basics") == stable_card_id("rope.basics") != stable_card_id("rope.basic")
    assert 0 < stable_card_id("x") < 2**53
    card = new_card("x", T0)
    assert card.state == State.Learning and card.step == 0 and card.due == T0


def test_naive_times_are_rejected(store):
    with pytest.raises(ValueError, match="timezone-aware"):
        store.review("q", Rating.Good, datetime(2025, 1, 1))


def test_non_utc_times_are_converted():
    scheduler = SeededScheduler(enable_fuzzing=False)
    from datetime import timezone

    plus8 = timezone(timedelta(hours=8))
    card = scheduler.review_seeded("q", 0, new_card("q", T0), Rating.Good, T0.astimezone(plus8))
    assert card.due == T0 + timedelta(minutes=10) and card.due.tzinfo == UTC


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (timedelta(seconds=30), "<1m"),
        (timedelta(minutes=10), "10m"),
        (timedelta(hours=5), "5h"),
        (timedelta(days=3), "3d"),
        (timedelta(days=45), "1.5mo"),
        (timedelta(days=61), "2mo"),
        (timedelta(days=800), "2.2y"),
    ],
)
def test_format_interval(delta, text):
    assert format_interval(delta) == text


@pytest.mark.parametrize(
    ("delta", "text"),
    [
        (timedelta(seconds=30), "<1 分钟"),
        (timedelta(minutes=10), "10 分钟"),
        (timedelta(hours=5), "5 小时"),
        (timedelta(days=3), "3 天"),
        (timedelta(days=45), "1.5 个月"),
        (timedelta(days=61), "2 个月"),
        (timedelta(days=800), "2.2 年"),
    ],
)
def test_format_interval_in_chinese(delta, text):
    assert format_interval(delta, "zh") == text


def test_suggest_rating():
    assert suggest_rating(True) == Rating.Good
    assert suggest_rating(False) == Rating.Again
    assert suggest_rating(None) is None


def test_a_quiz_answer_schedules_by_the_stores_rule_on_a_fixed_clock(store):
    """Wrong: an Again review, even on a new question; right: a Good review only on a card due by `now`,
    else nothing. The clock is the caller's (`now`), as with fsrs's `review_datetime`."""
    assert store.review_quiz_answer("q.new", True, T0) is None  # right on a new question: nothing
    assert store.card("q.new") is None and store.review_count() == 0

    wrong = store.review_quiz_answer("q.new", False, T0, duration_ms=1200)
    assert wrong is not None and wrong.rating == Rating.Again and wrong.reviewed_at == T0
    assert wrong.card_before is None and wrong.card_after.due == T0 + timedelta(minutes=1)

    studied = store.review("q.seen", Rating.Easy, T0)
    due = studied.card_after.due
    assert due > T0 + timedelta(days=1)
    assert store.review_quiz_answer("q.seen", True, due - timedelta(hours=1)) is None  # not due yet
    assert store.review_count() == 2
    right = store.review_quiz_answer("q.seen", True, due + timedelta(hours=1))
    assert right is not None and right.rating == Rating.Good
    assert right.reviewed_at == due + timedelta(hours=1) and right.card_before.due == due
    assert store.can_undo and store.undo_last().question_id == "q.seen"  # a quiz review undoes as any
