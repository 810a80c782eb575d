"""Validation of a decoded backup (versions 1 and 2): every field of every record is checked before anything is
written, and every problem is named by its record (`reviews[3].rating: ...`). See docs/backup.md for the format.

`decode_backup_json` decodes the text so that a number too long for Python's int (over 4,300 digits) becomes a
`BigNumber` the checks name, instead of an exception without a place.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import datetime
from typing import Any

from quizbank.progress.records import (
    POINT_STATES,
    TYPED_SOURCES,
    FittedParameters,
    ImportedHistory,
    PointMark,
    ReviewRecord,
    TypedAnswer,
)
from quizbank.progress.scheduler import Card, State, check_parameters, stable_card_id
from quizbank.progress.settings import DEFAULT_SETTINGS, validate_setting
from quizbank.progress.store import parse_time
from quizbank.safetext import describe_unsafe, escape_unsafe, find_unsafe, shorten

__all__ = [
    "BACKUP_FORMAT",
    "BACKUP_VERSION",
    "BackupError",
    "BigNumber",
    "decode_backup_json",
    "parse_backup",
]

BACKUP_FORMAT = "posenc-progress"
BACKUP_VERSION = 2
MAX_ERRORS_SHOWN = 5
MAX_ID_CHARS = 200
MAX_RESPONSE_CHARS = 100_000
MAX_DURATION_MS = 86_400_000
MIN_YEAR, MAX_YEAR = 1970, 2199  # the store writes 4-digit years; scheduling adds up to 100 years
MAX_STABILITY = 1e6
MAX_STEP = 1000
MAX_NUMBER_DIGITS = 100
MAX_CARD_ID = 2**63 - 1
MAX_MOCK_MINUTES = 10_000
MAX_REPORT_VALUES = 200_000  # strings, numbers and containers in one mock report
MAX_CASES = 100_000
MAX_INSTANCE_SEED = 2**31 - 1  # the app draws seeds 1..quizbank.generated.instances.MAX_SEED
MAX_INSTANCE_PARAMS = 64
MAX_PARAM_MAGNITUDE = 1e18
MAX_PARAM_TEXT = 1000  # a drawn `choices:` text
MAX_KEY_POINTS = 100  # key points of one typed answer
MAX_RULE_CHARS = 1000  # what decided a key point's verdict
MAX_FIT_REVIEWS = 10**9


class BackupError(ValueError):
    """A malformed backup. `errors` lists every problem found (path: message)."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        shown = "; ".join(escape_unsafe(e, one_line=True) for e in errors[:MAX_ERRORS_SHOWN])
        more = f" (and {len(errors) - MAX_ERRORS_SHOWN} more)" if len(errors) > MAX_ERRORS_SHOWN else ""
        super().__init__(f"malformed backup: {shown}{more}")


class BigNumber:
    """A JSON integer longer than MAX_NUMBER_DIGITS digits, kept unconverted so that a check can name it."""

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"a number of {self.digits:,} digits"


def _parse_int(text: str) -> int | BigNumber:
    return BigNumber(text) if len(text) > MAX_NUMBER_DIGITS else int(text)


def decode_backup_json(text: str) -> Any:
    """json.loads, except that an over-long integer becomes a BigNumber (rejected by the checks)."""
    return json.loads(text, parse_int=_parse_int)


BAD = object()  # a check that failed, where False and None are valid values


def _short(value: Any) -> str:
    """A value as an error message shows it: a repr cut to 60 characters (escaped by BackupError)."""
    return shorten(value)


