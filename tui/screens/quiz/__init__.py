"""Quiz: setup (`setup.py`), the questions (`session.py`) and the summary (`summary.py`), one stylesheet.

The three lead round to one another (setup -> questions -> summary -> the questions to revisit, or a new setup).
The setup and the summary import the screens they open; the questions screen is told its summary here, once
all three are defined, so that no module imports one that imports it back."""

from __future__ import annotations

from .session import QuizScreen
from .setup import QuizSetupScreen
from .summary import QuizSummaryScreen

QuizScreen.summary_screen = QuizSummaryScreen

__all__ = ["QuizScreen", "QuizSetupScreen", "QuizSummaryScreen"]
