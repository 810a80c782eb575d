"""A question type registered for one test (`register_type`): the way to show that a place reads the
registry (quizbank/question_types.py) rather than naming types, since a type the code never heard of must
work there too."""

from __future__ import annotations

from typing import Any

from quizbank import question_types
from quizbank.exports import anki
from quizbank.judge import cli as judge_cli
from quizbank.question_types import QuestionType

# the modules that bind the registry's tuple of types at import (`from ... import QUESTION_TYPES`)
_HOLDERS = (question_types, anki, judge_cli)


def register_type(monkeypatch: Any, kind: QuestionType) -> QuestionType:
    """Put `kind` in the registry until the test ends (pytest's `monkeypatch` undoes it): a new name goes
    last, a known one is replaced in its place."""
    types = tuple(kind if t.name == kind.name else t for t in question_types.QUESTION_TYPES)
    if kind.name not in question_types.NAMES:
        types += (kind,)
    for module in _HOLDERS:
        monkeypatch.setattr(module, "QUESTION_TYPES", types)
    monkeypatch.setitem(question_types._BY_NAME, kind.name, kind)
    return kind
