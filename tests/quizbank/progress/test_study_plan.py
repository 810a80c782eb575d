"""Study's card plan (`quizbank.progress.study_plan.plan_next`) on a real store with fuzzing off."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from quizbank.progress.study_plan import LEARN_AHEAD, QUIZ_HINT_WINDOW, plan_next

NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def test_new_cards_come_in_bank_order_up_to_the_daily_limit(store: Any) -> None:
    store.set_setting("new_per_day", 2)
    plan = plan_next(store, ["a", "b", "c"], NOW, None, None, None)
    assert (plan.question_id, plan.due, plan.new, plan.new_limit) == ("a", 0, 2, 2)
    assert plan.card_state is None and (plan.reps, plan.lapses, plan.recall) == (0, 0, None)
    # what each rating would give a new card: 1 minute, 5.5, 10 (learning steps), Easy days ahead
    assert {r: seconds for r, (_, seconds) in plan.previews.items()} == {
        1: 60.0,
        2: 330.0,
        3: 600.0,
        4: 8 * 86400.0,
    }
    assert plan.previews[3][0] == NOW + timedelta(minutes=10)


def test_the_card_just_rated_waits_while_another_is_left(store: Any) -> None:
    store.review("a", 3, NOW)  # Good: learning, due in 10 minutes
    assert plan_next(store, ["a", "b"], NOW, "a", None, None).question_id == "b"
    # nothing else left: the learning card is shown early (within LEARN_AHEAD), even the one just rated
    plan = plan_next(store, ["a"], NOW, "a", None, None)
    assert timedelta(minutes=20) == LEARN_AHEAD
    assert (plan.question_id, plan.due, plan.new, plan.card_state, plan.reps) == ("a", 0, 0, 1, 1)


def test_nothing_left_says_when_the_next_card_is_due(store: Any) -> None:
    store.review("a", 4, NOW)  # Easy: 8 days
    plan = plan_next(store, ["a"], NOW, None, None, None)
    assert plan.question_id is None and plan.next_due == NOW + timedelta(days=8) and plan.previews == {}


def test_an_undone_card_is_forced_back(store: Any) -> None:
    store.review("a", 4, NOW)
    assert plan_next(store, ["a", "b"], NOW, None, "a", None).question_id == "a"


def test_own_cards_come_first_and_drills_only_once_solved(store: Any) -> None:
    store.add_own_cards([("own:1", "rope", "{}"), ("own:2", "alibi", "{}")], NOW)
    assert plan_next(store, ["a"], NOW, None, None, None).question_id == "own:1"
    assert plan_next(store, ["a"], NOW, None, None, "alibi").question_id == "own:2"
    assert plan_next(store, ["drill:rope", "a"], NOW, "own:1", None, "rope").question_id == "a"  # no card yet
    store.review("drill:rope", 1, NOW - timedelta(hours=1))  # Again an hour ago: due now
    plan = plan_next(store, ["drill:rope", "a"], NOW, None, None, "rope")
    assert (plan.question_id, plan.due, plan.new) == ("drill:rope", 1, 2)


def test_a_quiz_answer_since_the_last_review_is_in_the_plan(store: Any) -> None:
    store.record_attempt("a", False, "x", 1000, NOW - QUIZ_HINT_WINDOW - timedelta(minutes=1))
    plan = plan_next(store, ["a"], NOW, None, None, None)
    assert (plan.quiz_correct, plan.quiz_at) == (None, None)  # a new card's answer older than a day
    store.record_attempt("a", True, "x", 1000, NOW - timedelta(hours=2))
    plan = plan_next(store, ["a"], NOW, None, None, None)
    assert (plan.quiz_correct, plan.quiz_at) == (True, NOW - timedelta(hours=2))
    store.review("a", 1, NOW - timedelta(hours=1))  # reviewed since: that answer no longer counts
    assert plan_next(store, ["a"], NOW, None, None, None).quiz_correct is None
