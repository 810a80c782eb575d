"""Progress backups: `posenc progress export` / `import` (JSON).

Format (version 1)::

    {
      "format": "posenc-progress",
      "version": 1,
      "exported_at": "2025-01-31T08:00:00.000000+00:00",
      "settings": {"new_per_day": 20, ...},          (only those the user has set)
      "cards": [{"question_id", "state", "step", "stability", "difficulty", "due", "last_review",
                 "reps", "lapses"}, ...],
      "reviews": [{"question_id", "rating", "reviewed_at", "duration_ms"}, ...],
      "attempts": [{"question_id", "correct", "response", "duration_ms", "attempted_at"}, ...]
    }

`rating` is 1 Again, 2 Hard, 3 Good, 4 Easy; `state` is fsrs.State (1 learning, 2 review, 3 relearning); times
are ISO-8601 with an offset. Limits, each checked before anything is written: times within 1970..2199 (UTC, after
the offset is applied), durations 0..86,400,000 ms (one day), question ids non-empty text of at most 200 characters
without control, bidi or lone-surrogate characters, responses at most 100,000 such characters, card stability
up to 1e6 days and difficulty 1..10, step 0..1000. Import validates the whole file before writing anything, then merges in one
transaction: a review is identified by (question_id, reviewed_at, rating), so importing twice adds nothing, and
cards that gained reviews are rebuilt by replaying their history.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from quizbank.progress.scheduler import Card, State, stable_card_id
from quizbank.progress.store import (
    DEFAULT_SETTINGS,
    MergeReport,
    ProgressStore,
    format_time,
    parse_time,
    validate_setting,
)
from quizbank.safetext import describe_unsafe, escape_unsafe, find_unsafe

__all__ = ["BACKUP_VERSION", "BackupError", "ParsedBackup", "export_backup", "import_backup", "parse_backup"]

BACKUP_FORMAT = "posenc-progress"
BACKUP_VERSION = 1
MAX_ERRORS_SHOWN = 5
MAX_ID_CHARS = 200
MAX_RESPONSE_CHARS = 100_000
MAX_DURATION_MS = 86_400_000
MIN_YEAR, MAX_YEAR = 1970, 2199  # the store writes 4-digit years; scheduling adds up to 100 years
MAX_STABILITY = 1e6
MAX_STEP = 1000


class BackupError(ValueError):
    """A malformed backup. `errors` lists every problem found (path: message)."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        shown = "; ".join(escape_unsafe(e, one_line=True) for e in errors[:MAX_ERRORS_SHOWN])
        more = f" (and {len(errors) - MAX_ERRORS_SHOWN} more)" if len(errors) > MAX_ERRORS_SHOWN else ""
        super().__init__(f"malformed backup: {shown}{more}")


@dataclass
class ParsedBackup:
    reviews: list[tuple[str, int, datetime, int | None]] = field(default_factory=list)
    attempts: list[tuple[str, bool | None, str, int | None, datetime]] = field(default_factory=list)
    cards: dict[str, Card] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)


def export_backup(store: ProgressStore, now: datetime | None = None) -> dict[str, Any]:
    """Everything in the store as a JSON-ready dict (see the module docstring)."""
    stamp = now or datetime.now(UTC)
    reviews = store.review_rows()
    reps: dict[str, int] = {}
    for row in reviews:
        reps[row.question_id] = reps.get(row.question_id, 0) + 1
    lapses = store.lapses()
    cards = []
    for qid, card in sorted(store.cards().items()):
        entry: dict[str, Any] = {"question_id": qid}
        entry.update({k: v for k, v in card.to_dict().items() if k != "card_id"})
        entry["reps"] = reps.get(qid, 0)
        entry["lapses"] = lapses.get(qid, 0)
        cards.append(entry)
    settings = {key: value for key, value in store.stored_settings().items() if key in DEFAULT_SETTINGS}
    return {
        "format": BACKUP_FORMAT,
        "version": BACKUP_VERSION,
        "exported_at": format_time(stamp),
        "settings": settings,
        "cards": cards,
        "reviews": [
            {
                "question_id": row.question_id,
                "rating": int(row.rating),
                "reviewed_at": format_time(row.reviewed_at),
                "duration_ms": row.duration_ms,
            }
            for row in reviews
        ],
        "attempts": [
            {
                "question_id": a.question_id,
                "correct": a.correct,
                "response": a.response,
                "duration_ms": a.duration_ms,
                "attempted_at": format_time(a.attempted_at),
            }
            for a in store.attempts()
        ],
    }


