"""The shape of a saved mock report: every field `mock history`, `mock report` and the app's report screen
read, with its type. A backup's report is checked against it on import (`report_problem`), so that a
`"report": {}` is refused there, named, and never reaches them as a KeyError."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["report_problem"]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _optional_number(value: Any) -> bool:
    return value is None or _number(value)


def _optional_text(value: Any) -> bool:
    return value is None or _text(value)


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


def _texts_by_language(value: Any) -> bool:
    return isinstance(value, dict) and all(_text(v) for v in value.values())


_KINDS: dict[Callable[[Any], bool], str] = {
    _number: "a number",
    _text: "a string",
    _optional_number: "a number or null",
    _optional_text: "a string or null",
    _flag: "true or false",
    _texts_by_language: "an object of strings by language",
}

REPORT_FIELDS: dict[str, Callable[[Any], bool]] = {
    "id": _text,
    "started_at": _text,
    "minutes": _number,
    "level": _text,
    "ended_early": _flag,
    "score": _optional_number,
    "elapsed_seconds": _number,
}
ITEM_FIELDS: dict[str, Callable[[Any], bool]] = {
    "id": _text,
    "kind": _text,
    "topic": _text,
    "skill": _text,
    "status": _text,
    "follow_up_of": _optional_text,
    "minutes": _number,
    "seconds": _number,
    "score": _optional_number,
    "missed": _flag,
    "response": _text,
    "prompt": _texts_by_language,
    "answer": _texts_by_language,
}
SUMMARY_FIELDS: dict[str, Callable[[Any], bool]] = {"items": _number, "score": _optional_number}


def _fields(where: str, value: Mapping[str, Any], fields: Mapping[str, Callable[[Any], bool]]) -> str | None:
    for name, ok in fields.items():
        if name not in value:
            return f"{where}: the field {name!r} is missing"
        if not ok(value[name]):
            return f"{where}.{name}: must be {_KINDS[ok]}"
    return None


def report_problem(report: Mapping[str, Any], where: str = "report") -> str | None:
    """The first field of `report` the report's readers would trip on, as `where.field: what`; None if fine."""
    problem = _fields(where, report, REPORT_FIELDS)
    if problem:
        return problem
    items = report.get("items")
    if not isinstance(items, list):
        return f"{where}.items: must be a list"
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            return f"{where}.items[{index}]: must be an object"
        problem = _fields(f"{where}.items[{index}]", item, ITEM_FIELDS)
        if problem:
            return problem
    for group in ("by_topic", "by_skill"):
        table = report.get(group)
        if not isinstance(table, dict):
            return f"{where}.{group}: must be an object"
        for name, summary in table.items():
            if not isinstance(summary, dict):
                return f"{where}.{group}.{name}: must be an object"
            problem = _fields(f"{where}.{group}.{name}", summary, SUMMARY_FIELDS)
            if problem:
                return problem
    weakest = report.get("weakest_topics")
    if not isinstance(weakest, list) or not all(_text(t) and t in report["by_topic"] for t in weakest):
        return f"{where}.weakest_topics: must be a list of topics in by_topic"
    titles = report.get("topic_titles", {})
    if not isinstance(titles, dict) or not all(_texts_by_language(t) for t in titles.values()):
        return f"{where}.topic_titles: must be an object of titles by language"
    return None
