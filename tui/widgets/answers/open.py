"""An open question: answered in your head (or typed), then judged against the model answer."""

from __future__ import annotations

from .base import AnswerWidget

__all__ = ["OpenAnswer"]


class OpenAnswer(AnswerWidget):
    HINT_KEY = "quiz.open_hint"