# ---------------------------------------------------------------------------------------------------- parsing


class _Checker:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")

    def text(self, where: str, value: Any, limit: int) -> str | None:
        """Text the store can hold and print: at most `limit` characters, no control/bidi/surrogate."""
        if not isinstance(value, str) or len(value) > limit:
            self.fail(where, f"must be a string of at most {limit:,} characters")
            return None
        bad = find_unsafe(value.replace("\n", " ").replace("\t", " "))
        if bad is not None:
            self.fail(where, f"contains {describe_unsafe(value[bad])} at character {bad + 1}")
            return None
        return value

    def question_id(self, where: str, value: Any) -> str | None:
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID_CHARS:
            self.fail(
                f"{where}.question_id", f"must be a non-empty string of at most {MAX_ID_CHARS} characters"
            )
            return None
        bad = find_unsafe(value)
        if bad is not None or "\n" in value or "\t" in value:
            shown = describe_unsafe(value[bad]) if bad is not None else "a tab or newline"
            self.fail(f"{where}.question_id", f"contains {shown}; question ids are plain one-line text")
            return None
        return value

    def time(self, where: str, value: Any, optional: bool = False) -> datetime | None:
        if value is None and optional:
            return None
        if not isinstance(value, str) or len(value) > 64:
            self.fail(where, "must be an ISO-8601 time string")
            return None
        try:
            moment = parse_time(value)
        except (ValueError, OverflowError):
            self.fail(where, f"{value!r} is not an ISO-8601 time with a UTC offset (in years 1..9999 UTC)")
            return None
        if not MIN_YEAR <= moment.year <= MAX_YEAR:
            self.fail(where, f"{value!r} is outside the years {MIN_YEAR}..{MAX_YEAR} (UTC)")
            return None
        return moment

    def integer(
        self, where: str, value: Any, low: int, high: int | None = None, optional: bool = False
    ) -> Any:
        if value is None and optional:
            return None
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < low
            or (high is not None and value > high)
        ):
            bound = f"from {low} to {high}" if high is not None else f">= {low}"
            self.fail(where, f"must be a whole number {bound} (got {value!r})")
            return False
        return value

    def positive(self, where: str, value: Any, low: float = 0.0, high: float = MAX_STABILITY) -> Any:
        if value is None:
            return None
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value <= 0
            or not low <= value <= high
        ):
            self.fail(where, f"must be a positive number up to {high:g}, or null (got {value!r})")
            return False
        return float(value)


def _records(checker: _Checker, data: dict[str, Any], key: str, required: bool) -> list[Any]:
    if key not in data:
        if required:
            checker.fail(key, "missing")
        return []
    value = data[key]
    if not isinstance(value, list):
        checker.fail(key, "must be a list")
        return []
    return value


