"""A preview of the loaded banks, read from their cache without pydantic, for the app's first second.

Importing pydantic and building the schema takes about 0.3 s, longer than the app's whole first paint.
The preview is plain data from the same verified cache, its preview section (`quizbank.bank_cache`:
keyed by the content hash of every bank file in the load and of the loader's code, its digest matching,
no control or bidi character anywhere), with every field's type checked here by hand. It holds what Home and Search
read: topics with their titles, descriptions and question ids; questions with their type, prompt,
answers, choices and explanation. The app shows it until the full `BankSet` (every field validated
by the schema) replaces it, a fraction of a second later; anything unexpected means no preview.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .bank_cache import load_key, preview_file, read_payload
from .bankfiles import SHIPPED_LANGUAGES, bank_sources, cache_enabled
from .question_types import NAMES

__all__ = [
    "BankPreview",
    "PreviewChoice",
    "PreviewQuestion",
    "PreviewText",
    "PreviewTopic",
    "preview_from_payload",
    "read_preview",
]

QUESTION_TYPES = frozenset(NAMES)


class _Shape(ValueError):
    """The payload is not shaped like a cached bank."""


@dataclass(frozen=True)
class PreviewText:
    """A bilingual text, read like `quizbank.schema.Text`."""

    en: str | None = None
    zh: str | None = None

    def get(self, lang: str) -> str:
        """The text in `lang`, falling back to the other language."""
        value = getattr(self, lang, None)
        if value:
            return value
        return self.en or self.zh or ""


@dataclass(frozen=True)
class PreviewChoice:
    text: PreviewText


@dataclass(frozen=True)
class PreviewQuestion:
    id: str
    type: str
    difficulty: int
    prompt: PreviewText
    explanation: PreviewText
    answer: PreviewText | None = None
    choices: tuple[PreviewChoice, ...] = ()
    vary: tuple[str, ...] = ()  # a generated question's parameter names (its `{name}` placeholders)


@dataclass(frozen=True)
class PreviewTopic:
    id: str
    title: PreviewText
    description: PreviewText | None
    order: int
    question_ids: tuple[str, ...]


@dataclass
class BankPreview:
    """The parts of a `quizbank.loader.BankSet` that Home and Search read, as plain data."""

    topics: list[PreviewTopic] = field(default_factory=list)
    questions: dict[str, PreviewQuestion] = field(default_factory=dict)
    topic_of: dict[str, str] = field(default_factory=dict)
    problems: list[Any] = field(default_factory=list)  # warnings show once the full bank is in
    skipped: list[Any] = field(default_factory=list)

    def topic(self, topic_id: str) -> PreviewTopic | None:
        return next((t for t in self.topics if t.id == topic_id), None)

    def ordered_questions(self) -> list[PreviewQuestion]:
        """All questions, topic by topic, in file order."""
        return [self.questions[qid] for t in self.topics for qid in t.question_ids]


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise _Shape(f"expected text, got {type(value).__name__}")
    return value


def _int(value: Any) -> int:
    if type(value) is not int:
        raise _Shape(f"expected an integer, got {type(value).__name__}")
    return value


_LANGUAGES = frozenset(SHIPPED_LANGUAGES)


def _text(value: Any) -> PreviewText:
    if not isinstance(value, dict) or not value.keys() <= _LANGUAGES:
        raise _Shape("expected a text with en/zh")
    texts = {lang: _str(text) for lang, text in value.items() if text is not None}
    if not any(texts.values()):
        raise _Shape("a text in no language")
    return PreviewText(**texts)


def _question(raw: Any) -> PreviewQuestion:
    if not isinstance(raw, dict):
        raise _Shape("expected a question")
    kind = _str(raw.get("type"))
    if kind not in QUESTION_TYPES:
        raise _Shape(f"unknown question type {kind!r}")
    answer = raw.get("answer")
    choices = raw.get("choices") or []
    if not isinstance(choices, list) or any(not isinstance(c, dict) for c in choices):
        raise _Shape("expected a list of choices")
    difficulty = _int(raw.get("difficulty", 2))
    if not 1 <= difficulty <= 3:
        raise _Shape("difficulty out of range")
    vary = raw.get("vary") or {}
    if not isinstance(vary, dict):
        raise _Shape("expected a mapping of vary parameters")
    return PreviewQuestion(
        id=_str(raw.get("id")),
        type=kind,
        difficulty=difficulty,
        prompt=_text(raw.get("prompt")),
        explanation=_text(raw.get("explanation")),
        answer=None if answer is None else _text(answer),
        choices=tuple(PreviewChoice(_text(c.get("text"))) for c in choices),
        vary=tuple(_str(name) for name in vary),
    )


def preview_from_payload(payload: dict[str, Any]) -> BankPreview:
    """The preview of a cache payload (`quizbank.bank_cache.read_payload`); raises ValueError on a bad shape."""
    preview = BankPreview()
    raw_questions, raw_topics = payload.get("questions"), payload.get("topics")
    if not isinstance(raw_questions, list) or not isinstance(raw_topics, list):
        raise _Shape("expected lists of questions and topics")
    for raw in raw_questions:
        question = _question(raw)
        if question.id in preview.questions:
            raise _Shape(f"question {question.id!r} twice")
        preview.questions[question.id] = question
    for raw in raw_topics:
        if not isinstance(raw, dict) or not isinstance(raw.get("question_ids"), list):
            raise _Shape("expected a topic")
        description = raw.get("description")
        topic = PreviewTopic(
            id=_str(raw.get("id")),
            title=_text(raw.get("title")),
            description=None if description is None else _text(description),
            order=_int(raw.get("order")),
            question_ids=tuple(_str(q) for q in raw["question_ids"]),
        )
        for qid in topic.question_ids:
            if qid not in preview.questions or qid in preview.topic_of:
                raise _Shape(f"topic {topic.id!r} lists {qid!r}, unknown or listed twice")
            preview.topic_of[qid] = topic.id
        preview.topics.append(topic)
    if len(preview.topic_of) != len(preview.questions):
        raise _Shape("a question belongs to no topic")
    return preview


def read_preview(
    extra_paths: list[str] | tuple[str, ...] = (),
    *,
    include_shipped: bool = True,
    include_user: bool = True,
    languages: tuple[str, ...] = SHIPPED_LANGUAGES,
    path: Path | None = None,
) -> BankPreview | None:
    """The preview of what `load_banks(extra_paths, include_shipped=..., include_user=..., use_cache=True)`
    will load, when the cache (at `path`, default `bank_cache.cache_file()`) holds that load (the same
    unchanged files); None otherwise (the full load then decides). It reads the cache's preview section."""
    if not cache_enabled():
        return None
    extra = list(extra_paths)
    sources, _problems = bank_sources(extra, include_shipped=include_shipped, include_user=include_user)
    key = load_key(sources, extra, languages)
    payload = read_payload(key, preview_file(path)) if key is not None else None
    if payload is None:
        return None
    try:
        return preview_from_payload(payload)
    except ValueError:
        return None
