"""Quiz selection and session state. Pure Python: no textual, no pydantic import.

Shuffling is stable per session: one integer seed decides the question order, and each
question's choice order is derived from (seed, question id), so re-rendering a question (a
language switch, a reload, coming back to it) never reorders its choices.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from .grading import Grade

__all__ = ["QuizConfig", "QuizCounts", "QuizSession", "choice_order", "new_seed", "select_question_ids"]


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


def choice_order(seed: int, question_id: str, n: int) -> list[int]:
    """A permutation of range(n), stable for (seed, question_id)."""
    order = list(range(n))
    random.Random(f"{seed}:{question_id}").shuffle(order)
    return order


@dataclass(frozen=True)
class QuizConfig:
    """What to ask: topic ids (empty = all), difficulty 1-3 (None = any), count (None = all),
    question types (empty = all) and status filters ("flagged", "wrong", "unseen": all must hold)."""

    topics: tuple[str, ...] = ()
    difficulty: int | None = None
    count: int | None = 10
    seed: int = 0
    types: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()


def select_question_ids(bankset: Any, config: QuizConfig, status: Any = None) -> list[str]:
    """The shuffled question ids for a session (deterministic for a given seed). `status` (a
    `QuestionStatus`) answers the status filters; without it they match nothing."""
    wanted_topics = set(config.topics)
    ids: list[str] = []
    for topic in bankset.topics:
        if wanted_topics and topic.id not in wanted_topics:
            continue
        for qid in topic.question_ids:
            q = bankset.questions.get(qid)
            if q is None:
                continue
            if config.difficulty is not None and q.difficulty != config.difficulty:
                continue
            if config.types and q.type not in config.types:
                continue
            if config.filters and (status is None or not status.matches(qid, config.filters)):
                continue
            ids.append(qid)
    random.Random(config.seed).shuffle(ids)
    if config.count is not None:
        ids = ids[: config.count]
    return ids


@dataclass(frozen=True)
class QuizCounts:
    """How a quiz went. `answered` = graded (correct + wrong); the score is correct / answered."""

    total: int
    answered: int
    correct: int
    wrong: int
    revealed: int
    skipped: int
    not_reached: int

    @property
    def pct(self) -> int:
        return round(100 * self.correct / self.answered) if self.answered else 0


@dataclass
class QuizSession:
    """A running quiz: the question ids in order, where we are, and each answer's grade."""

    config: QuizConfig
    question_ids: list[str]
    index: int = 0
    grades: dict[str, Grade] = field(default_factory=dict)
    skipped: set[str] = field(default_factory=set)
    started_at: float = field(default_factory=time.monotonic)
    shown_at: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    reached: set[str] = field(default_factory=set)
    # generated questions: id -> the showing drawn for this session (tui.live.LiveShowing)
    live: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.current_id is not None:
            self.reached.add(self.current_id)

    @property
    def current_id(self) -> str | None:
        if 0 <= self.index < len(self.question_ids):
            return self.question_ids[self.index]
        return None

    @property
    def finished(self) -> bool:
        return self.index >= len(self.question_ids)

    @property
    def total(self) -> int:
        return len(self.question_ids)

    def record(self, question_id: str, grade: Grade) -> int:
        """Store a grade; returns the time spent on the question in ms."""
        self.grades[question_id] = grade
        self.skipped.discard(question_id)
        return int((time.monotonic() - self.shown_at) * 1000)

    def advance(self) -> str | None:
        """Move on; an unanswered current question counts as skipped."""
        current = self.current_id
        if current is not None and current not in self.grades:
            self.skipped.add(current)
        self.index += 1
        self.shown_at = time.monotonic()
        if self.current_id is not None:
            self.reached.add(self.current_id)
        else:
            self.end()
        return self.current_id

    def end(self) -> None:
        """Stop the clock (idempotent); an unanswered current question counts as skipped."""
        current = self.current_id
        if current is not None and current not in self.grades:
            self.skipped.add(current)
        if self.ended_at is None:
            self.ended_at = time.monotonic()

    @property
    def duration_s(self) -> float:
        """Seconds from the start to the end (or to now while running)."""
        end = self.ended_at if self.ended_at is not None else time.monotonic()
        return max(0.0, end - self.started_at)

    def counts(self) -> QuizCounts:
        """Answered, correct, wrong, revealed, skipped and not reached, counted separately."""
        graded = [g for g in self.grades.values() if g.correct is not None]
        return QuizCounts(
            total=self.total,
            answered=len(graded),
            correct=sum(1 for g in graded if g.correct),
            wrong=sum(1 for g in graded if not g.correct),
            revealed=sum(1 for g in self.grades.values() if g.correct is None),
            skipped=len(self.skipped),
            not_reached=sum(1 for qid in self.question_ids if qid not in self.reached),
        )

    @property
    def correct_count(self) -> int:
        return sum(1 for g in self.grades.values() if g.correct)

    @property
    def answered_count(self) -> int:
        return sum(1 for g in self.grades.values() if g.correct is not None)

    def to_revisit(self) -> list[str]:
        """Wrong, self-graded-wrong, revealed-unanswered and skipped questions, in quiz order."""
        out = []
        for qid in self.question_ids:
            grade = self.grades.get(qid)
            if qid in self.skipped or (grade is not None and not grade.correct):
                out.append(qid)
        return out
