"""The loaded bank: every question by topic, where each came from, and what was wrong (`BankSet`).

Built by `quizbank.loader.load_banks` from the YAML files, or read back by `quizbank.bank_cache`.
Pure data: importing this imports neither pydantic nor yaml.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .problems import ERROR, Location, Problem

if TYPE_CHECKING:
    from .schema import Text

__all__ = ["BankSet", "TopicEntry"]


@dataclass
class TopicEntry:
    """One topic, merged over every file that adds questions to it."""

    id: str
    title: Text
    description: Text | None = None
    order: int = 100
    question_ids: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


@dataclass
class BankSet:
    """Every loaded question, by topic, with where each came from and what was wrong."""

    topics: list[TopicEntry] = field(default_factory=list)
    questions: dict[str, Any] = field(default_factory=dict)
    topic_of: dict[str, str] = field(default_factory=dict)
    origin: dict[str, Location] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    skipped: list[tuple[str, list[Problem]]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    file_kind: dict[str, str] = field(default_factory=dict)  # file -> "shipped" | "user"
    demo_origin: dict[str, Location] = field(default_factory=dict)  # question id -> its `demo:`
    check_origin: dict[tuple[str, int], Location] = field(default_factory=dict)  # (id, i) -> check i
    # (id, "vary" | "answer" | "answer.path" | "answer.params" | "prompt" | "explanation") of a
    # generated question (not kept by the bank cache: `posenc bank validate` never reads it from there)
    live_origin: dict[tuple[str, str], Location] = field(default_factory=dict)
    # (id, "examples.0" | "key_points.1.accept.2" | ...) of an open question's judge data (not cached either)
    judge_origin: dict[tuple[str, str], Location] = field(default_factory=dict)
    # the questions of skipped files that are valid on their own: never shown, but
    # `posenc bank validate` runs their checks too, so that one run reports every problem
    skipped_bank: BankSet | None = None
    replaced_by: dict[str, str] = field(default_factory=dict)  # merged-away id -> the question replacing it
    from_cache: bool = False  # read back from quizbank.bank_cache (the texts its preview showed)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    def topic(self, topic_id: str) -> TopicEntry | None:
        return next((t for t in self.topics if t.id == topic_id), None)

    def question_type(self, qid: str) -> str | None:
        """The type of question `qid`, None if there is no such question (as `BankPreview.question_type`)."""
        question = self.questions.get(qid)
        return None if question is None else question.type

    def questions_in(self, topic_id: str) -> list[Any]:
        entry = self.topic(topic_id)
        if entry is None:
            return []
        return [self.questions[qid] for qid in entry.question_ids if qid in self.questions]

    def ordered_questions(self) -> list[Any]:
        """All questions, topic by topic, in file order."""
        return [self.questions[qid] for t in self.topics for qid in t.question_ids]

    def search(self, text: str, lang: str = "en") -> list[Any]:
        """Questions whose id, prompt or answer (in `lang`, falling back to the other language)
        contains `text`, case-insensitively; every question for empty text."""
        needle = text.strip().casefold()
        out = []
        for question in self.ordered_questions():
            if not needle:
                out.append(question)
                continue
            haystacks = [question.id, question.prompt.get(lang)]
            if question.answer is not None:
                haystacks.append(question.answer.get(lang))
            if any(needle in h.casefold() for h in haystacks):
                out.append(question)
        return out
