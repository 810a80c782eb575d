"""quizbank.quiz_session: selecting questions (types, filters, status), the stable choice shuffle, and a
session's score, counts, time and revisit list."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizbank.grading import Grade
from quizbank.question_status import QuestionStatus
from quizbank.quiz_session import QuizConfig, QuizSession, choice_order, select_question_ids
from tui.screens.quiz.summary import summary_detail


def test_counts_keep_answered_skipped_and_not_reached_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr("quizbank.quiz_session.time.monotonic", lambda: clock[0])
    session = QuizSession(QuizConfig(), [f"q{i}" for i in range(10)])
    session.started_at = session.shown_at = 100.0
    session.record("q0", Grade(True, "1"))
    session.advance()
    clock[0] = 106.0
    session.record("q1", Grade(False, "2"))
    session.advance()  # q2 on screen, left unanswered
    clock[0] = 113.5
    session.end()
    counts = session.counts()
    assert (counts.answered, counts.correct, counts.wrong) == (2, 1, 1)
    assert (counts.skipped, counts.revealed, counts.not_reached) == (1, 0, 7)
    assert counts.pct == 50  # of the answered, never of the 10
    assert session.duration_s == pytest.approx(13.5)  # start to end, not start to the last question shown
    clock[0] = 500.0
    assert session.duration_s == pytest.approx(13.5)  # the clock stopped at the end
    assert session.to_revisit() == ["q1", "q2"]  # unreached questions are not "to revisit"
    text = summary_detail(counts, session.duration_s, "en").plain
    assert text == "2 answered · 1 correct · 1 wrong · 1 skipped · 7 not reached · 14 s"


def test_select_by_type_and_status(env: Path) -> None:
    from support.apps import write_fixture_bank

    from quizbank.loader import load_banks

    bankset = load_banks([str(write_fixture_bank(env / "b"))], include_shipped=False, include_user=False)
    open_ids = select_question_ids(bankset, QuizConfig(count=None, types=("open", "cloze")))
    assert sorted(open_ids) == ["fx.cloze", "fx.literal"]
    status = QuestionStatus(flagged=frozenset({"fx.mcq", "fx.cloze"}), last_right={"fx.mcq": False})
    flagged = select_question_ids(bankset, QuizConfig(count=None, filters=("flagged",)), status)
    assert sorted(flagged) == ["fx.cloze", "fx.mcq"]
    assert select_question_ids(bankset, QuizConfig(count=None, filters=("wrong",)), status) == ["fx.mcq"]
    assert select_question_ids(bankset, QuizConfig(count=None, filters=("flagged",))) == []  # no status


@given(st.integers(min_value=0, max_value=2**31), st.text(min_size=1, max_size=12), st.integers(1, 9))
def test_choice_order_is_a_stable_permutation(seed: int, qid: str, n: int) -> None:
    order = choice_order(seed, qid, n)
    assert sorted(order) == list(range(n))
    assert order == choice_order(seed, qid, n)


def _bankset() -> SimpleNamespace:
    questions = {
        f"t{t}.q{i}": SimpleNamespace(id=f"t{t}.q{i}", difficulty=1 + i % 3, type="mcq")
        for t in range(2)
        for i in range(9)
    }
    topics = [SimpleNamespace(id=f"t{t}", question_ids=[f"t{t}.q{i}" for i in range(9)]) for t in range(2)]
    return SimpleNamespace(topics=topics, questions=questions)


def test_selection_filters_shuffles_and_counts() -> None:
    bankset = _bankset()
    everything = select_question_ids(bankset, QuizConfig(count=None, seed=3))
    assert sorted(everything) == sorted(bankset.questions)
    assert everything == select_question_ids(bankset, QuizConfig(count=None, seed=3))
    assert everything != select_question_ids(bankset, QuizConfig(count=None, seed=4))
    hard_t1 = select_question_ids(bankset, QuizConfig(topics=("t1",), difficulty=3, count=None, seed=1))
    assert sorted(hard_t1) == ["t1.q2", "t1.q5", "t1.q8"]
    assert len(select_question_ids(bankset, QuizConfig(count=5, seed=1))) == 5


def test_session_tracks_score_and_revisit_list() -> None:
    from quizbank.grading import Grade

    session = QuizSession(QuizConfig(), ["a", "b", "c", "d"])
    session.record("a", Grade(True, "1"))
    session.advance()
    session.record("b", Grade(False, "2"))
    session.advance()
    session.advance()  # c skipped
    session.record("d", Grade(None, ""))
    session.advance()
    assert session.finished
    assert session.correct_count == 1
    assert session.to_revisit() == ["b", "c", "d"]
