"""The report of a mock interview: scores by topic and skill, time against budget, missed items with their model
answers, the weakest topics, and a Markdown rendering.

`build_report` turns a plan plus per-item results into one JSON-ready dict: the progress store keeps it whole
(`mock_sessions.report_json`), so a report renders the same later even if the bank changed. Bank text and the
candidate's answers pass through `quizbank.safetext.escape_unsafe` in the Markdown. Pure functions, no textual.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from quizbank.question_types import answer_line, question_type
from quizbank.safetext import escape_unsafe
from quizbank.texts import TEXTS, label

from .planner import SKILLS, InterviewPlan, PlanItem

__all__ = [
    "OPEN_PASS",
    "ItemResult",
    "build_report",
    "history_entry",
    "is_missed",
    "model_answer",
    "render_markdown",
]

OPEN_PASS = 0.6  # an open (judged) question counts as missed below this share of key points
WEAKEST = 3


@dataclass
class ItemResult:
    """What happened to one plan item. `status`: answered, skipped (shown, no answer) or not_reached."""

    id: str
    status: str = "not_reached"
    score: float | None = None  # 0..1 when answered
    seconds: float = 0.0
    response: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


def _text(value: Any) -> dict[str, str]:
    """A schema `Text` (or a plain dict/str) as {"en", "zh"}."""
    if value is None:
        return {"en": "", "zh": ""}
    if isinstance(value, str):
        return {"en": value, "zh": value}
    if isinstance(value, Mapping):
        en = str(value.get("en") or value.get("zh") or "")
        return {"en": en, "zh": str(value.get("zh") or en)}
    return {"en": value.get("en"), "zh": value.get("zh")}


def model_answer(question: Any) -> dict[str, str]:
    """The short right answer of a question in both languages (`quizbank.question_types.answer_line`: choices
    named, numbers with their tolerance and unit, blanks filled), then its `answer` text."""
    out = {"en": "", "zh": ""}
    for lang in ("en", "zh"):
        parts = [answer_line(question, lang)]
        if question.answer is not None:
            parts.append(question.answer.get(lang))
        out[lang] = "\n\n".join(p for p in parts if p)
    return out


def is_missed(item: Mapping[str, Any]) -> bool:
    """An asked item that was skipped, or scored below its pass mark (a judged type, open: OPEN_PASS of its
    key points; others: all of it)."""
    if item["status"] == "not_reached":
        return False
    score = item.get("score")
    if item["status"] != "answered" or score is None:
        return True
    if _judged(item.get("qtype")):
        return score < OPEN_PASS
    return score < 1.0 - 1e-9


def _judged(qtype: Any) -> bool:
    """Whether a report item's `qtype` is a judged question type (`QuestionType.judged`); False for a drill
    and for a type this posenc does not know (a report saved by another version)."""
    try:
        return question_type(qtype).judged
    except KeyError:
        return False


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def _group(items: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        if item["status"] == "not_reached":
            continue
        entry = out.setdefault(item[key], {"scores": [], "items": 0, "missed": 0})
        entry["items"] += 1
        entry["scores"].append(item["score"] or 0.0)
        entry["missed"] += int(item["missed"])
    return {
        name: {"score": _mean(e["scores"]), "items": e["items"], "missed": e["missed"]}
        for name, e in out.items()
    }


def build_report(
    plan: InterviewPlan,
    results: Mapping[str, ItemResult],
    *,
    session_id: str,
    started_at: datetime,
    language: str,
    ended_early: bool,
    bankset: Any = None,
    drills: Mapping[str, Any] | None = None,
    elapsed_seconds: float | None = None,
) -> dict[str, Any]:
    """The whole report as a JSON-ready dict (see the module docstring). `results` is keyed by item id;
    items without a result were not reached. `drills` maps drill names to drills (for titles and solutions)."""
    drills = drills or {}
    items: list[dict[str, Any]] = []
    topic_titles: dict[str, dict[str, str]] = {}
    for plan_item in plan.items:
        result = results.get(plan_item.id) or ItemResult(plan_item.id)
        entry: dict[str, Any] = {
            **plan_item.to_json(),
            "difficulty": plan_item.difficulty,
            "qtype": plan_item.qtype,
            "status": result.status,
            "score": None if result.score is None else round(float(result.score), 4),
            "seconds": round(float(result.seconds), 1),
            "response": result.response,
            "detail": dict(result.detail),
        }
        entry["missed"] = is_missed(entry)
        entry["prompt"], entry["answer"] = _item_texts(plan_item, bankset, drills, entry["missed"])
        items.append(entry)
        if bankset is not None and plan_item.topic not in topic_titles:
            topic = bankset.topic(plan_item.topic)
            if topic is not None:
                topic_titles[plan_item.topic] = _text(topic.title)
    asked = [item for item in items if item["status"] != "not_reached"]
    # every planned item counts: one not reached scores 0 ("Overall 50%" with 4 of 8 left was twice too kind)
    score = _mean(item["score"] or 0.0 for item in items) if asked else None
    asked_score = _mean(item["score"] or 0.0 for item in asked)
    by_topic = _group(items, "topic")
    by_skill = {skill: value for skill in SKILLS if (value := _group(items, "skill").get(skill)) is not None}
    weakest = sorted(
        (t for t, v in by_topic.items() if v["score"] is not None and v["score"] < 1.0),
        key=lambda t: (by_topic[t]["score"], -by_topic[t]["items"], t),
    )[:WEAKEST]
    if elapsed_seconds is None:
        elapsed_seconds = sum(item["seconds"] for item in items)
    return {
        "version": 1,
        "id": session_id,
        "started_at": started_at.isoformat(),
        "minutes": plan.minutes,
        "level": plan.level,
        "seed": plan.seed,
        "topics": list(plan.topics),
        "language": language,
        "ended_early": bool(ended_early),
        "score": None if score is None else round(score, 4),
        "asked_score": None if asked_score is None else round(asked_score, 4),
        "not_reached": len(items) - len(asked),
        "elapsed_seconds": round(float(elapsed_seconds), 1),
        "items": items,
        "by_topic": by_topic,
        "by_skill": by_skill,
        "weakest_topics": weakest,
        "missed": [item["id"] for item in items if item["missed"]],
        "misconceptions": misconceptions_stated(items),
        "topic_titles": topic_titles,
    }


def misconceptions_stated(items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every misconception the candidate's open answers stated (and did not untick), in interview order:
    {item, point, claim {en, zh}, correction {en, zh}}."""
    out: list[dict[str, Any]] = []
    for item in items:
        detail = item.get("detail") or {}
        for found in detail.get("misconceptions") or []:
            if isinstance(found, Mapping) and isinstance(found.get("correction"), Mapping):
                out.append({"item": item.get("id"), "point": found.get("point"),
                            "claim": _text(found.get("claim")), "correction": _text(found.get("correction"))})  # fmt: skip
    return out