class _Checker:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")

    def text(self, where: str, value: Any, limit: int) -> str | None:
        """Text the store can hold and print: at most `limit` characters, no control/bidi/surrogate (tabs and
        newlines are fine)."""
        if not isinstance(value, str) or len(value) > limit:
            self.fail(where, f"must be a string of at most {limit:,} characters")
            return None
        bad = find_unsafe(value.replace("\n", " ").replace("\t", " "))
        if bad is not None:
            self.fail(where, f"contains {describe_unsafe(value[bad])} at character {bad + 1}")
            return None
        return value

    def name(self, where: str, value: Any, what: str = "question ids") -> str | None:
        """A one-line identifier: a question id, a drill name, a session id."""
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID_CHARS:
            self.fail(where, f"must be a non-empty string of at most {MAX_ID_CHARS} characters")
            return None
        bad = find_unsafe(value)
        if bad is not None or "\n" in value or "\t" in value:
            shown = describe_unsafe(value[bad]) if bad is not None else "a tab or newline"
            self.fail(where, f"contains {shown}; {what} are plain one-line text")
            return None
        return value

    def question_id(self, where: str, value: Any) -> str | None:
        return self.name(f"{where}.question_id", value)

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
        """A whole number in range (None when optional and null); `BAD` when it is not one."""
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
            return BAD
        return value

    def boolean(self, where: str, value: Any, optional: bool = False) -> Any:
        """True, False (None when optional and null); `BAD` when it is neither."""
        if value is None and optional:
            return None
        if not isinstance(value, bool):
            self.fail(where, f"must be true or false{' or null' if optional else ''} (got {value!r})")
            return BAD
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
            return BAD
        return float(value)

    def fraction(self, where: str, value: Any) -> Any:
        """A number in 0..1 or null (a score)."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
            self.fail(where, f"must be a number from 0 to 1, or null (got {value!r})")
            return BAD
        return float(value)

    def instance(self, where: str, value: Any) -> Any:
        """A generated question's showing, `{"seed": int, "params": {name: number | string | bool}}`, or None
        when null or absent; `BAD` when malformed. Parameter names are one-line ids, strings are safe text of at
        most MAX_PARAM_TEXT characters, numbers are finite and at most MAX_PARAM_MAGNITUDE in size."""
        if value is None:
            return None
        if not isinstance(value, dict):
            self.fail(where, f"must be an object with 'seed' and 'params', or null (got {_short(value)})")
            return BAD
        before = len(self.errors)
        extra = sorted(str(key) for key in value if key not in ("seed", "params"))
        if extra:
            self.fail(where, f"unexpected key {escape_unsafe(extra[0], one_line=True)[:MAX_ID_CHARS]!r}")
        seed = self.integer(f"{where}.seed", value.get("seed"), 0, MAX_INSTANCE_SEED)
        params = value.get("params")
        if not isinstance(params, dict):
            self.fail(f"{where}.params", f"must be an object (got {_short(params)})")
            return BAD
        if len(params) > MAX_INSTANCE_PARAMS:
            self.fail(f"{where}.params", f"holds {len(params):,} parameters (at most {MAX_INSTANCE_PARAMS})")
            return BAD
        out: dict[str, Any] = {}
        for key, item in params.items():
            name = self.name(f"{where}.params key", key, "parameter names")
            if name is None:
                continue
            path = f"{where}.params.{name}"
            if isinstance(item, str):
                if self.text(path, item, MAX_PARAM_TEXT) is not None:
                    out[name] = item
            elif isinstance(item, bool) or (
                isinstance(item, int | float) and math.isfinite(item) and abs(item) <= MAX_PARAM_MAGNITUDE
            ):
                out[name] = item
            else:
                self.fail(
                    path,
                    f"must be a finite number up to {MAX_PARAM_MAGNITUDE:g} in size, a string or true/false "
                    f"(got {_short(item)})",
                )
        if len(self.errors) != before or seed is BAD:
            return BAD
        return {"seed": seed, "params": out}

    def card(self, where: str, item: Any, question_id: str | None) -> Card | None:
        """An FSRS card object (the card fields of a `cards` record, or a review's card_before/card_after)."""
        if not isinstance(item, dict):
            self.fail(where, "must be an object")
            return None
        card_id = self.integer(f"{where}.card_id", item.get("card_id"), 0, MAX_CARD_ID, optional=True)
        state = self.integer(f"{where}.state", item.get("state"), 1, 3)
        step = self.integer(f"{where}.step", item.get("step"), 0, MAX_STEP, optional=True)
        stability = self.positive(f"{where}.stability", item.get("stability"))
        difficulty = self.positive(f"{where}.difficulty", item.get("difficulty"), 1.0, 10.0)
        due = self.time(f"{where}.due", item.get("due"))
        last = self.time(f"{where}.last_review", item.get("last_review"), optional=True)
        if question_id is None or BAD in (card_id, state, step, stability, difficulty) or due is None:
            return None
        return Card(
            card_id=stable_card_id(question_id) if card_id is None else card_id,
            state=State(state),
            step=step,
            stability=stability,
            difficulty=difficulty,
            due=due,
            last_review=last,
        )

    def report(self, where: str, value: Any) -> dict[str, Any] | None:
        """A mock report: a JSON object of safe strings, finite numbers, booleans and nulls, shaped as
        mock history reads it."""
        before = len(self.errors)
        if self.json_object(where, value) is None:
            return None
        from quizbank.mock.report_shape import report_problem

        problem = report_problem(value, where)  # `"report": {}` crashed mock history and mock report
        if problem is not None:
            self.errors.append(problem)
        return value if len(self.errors) == before else None

    def json_object(self, where: str, value: Any) -> dict[str, Any] | None:
        """A JSON object of safe strings, finite numbers, booleans and nulls (at most MAX_REPORT_VALUES)."""
        if not isinstance(value, dict):
            self.fail(where, "must be an object")
            return None
        budget = [MAX_REPORT_VALUES]
        before = len(self.errors)

        def walk(path: str, node: Any) -> None:
            budget[0] -= 1
            if budget[0] < 0:
                if budget[0] == -1:
                    self.fail(where, f"holds more than {MAX_REPORT_VALUES:,} values")
                return
            if isinstance(node, dict):
                for key, child in node.items():
                    if self.text(f"{path} key", key, MAX_ID_CHARS) is not None:
                        walk(f"{path}.{key}", child)
            elif isinstance(node, list):
                for index, child in enumerate(node):
                    walk(f"{path}[{index}]", child)
            elif isinstance(node, str):
                self.text(path, node, MAX_RESPONSE_CHARS)
            elif isinstance(node, BigNumber) or (isinstance(node, float) and not math.isfinite(node)):
                self.fail(
                    path, f"must be a finite number of at most {MAX_NUMBER_DIGITS} digits (got {node!r})"
                )
            elif node is not None and not isinstance(node, bool | int | float):
                self.fail(path, f"unexpected value {node!r}")

        walk(where, value)
        return value if len(self.errors) == before else None


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


def _each(
    checker: _Checker, data: dict[str, Any], key: str, required: bool, read: Callable[[str, dict], None]
) -> None:
    for i, item in enumerate(_records(checker, data, key, required)):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            checker.fail(where, "must be an object")
            continue
        read(where, item)


def parse_backup(data: Any) -> ImportedHistory:
    """Validate a decoded backup (version 1 or 2) completely. Raises BackupError listing every problem; returns
    the typed records."""
    checker = _Checker()
    if not isinstance(data, dict):
        raise BackupError(["top level: must be a JSON object with 'version', 'cards' and 'reviews'"])
    if data.get("format", BACKUP_FORMAT) != BACKUP_FORMAT:
        checker.fail("format", f"expected {BACKUP_FORMAT!r} (got {data.get('format')!r})")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        checker.fail("version", f"missing or not a whole number (got {version!r})")
        version = BACKUP_VERSION
    elif version > BACKUP_VERSION or version < 1:
        checker.fail(
            "version",
            f"version {version} is not supported (this posenc reads versions 1 to {BACKUP_VERSION})",
        )
    parsed = ImportedHistory()
    v2 = version >= 2

    def review(where: str, item: dict) -> None:
        qid = checker.question_id(where, item.get("question_id"))
        rating = checker.integer(f"{where}.rating", item.get("rating"), 1, 4)
        at = checker.time(f"{where}.reviewed_at", item.get("reviewed_at"))
        duration = checker.integer(
            f"{where}.duration_ms", item.get("duration_ms"), 0, MAX_DURATION_MS, optional=True
        )
        state_before, before, after = None, None, None
        ok = qid is not None and rating is not BAD and at is not None and duration is not BAD
        if v2:
            state_before = checker.integer(
                f"{where}.state_before", item.get("state_before"), 1, 3, optional=True
            )
            if item.get("card_before") is not None:
                card = checker.card(f"{where}.card_before", item.get("card_before"), qid)
                before = card.to_json() if card is not None else None
                ok = ok and card is not None
            card = checker.card(f"{where}.card_after", item.get("card_after"), qid)
            after = card.to_json() if card is not None else None
            ok = ok and card is not None and state_before is not BAD
        shown = checker.instance(f"{where}.instance", item.get("instance"))
        if ok and shown is not BAD and qid is not None and at is not None:  # `ok` says so; mypy needs it
            parsed.reviews.append(ReviewRecord(qid, rating, at, duration, state_before, before, after, shown))

    def attempt(where: str, item: dict) -> None:
        qid = checker.question_id(where, item.get("question_id"))
        correct = checker.boolean(f"{where}.correct", item.get("correct"), optional=True)
        response = checker.text(f"{where}.response", item.get("response", ""), MAX_RESPONSE_CHARS)
        duration = checker.integer(
            f"{where}.duration_ms", item.get("duration_ms"), 0, MAX_DURATION_MS, optional=True
        )
        at = checker.time(f"{where}.attempted_at", item.get("attempted_at"))
        shown = checker.instance(f"{where}.instance", item.get("instance"))
        if (
            qid is not None
            and response is not None
            and at is not None
            and BAD not in (correct, duration, shown)
        ):
            parsed.attempts.append((qid, correct, response, duration, at, shown))

    def card(where: str, item: dict) -> None:
        qid = checker.question_id(where, item.get("question_id"))
        value = checker.card(where, item, qid)
        if value is None or qid is None:
            return
        if qid in parsed.cards:
            checker.fail(f"{where}.question_id", f"{qid!r} appears twice")
            return
        parsed.cards[qid] = value

    def drill_attempt(where: str, item: dict) -> None:
        drill = checker.name(f"{where}.drill", item.get("drill"), "drill names")
        passed = checker.boolean(f"{where}.passed", item.get("passed"))
        n_ok = checker.integer(f"{where}.cases_passed", item.get("cases_passed"), 0, MAX_CASES)
        n = checker.integer(f"{where}.cases_total", item.get("cases_total"), 0, MAX_CASES)
        elapsed = checker.integer(
            f"{where}.elapsed_ms", item.get("elapsed_ms"), 0, MAX_DURATION_MS, optional=True
        )
        at = checker.time(f"{where}.attempted_at", item.get("attempted_at"))
        if drill is not None and at is not None and BAD not in (n_ok, n, elapsed) and passed is not BAD:
            parsed.drill_attempts.append((drill, passed, n_ok, n, elapsed, at))

    def mock_session(where: str, item: dict) -> None:
        session_id = checker.name(f"{where}.id", item.get("id"), "session ids")
        started = checker.time(f"{where}.started_at", item.get("started_at"))
        minutes = checker.integer(f"{where}.minutes", item.get("minutes"), 0, MAX_MOCK_MINUTES)
        level = checker.name(f"{where}.level", item.get("level"), "levels")
        language = checker.name(f"{where}.language", item.get("language"), "languages")
        early = checker.boolean(f"{where}.ended_early", item.get("ended_early"))
        score = checker.fraction(f"{where}.score", item.get("score"))
        report = checker.report(f"{where}.report", item.get("report"))
        if session_id is None or started is None or level is None or language is None or report is None:
            return
        if BAD in (minutes, score, early):
            return
        parsed.mock_sessions.append((session_id, started, minutes, level, language, early, score, report))

    def mark(where: str, item: dict) -> None:
        qid = checker.question_id(where, item.get("question_id"))
        flagged = checker.boolean(f"{where}.flagged", item.get("flagged"))
        note = checker.text(f"{where}.note", item.get("note"), MAX_RESPONSE_CHARS)
        at = checker.time(f"{where}.updated_at", item.get("updated_at"))
        if qid is not None and note is not None and at is not None and flagged is not BAD:
            parsed.marks.append((qid, flagged, note, at))

    def id_migration(where: str, item: dict) -> None:
        old = checker.name(f"{where}.old_id", item.get("old_id"))
        new = checker.name(f"{where}.new_id", item.get("new_id"))
        at = checker.time(f"{where}.applied_at", item.get("applied_at"))
        if old is not None and new is not None and at is not None:
            parsed.id_migrations.append((old, new, at))

    def typed_answer(where: str, item: dict) -> None:
        qid = checker.question_id(where, item.get("question_id"))
        at = checker.time(f"{where}.answered_at", item.get("answered_at"))
        source = item.get("source")
        if source not in TYPED_SOURCES:
            checker.fail(
                f"{where}.source", f"must be one of {', '.join(TYPED_SOURCES)} (got {_short(source)})"
            )
        answer = checker.text(f"{where}.answer", item.get("answer"), MAX_RESPONSE_CHARS)
        if answer is not None and not answer.strip():
            checker.fail(f"{where}.answer", "must not be empty")
            answer = None
        points = item.get("points")
        if not isinstance(points, list) or len(points) > MAX_KEY_POINTS:
            checker.fail(f"{where}.points", f"must be a list of at most {MAX_KEY_POINTS} key points")
            return
        before = len(checker.errors)
        marks = []
        for n, point in enumerate(points):
            spot = f"{where}.points[{n}]"
            if not isinstance(point, dict):
                checker.fail(spot, "must be an object")
                continue
            states = [point.get("verdict"), point.get("mark")]
            for name, value in zip(("verdict", "mark"), states, strict=True):
                if value not in POINT_STATES:
                    checker.fail(
                        f"{spot}.{name}", f"must be one of {', '.join(POINT_STATES)} (got {_short(value)})"
                    )
            evidence = checker.text(f"{spot}.evidence", point.get("evidence", ""), MAX_RESPONSE_CHARS)
            rule = checker.text(f"{spot}.rule", point.get("rule", ""), MAX_RULE_CHARS)
            if len(checker.errors) == before:
                marks.append(PointMark(str(states[0]), str(states[1]), evidence or "", rule or ""))
        if qid is None or at is None or answer is None or source not in TYPED_SOURCES:
            return
        if len(checker.errors) == before:
            parsed.typed_answers.append(TypedAnswer(qid, at, str(source), answer, tuple(marks)))

    def own_card(where: str, item: dict) -> None:
        qid = checker.question_id(where, item.get("question_id"))
        topic = checker.text(f"{where}.topic", item.get("topic"), MAX_ID_CHARS)
        question = checker.json_object(f"{where}.question", item.get("question"))
        at = checker.time(f"{where}.created_at", item.get("created_at"))
        if qid is not None and topic is not None and question is not None and at is not None:
            parsed.own_cards.append((qid, topic, question, at))

    _each(checker, data, "reviews", True, review)
    _each(checker, data, "attempts", False, attempt)
    _each(checker, data, "cards", True, card)
    if v2:
        _each(checker, data, "drill_attempts", False, drill_attempt)
        _each(checker, data, "mock_sessions", False, mock_session)
        _each(checker, data, "marks", False, mark)
        _each(checker, data, "id_migrations", False, id_migration)
        _each(checker, data, "typed_answers", False, typed_answer)
        _each(checker, data, "own_cards", False, own_card)

    fitted = data.get("fitted_parameters") if v2 else None
    if fitted is not None:
        where = "fitted_parameters"
        if not isinstance(fitted, dict):
            checker.fail(where, "must be an object or null")
        else:
            before = len(checker.errors)
            try:
                weights = check_parameters(fitted.get("parameters"))
            except ValueError as exc:
                checker.fail(f"{where}.parameters", str(exc))
            at = checker.time(f"{where}.fitted_at", fitted.get("fitted_at"))
            reviews = checker.integer(f"{where}.reviews", fitted.get("reviews"), 0, MAX_FIT_REVIEWS)
            report = checker.json_object(f"{where}.report", fitted.get("report", {}))
            if len(checker.errors) == before and at is not None and report is not None:
                parsed.fitted = FittedParameters(weights, at, reviews, report)

    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        checker.fail("settings", "must be an object")
    else:
        for key, value in settings.items():
            if key not in DEFAULT_SETTINGS:
                continue  # settings of a newer posenc: ignored
            if key == "keymap" and isinstance(value, dict):  # each entry named first: settings.keymap['id']
                errors = len(checker.errors)
                for binding, keys in value.items():
                    if checker.text(f"settings.keymap[{binding!r}]", binding, MAX_ID_CHARS) is not None:
                        checker.text(f"settings.keymap[{binding!r}]", keys, MAX_ID_CHARS)
                if len(checker.errors) > errors:
                    continue
            try:
                parsed.settings[key] = validate_setting(key, value)
            except ValueError as exc:
                checker.fail(f"settings.{key}", str(exc))

    if checker.errors:
        raise BackupError(checker.errors)
    return parsed