def parse_backup(data: Any) -> ParsedBackup:
    """Validate a decoded backup completely. Raises BackupError listing every problem; returns typed records."""
    checker = _Checker()
    if not isinstance(data, dict):
        raise BackupError(["top level: must be a JSON object with 'version', 'cards' and 'reviews'"])
    if data.get("format", BACKUP_FORMAT) != BACKUP_FORMAT:
        checker.fail("format", f"expected {BACKUP_FORMAT!r} (got {data.get('format')!r})")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        checker.fail("version", f"missing or not a whole number (got {version!r})")
    elif version > BACKUP_VERSION or version < 1:
        checker.fail(
            "version", f"version {version} is not supported (this posenc reads version {BACKUP_VERSION})"
        )

    parsed = ParsedBackup()
    for i, item in enumerate(_records(checker, data, "reviews", required=True)):
        where = f"reviews[{i}]"
        if not isinstance(item, dict):
            checker.fail(where, "must be an object")
            continue
        qid = checker.question_id(where, item.get("question_id"))
        rating = checker.integer(f"{where}.rating", item.get("rating"), 1, 4)
        at = checker.time(f"{where}.reviewed_at", item.get("reviewed_at"))
        duration = checker.integer(
            f"{where}.duration_ms", item.get("duration_ms"), 0, MAX_DURATION_MS, optional=True
        )
        if qid is not None and rating is not False and at is not None and duration is not False:
            parsed.reviews.append((qid, rating, at, duration))

    for i, item in enumerate(_records(checker, data, "attempts", required=False)):
        where = f"attempts[{i}]"
        if not isinstance(item, dict):
            checker.fail(where, "must be an object")
            continue
        qid = checker.question_id(where, item.get("question_id"))
        correct = item.get("correct")
        if correct is not None and not isinstance(correct, bool):
            checker.fail(f"{where}.correct", "must be true, false or null")
            correct = False
            qid = None
        response = checker.text(f"{where}.response", item.get("response", ""), MAX_RESPONSE_CHARS)
        if response is None:
            qid = None
        duration = checker.integer(
            f"{where}.duration_ms", item.get("duration_ms"), 0, MAX_DURATION_MS, optional=True
        )
        at = checker.time(f"{where}.attempted_at", item.get("attempted_at"))
        if qid is not None and at is not None and duration is not False:
            parsed.attempts.append((qid, correct, response, duration, at))

    for i, item in enumerate(_records(checker, data, "cards", required=True)):
        where = f"cards[{i}]"
        if not isinstance(item, dict):
            checker.fail(where, "must be an object")
            continue
        qid = checker.question_id(where, item.get("question_id"))
        state = checker.integer(f"{where}.state", item.get("state"), 1, 3)
        step = checker.integer(f"{where}.step", item.get("step"), 0, MAX_STEP, optional=True)
        stability = checker.positive(f"{where}.stability", item.get("stability"))
        difficulty = checker.positive(f"{where}.difficulty", item.get("difficulty"), 1.0, 10.0)
        due = checker.time(f"{where}.due", item.get("due"))
        last = checker.time(f"{where}.last_review", item.get("last_review"), optional=True)
        if qid is None or False in (state, step, stability, difficulty) or due is None:
            continue
        if qid in parsed.cards:
            checker.fail(f"{where}.question_id", f"{qid!r} appears twice")
            continue
        parsed.cards[qid] = Card(
            card_id=stable_card_id(qid),
            state=State(state),
            step=step,
            stability=stability,
            difficulty=difficulty,
            due=due,
            last_review=last,
        )

    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        checker.fail("settings", "must be an object")
    else:
        for key, value in settings.items():
            if key not in DEFAULT_SETTINGS:
                continue  # settings of a newer posenc: ignored
            try:
                parsed.settings[key] = validate_setting(key, value)
            except ValueError as exc:
                checker.fail(f"settings.{key}", str(exc))
                continue
            if key == "keymap":
                for binding, keys in value.items():
                    if checker.text(f"settings.keymap[{binding!r}]", binding, MAX_ID_CHARS) is None:
                        parsed.settings.pop(key, None)
                    elif checker.text(f"settings.keymap[{binding!r}]", keys, MAX_ID_CHARS) is None:
                        parsed.settings.pop(key, None)

    if checker.errors:
        raise BackupError(checker.errors)
    return parsed


def import_backup(store: ProgressStore, data: Any) -> MergeReport:
    """Validate `data` fully, then merge it in one transaction (BackupError before any write if malformed)."""
    parsed = parse_backup(data)
    return store.merge_history(parsed.reviews, parsed.attempts, parsed.cards, parsed.settings)
