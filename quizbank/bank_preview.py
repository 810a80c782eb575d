"""A preview of the loaded banks, read from their cache without pydantic, for the app's first second.

Importing pydantic and building the schema takes about 0.3 s, longer than the app's whole first paint.
The preview is plain data from the same verified cache, its preview file (`quizbank.bank_cache`: keyed by
the content hash of every bank file in the load and of the loader's code, every section's digest matching, no
control or bidi character in a section read), with every field's type checked here by hand. It holds what
Home and Search read: topics with their titles, descriptions, question ids and types; questions with their
prompt, answers, choices and explanation. The app shows it until the full `BankSet` (every field validated
by the schema) replaces it, a fraction of a second later; anything unexpected in the topics, the question
ids or their types means no preview.

Home lists the topics before it needs any question, so only the topics section (a few KB) is parsed at once.
The questions section (~0.9 MB for the shipped bank: ~15 ms to check its characters and parse it) and the
question objects (~15 ms more, with the import of `quizbank.question_types`) wait for the first read of
`questions` (a question highlighted in Home, a topic opened, Search). A questions section that does not match
the topics, or a question shaped wrong, then leaves the preview with no questions (the topics stay listed
until the full load, which decides).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from .bank_cache import load_key, preview_file, read_sections
from .bankfiles import SHIPPED_LANGUAGES, bank_sources, cache_enabled

__all__ = [
    "BankPreview",
    "PreviewChoice",
    "PreviewQuestion",
    "PreviewText",
    "PreviewTopic",
    "preview_from_sections",
    "read_preview",
]


class _Shape(ValueError):
    """The payload is not shaped like a cached bank."""


# The records below are NamedTuples: immutable as frozen dataclasses are, and ten times cheaper to define
# (this module is imported on the way to Home's first list of topics).


class PreviewText(NamedTuple):
    """A bilingual text, read like `quizbank.schema.Text`."""

    en: str | None = None
    zh: str | None = None

    def get(self, lang: str) -> str:
        """The text in `lang`, falling back to the other language."""
        value = getattr(self, lang, None)
        if value:
            return value
        return self.en or self.zh or ""


class PreviewChoice(NamedTuple):
    text: PreviewText


class PreviewQuestion(NamedTuple):
    id: str
    type: str
    difficulty: int
    prompt: PreviewText
    explanation: PreviewText
    answer: PreviewText | None = None
    choices: tuple[PreviewChoice, ...] = ()
    vary: tuple[str, ...] = ()  # a generated question's parameter names (its `{name}` placeholders)


class PreviewTopic(NamedTuple):
    id: str
    title: PreviewText
    description: PreviewText | None
    order: int
    question_ids: tuple[str, ...]


@dataclass
class BankPreview:
    """The parts of a `quizbank.loader.BankSet` that Home and Search read, as plain data. `questions` is
    read and built by `read_questions` on its first read (from any thread: once)."""

    topics: list[PreviewTopic] = field(default_factory=list)
    topic_of: dict[str, str] = field(default_factory=dict)
    type_of: dict[str, str] = field(default_factory=dict)  # every question id, in file order, and its type
    problems: list[Any] = field(default_factory=list)  # warnings show once the full bank is in
    skipped: list[Any] = field(default_factory=list)
    # the questions section's payload (`bank_cache.CachedSection.load`): None if it does not load
    read_questions: Callable[[], dict[str, Any] | None] = field(
        default=lambda: None, repr=False, compare=False
    )
    _questions: dict[str, PreviewQuestion] | None = field(default=None, init=False, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    @property
    def questions(self) -> dict[str, PreviewQuestion]:
        """Every question by id, built on the first read; none if the section does not load, does not hold
        exactly the topics' questions with their types, or one is shaped wrong."""
        if self._questions is None:
            with self._lock:
                if self._questions is None:
                    self._questions = _questions(self.read_questions(), self.type_of)
        return self._questions

    @property
    def questions_built(self) -> bool:
        return self._questions is not None

    def topic(self, topic_id: str) -> PreviewTopic | None:
        return next((t for t in self.topics if t.id == topic_id), None)

    def question_type(self, qid: str) -> str | None:
        """The type of question `qid` (None if unknown), without building `questions`: Home shows each
        topic's mix of types with the topics, and building every question first took ~15 ms of that."""
        return self.type_of.get(qid)

    def ordered_questions(self) -> list[PreviewQuestion]:
        """All questions, topic by topic, in file order (none when one is shaped wrong)."""
        questions = self.questions
        return [questions[qid] for t in self.topics for qid in t.question_ids if qid in questions]


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


def _questions(payload: dict[str, Any] | None, type_of: dict[str, str]) -> dict[str, PreviewQuestion]:
    from .question_types import NAMES  # (~10 ms of imports: not before the topics are listed)

    raws = None if payload is None else payload.get("questions")
    if not isinstance(raws, list) or len(raws) != len(type_of):
        return {}
    types = frozenset(NAMES)
    try:
        built = [_question(raw, types) for raw in raws]
    except ValueError:
        return {}
    if [(q.id, q.type) for q in built] != list(type_of.items()):
        return {}  # not the questions the topics list (the two sections were written together)
    return {question.id: question for question in built}


def _question(raw: Any, types: frozenset[str]) -> PreviewQuestion:
    if not isinstance(raw, dict):
        raise _Shape("expected a question")
    kind = _str(raw.get("type"))
    if kind not in types:
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


def preview_from_sections(
    head: dict[str, Any], read_questions: Callable[[], dict[str, Any] | None] = lambda: None
) -> BankPreview:
    """The preview of a cache's topics section (`head`: the topics, each question's type), its questions read
    by `read_questions` when first needed; raises ValueError on a bad shape of the topics, the ids or their
    types (the questions are checked when built: `BankPreview.questions`)."""
    preview = BankPreview(read_questions=read_questions)
    raw_types, raw_topics = head.get("types"), head.get("topics")
    if not isinstance(raw_types, dict) or not isinstance(raw_topics, list):
        raise _Shape("expected the questions' types and a list of topics")
    preview.type_of = {_str(qid): _str(kind) for qid, kind in raw_types.items()}
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
            if qid not in preview.type_of or qid in preview.topic_of:
                raise _Shape(f"topic {topic.id!r} lists {qid!r}, unknown or listed twice")
            preview.topic_of[qid] = topic.id
        preview.topics.append(topic)
    if len(preview.topic_of) != len(preview.type_of):
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
    unchanged files); None otherwise (the full load then decides). It parses the preview's topics section;
    the questions section waits for `BankPreview.questions`."""
    if not cache_enabled():
        return None
    extra = list(extra_paths)
    sources, _problems = bank_sources(extra, include_shipped=include_shipped, include_user=include_user)
    key = load_key(sources, extra, languages)
    sections = read_sections(key, preview_file(path)) if key is not None else None
    if sections is None or len(sections) != 2:
        return None
    head, questions = sections
    payload = head.load()
    if payload is None:
        return None
    try:
        return preview_from_sections(payload, questions.load)
    except ValueError:
        return None
