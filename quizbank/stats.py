"""Counts over a loaded bank: `posenc bank stats`.

A language counts a question when every localized text of that question (prompt, answer,
explanation, key points, choices and their `why`) has that language.
"""

from __future__ import annotations

from typing import Any

from .question_types import NAMES
from .safetext import escape_unsafe
from .schema import LANGS


def question_languages(question: Any) -> set[str]:
    """Languages present in every text field of `question`."""
    fields = question.text_fields()
    return {lang for lang in LANGS if all(f.has(lang) for f in fields)}


def bank_stats(bankset: Any) -> dict[str, Any]:
    """`{"questions", "by_topic", "by_type", "by_difficulty", "languages", "with_demo", "with_checks",
    "with_drill", "with_hints", "generated", "generated_by_topic"}`; `generated` counts the questions
    drawn fresh per showing (`vary`), `generated_by_topic` the same per topic (every topic, 0 included);
    `with_hints` counts the questions with at least one hint."""
    questions = bankset.ordered_questions()
    by_topic = {t.id: len(t.question_ids) for t in bankset.topics}
    by_type = dict.fromkeys(NAMES, 0)
    by_difficulty = {"1": 0, "2": 0, "3": 0}
    languages = dict.fromkeys(LANGS, 0)
    generated_by_topic = dict.fromkeys(by_topic, 0)
    topic_of = {qid: t.id for t in bankset.topics for qid in t.question_ids}
    with_demo = with_checks = with_drill = with_hints = generated = 0
    for question in questions:
        by_type[question.type] = by_type.get(question.type, 0) + 1
        key = str(question.difficulty)
        by_difficulty[key] = by_difficulty.get(key, 0) + 1
        for lang in question_languages(question):
            languages[lang] += 1
        with_demo += question.demo is not None
        with_checks += bool(question.checks)
        with_drill += question.drill is not None
        with_hints += bool(question.hints)
        if getattr(question, "vary", None):
            generated += 1
            topic = topic_of.get(question.id)
            if topic is not None:
                generated_by_topic[topic] += 1
    return {
        "questions": len(questions),
        "by_topic": by_topic,
        "by_type": by_type,
        "by_difficulty": by_difficulty,
        "languages": languages,
        "with_demo": with_demo,
        "with_checks": with_checks,
        "with_drill": with_drill,
        "with_hints": with_hints,
        "generated": generated,
        "generated_by_topic": generated_by_topic,
    }


def _share(n: int, total: int) -> str:
    return f"{100.0 * n / total:5.1f}%" if total else "    -"


def format_stats(stats: dict[str, Any], bankset: Any | None = None) -> str:
    """The human form: aligned counts and shares."""
    total = stats["questions"]
    titles = {t.id: t.title.get("en") for t in bankset.topics} if bankset is not None else {}
    lines = [f"{total} questions" + (f" in {len(bankset.files)} files" if bankset is not None else "")]

    def block(title: str, counts: dict[str, int], label: Any = None) -> None:
        lines.append("")
        lines.append(title)
        if not counts:
            lines.append("  (none)")
            return
        names = {k: (label(k) if label else k) for k in counts}
        width = max(len(n) for n in names.values())
        digits = max(len(str(v)) for v in counts.values())
        for key, count in counts.items():
            lines.append(f"  {names[key]:<{width}}  {count:>{digits}}  {_share(count, total)}")

    def topic_label(key: str) -> str:
        title = titles.get(key)
        return escape_unsafe(f"{key} ({title})" if title and title != key else key, one_line=True)

    block("By topic", stats["by_topic"], topic_label)
    block("By type", stats["by_type"])
    block(
        "By difficulty",
        stats["by_difficulty"],
        lambda k: {"1": "1 easy", "2": "2 medium", "3": "3 hard"}.get(k, k),
    )
    block("Languages (every text field)", stats["languages"])
    block(
        "Linked",
        {
            "with a demo": stats["with_demo"],
            "with checks": stats["with_checks"],
            "with a drill": stats.get("with_drill", 0),
            "with hints": stats.get("with_hints", 0),
            "generated (vary)": stats.get("generated", 0),
        },
    )
    generated_by_topic = {k: v for k, v in stats.get("generated_by_topic", {}).items() if v}
    if generated_by_topic:
        block("Generated (vary) by topic", generated_by_topic, topic_label)
    return "\n".join(lines)
