"""Progress backups: `posenc progress export` / `import` (JSON). The format is documented, with its JSON schema,
in docs/backup.md.

Version 2 (written) holds everything the store holds: settings (unless left out), cards (with or without
reviews), reviews with the card before and after each, quiz attempts, drill attempts, mock interviews with their
whole reports, question marks (flags and notes), the id migrations the store applied the answers typed to
open questions with their key points' verdicts, the FSRS parameters fitted to the reviews (or null) and own
cards (Study cards no bank holds: the Demo lab's predictions, each with its question). Each review and quiz
attempt carries `instance`: the seed and parameters a generated question was shown with, or null (files written
before the store kept it have no such key and read as null). Version 1 (read) held cards, reviews without card
states, attempts and settings.

Import decodes with `decode_backup_json` (an over-long number becomes a record-named error, not a traceback),
validates the whole file (`parse_backup`, in backup_check.py), then merges in one transaction
(`ProgressStore.merge_backup`, whose rules make importing twice change nothing).

Export -> import into an empty data folder -> export gives the same JSON less `exported_at`, and every table the
same rows (less the AUTOINCREMENT row ids): see tests/quizbank/progress/test_progress_backup.py.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from quizbank.progress.backup_check import (
    BACKUP_FORMAT,
    BACKUP_VERSION,
    BackupError,
    BigNumber,
    decode_backup_json,
    parse_backup,
)
from quizbank.progress.records import ImportedHistory
from quizbank.progress.settings import DEFAULT_SETTINGS
from quizbank.progress.store import MergeReport, ProgressStore, format_time
from quizbank.safetext import escape_json_unsafe

__all__ = [
    "BACKUP_FORMAT",
    "BACKUP_VERSION",
    "TABLE_KEYS",
    "BackupError",
    "BigNumber",
    "ParsedBackup",
    "backup_json",
    "decode_backup_json",
    "export_backup",
    "import_backup",
    "parse_backup",
]

ParsedBackup = ImportedHistory  # the name version 1 used

# The record lists of a version 2 backup, in the order they are written.
TABLE_KEYS = (
    "cards",
    "reviews",
    "attempts",
    "drill_attempts",
    "mock_sessions",
    "marks",
    "id_migrations",
    "typed_answers",
    "own_cards",
)


def _card_object(text: str | None) -> dict[str, Any] | None:
    """Card JSON text as stored -> the object written in a backup (all of fsrs.Card's fields)."""
    return None if text is None else json.loads(text)


def export_backup(
    store: ProgressStore, now: datetime | None = None, *, include_settings: bool = True
) -> dict[str, Any]:
    """Everything in the store as a JSON-ready dict (format version 2; see docs/backup.md)."""
    stamp = now or datetime.now(UTC)
    reviews = store.review_records()
    reps: dict[str, int] = {}
    for row in reviews:
        reps[row.question_id] = reps.get(row.question_id, 0) + 1
    lapses = store.lapses()
    cards = []
    for qid, text in store.card_rows():
        entry: dict[str, Any] = {"question_id": qid, **json.loads(text)}
        entry["reps"] = reps.get(qid, 0)
        entry["lapses"] = lapses.get(qid, 0)
        cards.append(entry)
    data: dict[str, Any] = {
        "format": BACKUP_FORMAT,
        "version": BACKUP_VERSION,
        "exported_at": format_time(stamp),
    }
    if include_settings:
        data["settings"] = {k: v for k, v in store.stored_settings().items() if k in DEFAULT_SETTINGS}
    data["cards"] = cards
    data["reviews"] = [
        {
            "question_id": r.question_id,
            "rating": r.rating,
            "reviewed_at": format_time(r.reviewed_at),
            "duration_ms": r.duration_ms,
            "state_before": r.state_before,
            "card_before": _card_object(r.card_before),
            "card_after": _card_object(r.card_after),
            "instance": r.instance,
        }
        for r in reviews
    ]
    data["attempts"] = [
        {
            "question_id": a.question_id,
            "correct": a.correct,
            "response": a.response,
            "duration_ms": a.duration_ms,
            "attempted_at": format_time(a.attempted_at),
            "instance": a.instance,
        }
        for a in store.attempts()
    ]
    data["drill_attempts"] = [
        {
            "drill": d.drill,
            "passed": d.passed,
            "cases_passed": d.cases_passed,
            "cases_total": d.cases_total,
            "elapsed_ms": d.elapsed_ms,
            "attempted_at": format_time(d.attempted_at),
        }
        for d in store.drill_attempts()
    ]
    data["mock_sessions"] = [
        {
            "id": session_id,
            "started_at": started,
            "minutes": minutes,
            "level": level,
            "language": language,
            "ended_early": early,
            "score": score,
            "report": json.loads(report),
        }
        for session_id, started, minutes, level, language, early, score, report in store.mock_session_rows()
    ]
    data["marks"] = [
        {"question_id": qid, "flagged": flagged, "note": note, "updated_at": format_time(at)}
        for qid, flagged, note, at in store.mark_rows()
    ]
    data["id_migrations"] = [
        {"old_id": old, "new_id": new, "applied_at": format_time(at)}
        for old, new, at in store.id_migrations()
    ]
    data["typed_answers"] = [
        {
            "question_id": t.question_id,
            "answered_at": format_time(t.answered_at),
            "source": t.source,
            "answer": t.answer,
            "points": [point.as_dict() for point in t.points],
        }
        for t in store.typed_answers()
    ]
    fitted = store.fitted()
    data["fitted_parameters"] = (
        None
        if fitted is None
        else {
            "parameters": list(fitted.parameters),
            "fitted_at": format_time(fitted.fitted_at),
            "reviews": fitted.reviews,
            "report": fitted.report,
        }
    )
    data["own_cards"] = [
        {"question_id": qid, "topic": topic, "question": json.loads(text), "created_at": format_time(at)}
        for qid, topic, text, at in store.own_card_rows()
    ]
    return data


def backup_json(data: dict[str, Any]) -> str:
    """The backup as the text written to a file: indented UTF-8 JSON, every control, bidi or lone-surrogate
    character as a `\\uXXXX` escape (the data read back is unchanged; a terminal showing the file never sees
    the raw character)."""
    return escape_json_unsafe(json.dumps(data, ensure_ascii=False, indent=2)) + "\n"


def import_backup(store: ProgressStore, data: Any, *, include_settings: bool = True) -> MergeReport:
    """Validate `data` fully, then merge it in one transaction (BackupError before any write if malformed).
    `include_settings=False` leaves the backup's settings out."""
    parsed = parse_backup(data)
    if not include_settings:
        parsed.settings = {}
    return store.merge_backup(parsed)
