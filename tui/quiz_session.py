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

__all__ = ["QuizConfig", "QuizSession", "choice_order", "new_seed", "select_question_ids"]


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


def choice_order(seed: int, question_id: str, n: int) -> list[int]:
    """A permutation of range(n), stable for (seed, question_id)."""
    order = list(range(n))
    random.Random(f"{seed}:{question_id}").shuffle(order)
    return order


@dataclass(frozen=True)
class QuizConfig:
    """What to ask: topic ids (empty = all), difficulty 1-3 (None = any), count (None = all)."""

    topics: tuple[str, ...] = ()
    difficulty: int | None = None
    count: int | None = 10
    seed: int = 0
    types: tuple[str, ...] = ()


def select_question_ids(bankset: Any, config: QuizConfig) -> list[str]:
    """The shuffled question ids for a session (deterministic for a given seed)."""
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
            ids.append(qid)
    random.Random(config.seed).shuffle(ids)
    if config.count is not None:
        ids = ids[: config.count]
    return ids


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
        return self.current_id

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
