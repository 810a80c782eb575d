"""The progress store: one SQLite file (`progress.db`) holding cards, reviews, quiz and drill attempts, mock
interviews, question marks, typed answers to open questions and settings.

Progress lives apart from the YAML banks and is keyed by question id, so editing a question never resets it, and
a question whose id disappears keeps its history (see `orphans`).

`ProgressStore` is a thin facade composed of one part per concept; each part holds its table(s):

- `connection.py`: opening, integrity check and recovery, migrations (`migrations.py`), transactions;
- `settings.py`: settings and the scheduler they configure;
- `cards.py`: cards and reviews, the Study queue, rating, undo and replay;
- `attempts.py`: quiz and drill attempts;  `mock_sessions.py`: mock interviews;  `marks.py`: flags and notes;
- `typed_answers.py`: answers typed to open questions, with the judge's verdict per key point;
- `own_cards.py`: Study cards no bank holds (the Demo lab's predictions);
- `merge.py`: orphans, id migrations and backup merges.

Times are stored as fixed-width ISO-8601 UTC strings ('2025-01-31T08:00:00.000000+00:00'), which sort
chronologically as text (`records.format_time`).
"""

from __future__ import annotations

import os
from pathlib import Path

from quizbank.progress.attempts import AttemptsTable
from quizbank.progress.connection import StoreError, ensure_dir, ensure_files_writable
from quizbank.progress.marks import MarksTable
from quizbank.progress.merge import MergeTable
from quizbank.progress.migrations import MIGRATIONS, REQUIRED_TABLES, SCHEMA_VERSION
from quizbank.progress.mock_sessions import MockSessionsTable
from quizbank.progress.own_cards import OwnCardsTable
from quizbank.progress.paths import DB_NAME, default_data_dir
from quizbank.progress.records import (
    DRILL_CARD_PREFIX,
    AttemptRow,
    CardInfo,
    DrillAttemptRow,
    MergeReport,
    Orphan,
    ReviewResult,
    ReviewRow,
    StudyQueue,
    TopicProgress,
    UndoResult,
    format_time,
    parse_time,
    utc_day_start,
)
from quizbank.progress.settings import DEFAULT_SETTINGS, SETTING_HELP, parse_setting_text, validate_setting
from quizbank.progress.typed_answers import TypedAnswersTable

__all__ = [
    "DB_NAME",
    "DEFAULT_SETTINGS",
    "DRILL_CARD_PREFIX",
    "MIGRATIONS",
    "REQUIRED_TABLES",
    "SCHEMA_VERSION",
    "SETTING_HELP",
    "AttemptRow",
    "CardInfo",
    "DrillAttemptRow",
    "MergeReport",
    "Orphan",
    "ProgressStore",
    "ReviewResult",
    "ReviewRow",
    "StoreError",
    "StudyQueue",
    "TopicProgress",
    "UndoResult",
    "default_data_dir",
    "format_time",
    "open_store",
    "parse_setting_text",
    "parse_time",
    "utc_day_start",
    "validate_setting",
]


class ProgressStore(
    MergeTable, AttemptsTable, MockSessionsTable, MarksTable, TypedAnswersTable, OwnCardsTable
):
    """Cards, reviews, attempts, mock interviews, marks and settings in one SQLite file. Thread-safe (one lock
    around the connection).

    Every method taking `now` accepts an aware datetime (the clock is injectable for tests); None means the
    current UTC time.
    """


def open_store(data_dir: str | os.PathLike[str] | None = None) -> ProgressStore:
    """Open (creating if needed) the store in `data_dir` (default: `default_data_dir()`).

    Raises StoreError (one-line message) if the folder cannot be created or written.
    """
    folder = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    ensure_dir(folder)
    ensure_files_writable(folder / DB_NAME)
    return ProgressStore(folder / DB_NAME)
