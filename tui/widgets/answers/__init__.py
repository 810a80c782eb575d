"""One answer widget per question type, behind the `AnswerWidget` protocol (`base.py`).

`answer_widget_for(question, mode=..., seed=...)` builds the one a `QuestionView` composes.
Adding a question type: a module here with an `AnswerWidget` subclass decorated `@answer_widget("<type>")`;
every module of this package is imported below, so the decorator is all it takes to register it
(`tests/tui/test_question_type_widgets.py` checks that every type of `quizbank.question_types` has one).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

from .base import WIDGETS, AnswerInput, AnswerWidget, answer_widget, fmt_number
from .choices import ChoiceAnswer, ChoiceItem, choice_tag
from .open import OpenAnswer

for _module in pkgutil.iter_modules([str(Path(__file__).parent)]):
    importlib.import_module(f"{__package__}.{_module.name}")  # each widget registers itself

__all__ = [
    "WIDGETS",
    "AnswerInput",
    "AnswerWidget",
    "ChoiceAnswer",
    "ChoiceItem",
    "answer_widget",
    "answer_widget_for",
    "choice_tag",
    "fmt_number",
]


def answer_widget_for(question: Any, *, mode: str, seed: int | None = None) -> AnswerWidget:
    """The answer widget for `question`'s type (a type without one answers like an open question)."""
    return WIDGETS.get(question.type, OpenAnswer)(question, mode=mode, seed=seed)