def _item_texts(
    item: PlanItem, bankset: Any, drills: Mapping[str, Any], missed: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """(prompt, model answer) in both languages; the answer only for missed items (it can be long)."""
    empty = {"en": "", "zh": ""}
    if item.kind == "drill":
        drill = drills.get(item.id)
        if drill is None:
            return {"en": item.id, "zh": item.id}, empty
        title = _text(drill.title)
        answer = {"en": drill.solution, "zh": drill.solution} if missed else empty
        return title, answer
    question = bankset.questions.get(item.id) if bankset is not None else None
    if question is None:
        return {"en": item.id, "zh": item.id}, empty
    return _text(question.prompt), (model_answer(question) if missed else empty)


def history_entry(report: Mapping[str, Any]) -> dict[str, Any]:
    """One session as `posenc mock history --json` lists it."""
    return {
        "id": report["id"],
        "started_at": report["started_at"],
        "minutes": report["minutes"],
        "level": report["level"],
        "ended_early": report["ended_early"],
        "score": report["score"],
        "items": [
            {"id": item["id"], "kind": item["kind"], "score": item["score"], "seconds": item["seconds"]}
            for item in report["items"]
        ],
    }


# ---------------------------------------------------------------------------------------------------- Markdown


def _pct(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{round(100 * value)}%"


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _cell(text: str) -> str:
    """Safe text for a Markdown table cell: one line, pipes escaped."""
    flat = " ".join(escape_unsafe(text, one_line=True).split())
    return flat.replace("|", "\\|")


def _topic_title(report: Mapping[str, Any], topic: str, lang: str) -> str:
    titles = report.get("topic_titles", {}).get(topic)
    return f"{titles[lang]} ({topic})" if titles and titles.get(lang) else topic


def _quote(text: str) -> str:
    safe = escape_unsafe(text)
    return "\n".join(f"> {line}" if line else ">" for line in safe.splitlines()) or ">"


def render_markdown(report: Mapping[str, Any], lang: str = "en") -> str:
    """The report as Markdown in `lang` ("en" or "zh")."""
    lines: list[str] = [
        f"# {label('mock_title', lang)}: {escape_unsafe(str(report['id']), one_line=True)}",
        "",
    ]
    state = label("ended_early" if report["ended_early"] else "finished", lang)
    level_key = f"level_{report['level']}"
    level = label(level_key, lang) if level_key in TEXTS else str(report["level"])
    lines.append(
        f"- {label('when', lang)}: {report['started_at'][:19].replace('T', ' ')} UTC · "
        f"{label('length', lang)}: {label('minutes', lang, n=report['minutes'])} "
        f"({label('used', lang, clock=_clock(report['elapsed_seconds']))}) · {label('level', lang)}: "
        f"{level} · {state}"
    )
    score, asked = report["score"], report.get("asked_score")
    if "asked_score" not in report and score is not None:  # saved before unreached items counted
        asked, score = score, _mean(item["score"] or 0.0 for item in report["items"])
    lines.append(f"- **{label('overall', lang)}: {label('none', lang) if score is None else _pct(score)}**")
    unreached = sum(1 for item in report["items"] if item["status"] == "not_reached")
    if unreached and score is not None:
        total = len(report["items"])
        key = "unreached_counted_one" if unreached == 1 else "unreached_counted"
        lines.append(
            f"- {label(key, lang, n=unreached, total=total, asked=_pct(asked), done=total - unreached)}"
        )
    lines.append("")

    head = f"| {label('col_items', lang)} | {label('col_score', lang)} |"
    lines += [f"## {label('by_topic', lang)}", "", f"| {label('topic', lang)} {head}", "|---|---:|---:|"]
    # interview order (the store keeps the JSON with sorted keys)
    topics = [t for t in dict.fromkeys(item["topic"] for item in report["items"]) if t in report["by_topic"]]
    for topic in topics:
        value = report["by_topic"][topic]
        lines.append(
            f"| {_cell(_topic_title(report, topic, lang))} | {value['items']} | {_pct(value['score'])} |"
        )
    lines += [
        "",
        f"## {label('by_skill', lang)}",
        "",
        f"| {label('col_skill', lang)} {head}",
        "|---|---:|---:|",
    ]
    for skill in [s for s in SKILLS if s in report["by_skill"]]:
        value = report["by_skill"][skill]
        lines.append(f"| {label(skill, lang)} | {value['items']} | {_pct(value['score'])} |")

    lines += ["", f"## {label('time', lang)}", ""]
    lines.append(
        f"| # | {label('col_item', lang)} | {label('col_skill', lang)} | {label('col_budget', lang)} "
        f"| {label('col_used', lang)} | {label('col_score', lang)} |"
    )
    lines.append("|---:|---|---|---:|---:|---:|")
    for n, item in enumerate(report["items"], 1):
        name = item["id"] + (
            f" ({label('follow_up', lang, id=item['follow_up_of'])})" if item["follow_up_of"] else ""
        )
        if item["status"] == "not_reached":
            used, score = "-", label("not_reached", lang)
        else:
            over = item["seconds"] > item["minutes"] * 60
            used = _clock(item["seconds"]) + (" ⚠" if over else "")
            score = label("skipped", lang) if item["status"] == "skipped" else _pct(item["score"])
        lines.append(
            f"| {n} | {_cell(name)} | {label(item['skill'], lang)} | {_clock(item['minutes'] * 60)} "
            f"| {used} | {score} |"
        )

    lines += ["", f"## {label('weakest', lang)}", ""]
    if report["weakest_topics"]:
        for topic in report["weakest_topics"]:
            value = report["by_topic"][topic]
            lines.append(f"- {_cell(_topic_title(report, topic, lang))}: {_pct(value['score'])}")
    else:
        lines.append(f"- {label('no_missed', lang)}")

    lines += ["", f"## {label('misconceptions', lang)}", ""]
    stated = report.get("misconceptions") or misconceptions_stated(report["items"])
    if not stated:
        lines.append(label("no_misconceptions", lang))
    for found in stated:
        where = f"{found['item']} · {label('point', lang, n=found['point'])}"
        claim = found["claim"].get(lang) or found["claim"].get("en", "")
        fix = found["correction"].get(lang) or found["correction"].get("en", "")
        lines.append(f"- {_cell(where)}: {escape_unsafe(claim)}  ")
        lines.append(f"  **{label('correction', lang)}:** {escape_unsafe(fix)}")

    lines += ["", f"## {label('missed', lang)}", ""]
    missed = [item for item in report["items"] if item["missed"]]
    if not missed:
        lines.append(label("no_missed", lang))
    for item in missed:
        status = label("skipped", lang) if item["status"] == "skipped" else _pct(item["score"])
        lines += [f"### {_cell(item['id'])} · {label(item['skill'], lang)} · {status}", ""]
        lines += [_quote(item["prompt"].get(lang) or item["prompt"].get("en", "")), ""]
        if item["response"].strip():
            if item["kind"] == "drill":
                lines += [f"**{label('your_answer', lang)}:** {_cell(item['response'])}", ""]
            else:
                lines += [f"**{label('your_answer', lang)}:**", "", _quote(item["response"]), ""]
        answer = item["answer"].get(lang) or item["answer"].get("en", "")
        if answer:
            if item["kind"] == "drill":
                lines += [
                    f"**{label('model_answer', lang)}:**",
                    "",
                    "```python",
                    escape_unsafe(answer).rstrip(),
                    "```",
                    "",
                ]
            else:
                lines += [f"**{label('model_answer', lang)}:** {escape_unsafe(answer)}", ""]
    return "\n".join(lines).rstrip() + "\n"
