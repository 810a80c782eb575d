"""The progress store's value types and time format: rows read back, results of writes, and the fixed-width
UTC time text every table uses (it sorts chronologically as text)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from quizbank.progress.scheduler import Card, Rating, State, to_utc

__all__ = [
    "DRILL_CARD_PREFIX",
    "AttemptRow",
    "CardInfo",
    "DrillAttemptRow",
    "FittedParameters",
    "ImportedHistory",
    "MergeReport",
    "POINT_STATES",
    "TYPED_SOURCES",
    "Orphan",
    "PointMark",
    "ReviewRecord",
    "ReviewResult",
    "ReviewRow",
    "StudyQueue",
    "TopicProgress",
    "TypedAnswer",
    "UndoResult",
    "as_ms",
    "format_time",
    "instance_json",
    "parse_instance",
    "parse_loose",
    "parse_time",
    "utc_day_start",
]

# ---------------------------------------------------------------------------------------------------- time


def format_time(moment: datetime) -> str:
    """Fixed-width ISO-8601 in UTC with microseconds: sorts chronologically as text."""
    return to_utc(moment).strftime("%Y-%m-%dT%H:%M:%S.%f") + "+00:00"


def parse_time(text: str) -> datetime:
    """Parse an ISO-8601 time; it must carry an offset. Returned in UTC."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"time {text!r} has no UTC offset")
    return moment.astimezone(UTC)


def utc_day_start(moment: datetime) -> datetime:
    moment = to_utc(moment)
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


# ---------------------------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class TopicProgress:
    """Per-topic counts for Home: cards due now, never-studied questions, studied cards, and mastery: the
    mean retrievability over every question of the topic, never-studied ones counting as 0."""

    due: int
    new: int
    studied: int
    mastery: float | None


@dataclass(frozen=True)
class StudyQueue:
    """Question ids to study: due cards (most overdue first), then today's new cards (bank order)."""

    due: list[str]
    new: list[str]
    new_left_today: int

    @property
    def ids(self) -> list[str]:
        return self.due + self.new

    def __len__(self) -> int:
        return len(self.due) + len(self.new)

    def __iter__(self):
        return iter(self.ids)


@dataclass(frozen=True)
class ReviewResult:
    review_id: int
    question_id: str
    rating: Rating
    reviewed_at: datetime
    card_before: Card | None
    card_after: Card


@dataclass(frozen=True)
class UndoResult:
    question_id: str
    rating: Rating
    card: Card | None  # the restored card, None if the question is new again


@dataclass(frozen=True)
class CardInfo:
    question_id: str
    card: Card
    reps: int
    lapses: int
    retrievability: float


@dataclass(frozen=True)
class ReviewRow:
    question_id: str
    rating: Rating
    reviewed_at: datetime
    duration_ms: int | None
    state_before: State | None  # None: first review of a new card
    instance: dict[str, Any] | None = None  # a generated question's showing: {"seed", "params"}


@dataclass(frozen=True)
class AttemptRow:
    question_id: str
    correct: bool | None
    response: str
    duration_ms: int | None
    attempted_at: datetime
    instance: dict[str, Any] | None = None  # a generated question's showing: {"seed", "params"}


@dataclass(frozen=True)
class DrillAttemptRow:
    drill: str
    passed: bool
    cases_passed: int
    cases_total: int
    elapsed_ms: int | None
    attempted_at: datetime


DRILL_CARD_PREFIX = "drill:"  # a solved drill's Study card is `drill:NAME`

POINT_STATES = ("covered", "contradicted", "not_found")  # the judge's verdicts (quizbank.judge.VERDICTS)
TYPED_SOURCES = ("quiz", "study", "mock")  # where an open answer was typed


@dataclass(frozen=True)
class PointMark:
    """One key point of a typed answer: the judge's verdict, the candidate's mark after ticking (a ticked
    point is covered; an unticked one the judge found contradicted stays contradicted), and the part of the
    answer that decided the verdict with the rule that did."""

    verdict: str
    mark: str
    evidence: str = ""
    rule: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"verdict": self.verdict, "mark": self.mark, "evidence": self.evidence, "rule": self.rule}


@dataclass(frozen=True)
class TypedAnswer:
    """An answer typed to an open question (Quiz, Study or Mock), with one PointMark per key point in the
    question's order."""

    question_id: str
    answered_at: datetime
    source: str
    answer: str
    points: tuple[PointMark, ...]

    @property
    def covered(self) -> int:
        return sum(point.mark == "covered" for point in self.points)

    @property
    def contradicted(self) -> int:
        return sum(point.mark == "contradicted" for point in self.points)


@dataclass(frozen=True)
class MergeReport:
    """What a merge (`progress import`) changed, per table. `cards_rebuilt`: cards replayed from a history both
    sides had; `cards_added`: cards taken from the backup as they were."""

    reviews_added: int
    reviews_skipped: int
    cards_rebuilt: int
    attempts_added: int
    cards_added: int
    settings_added: int
    drill_attempts_added: int = 0
    mock_sessions_added: int = 0
    marks_changed: int = 0
    id_migrations_added: int = 0
    typed_answers_added: int = 0
    fitted_taken: int = 0  # 1 when the backup's fitted FSRS parameters replaced this store's (or filled none)
    own_cards_added: int = 0


class ReviewRecord(NamedTuple):
    """One review as a backup carries it. Version 2 backups carry the card before and after (card JSON text,
    as the store keeps it); version 1 backups do not (None), and such a card is rebuilt by replay. `instance`:
    the seed and parameters a generated question was shown with ({"seed", "params"}), None otherwise (and in
    files written before the store kept it)."""

    question_id: str
    rating: int
    reviewed_at: datetime
    duration_ms: int | None
    state_before: int | None = None
    card_before: str | None = None
    card_after: str | None = None
    instance: dict[str, Any] | None = None


@dataclass
class ImportedHistory:
    """Everything a validated backup holds, typed, ready for `ProgressStore.merge_backup`. Times are aware
    datetimes; cards are `fsrs.Card`; a mock report is a JSON-ready dict."""

    reviews: list[ReviewRecord] = field(default_factory=list)
    # (question_id, correct, response, duration_ms, attempted_at, instance)
    attempts: list[tuple[str, bool | None, str, int | None, datetime, dict[str, Any] | None]] = field(
        default_factory=list
    )
    cards: dict[str, Card] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    # (drill, passed, cases_passed, cases_total, elapsed_ms, attempted_at)
    drill_attempts: list[tuple[str, bool, int, int, int | None, datetime]] = field(default_factory=list)
    # (id, started_at, minutes, level, language, ended_early, score, report)
    mock_sessions: list[tuple[str, datetime, int, str, str, bool, float | None, dict[str, Any]]] = field(
        default_factory=list
    )
    # (question_id, flagged, note, updated_at)
    marks: list[tuple[str, bool, str, datetime]] = field(default_factory=list)
    # (old_id, new_id, applied_at)
    id_migrations: list[tuple[str, str, datetime]] = field(default_factory=list)
    typed_answers: list[TypedAnswer] = field(default_factory=list)
    fitted: FittedParameters | None = None
    # (question_id, topic, question, created_at): own cards (a Demo lab prediction's question as an object)
    own_cards: list[tuple[str, str, dict[str, Any], datetime]] = field(default_factory=list)


@dataclass(frozen=True)
class FittedParameters:
    """FSRS-6 parameters fitted to this store's reviews (`posenc progress optimize`): the 21 weights the
    scheduler uses instead of the defaults, when they were fitted, on how many reviews, and the fit's figures
    (a JSON-ready dict: see quizbank/progress/optimize.py)."""

    parameters: tuple[float, ...]
    fitted_at: datetime
    reviews: int
    report: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Orphan:
    question_id: str
    reviews: int
    attempts: int
    last_activity: datetime | None


def as_ms(duration_ms: float | None) -> int | None:
    """A duration as a non-negative whole number of milliseconds (None stays None)."""
    if duration_ms is None:
        return None
    return max(0, int(duration_ms))


def parse_loose(text: str | None) -> datetime | None:
    """A stored time, or None when it is empty or unreadable."""
    if not text:
        return None
    try:
        return parse_time(text)
    except ValueError:
        return None


def instance_json(instance: dict[str, Any] | None) -> str | None:
    """A generated question's showing, {"seed", "params"}, as compact JSON for the `instance` column of
    attempts and reviews (None stays NULL)."""
    if instance is None:
        return None
    return json.dumps({"seed": int(instance["seed"]), "params": dict(instance["params"])}, sort_keys=True)


def parse_instance(text: str | None) -> dict[str, Any] | None:
    """The `instance` column read back: {"seed": int, "params": {...}}, or None when NULL (or unreadable: a
    value no posenc wrote)."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("params"), dict):
        return None
    return value
