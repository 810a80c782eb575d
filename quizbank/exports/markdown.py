"""`posenc export markdown OUT_DIR`: one readable Markdown file per topic, plus an index (README.md).

Each question shows its prompt, what its type shows besides it (`quizbank.question_types.details`: choices as
a checklist with the correct ones ticked, items numbered), its answer (the value and tolerance for numeric
ones, the filled-in blanks for cloze; an open one's model answer and key points), the explanation, sources,
the live demo it pairs with, and links to its follow-ups. Math stays as `$...$`, which GitHub, Obsidian and
most Markdown viewers render.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizbank.atomicio import write_text_atomic
from quizbank.exports.render import localized, right_answer_in
from quizbank.question_types import (
    DETAIL_CHOICE,
    DETAIL_ITEM,
    DETAIL_KEY_POINT,
    details,
    question_type,
    right_answer,
)
from quizbank.safetext import escape_unsafe
from quizbank.schema import BLANK_RE
from quizbank.texts import label

__all__ = ["MarkdownExport", "render_topic", "write_markdown"]


@dataclass(frozen=True)
class MarkdownExport:
    out_dir: Path
    files: list[Path]
    questions: int


def _join(value: Any, lang: str, sep: str = "\n\n") -> str:
    return sep.join(localized(value, lang))


def _inline(value: Any, lang: str) -> str:
    """A localized value on one line (choices, key points): newlines folded."""
    return " / ".join(" ".join(text.split()) for text in localized(value, lang))


def _title(value: Any, lang: str, fallback: str) -> str:
    parts = localized(value, lang)
    return " / ".join(parts) if parts else fallback


def _answer_lines(question: Any, lang: str) -> list[str]:
    """The answer section: the choices as a checklist and the items numbered (`details`), then the right
    answer (`right_answer_in`: a cloze prompt with its blanks filled in), then the model answer and key
    points, or the bank's `answer` text."""
    lines: list[str] = []
    parts = right_answer(question, "en")  # which choices and blank answers: the same in every language
    right = {p.choice for p in parts if p.choice is not None}
    shown = details(question)
    choices = [d for d in shown if d.role == DETAIL_CHOICE]
    for i, choice in enumerate(choices):
        mark = "x" if i in right else " "
        line = f"- [{mark}] **{chr(ord('A') + i)}.** {_inline(choice.text, lang)}"
        if choice.why is not None:
            line += f" — {_inline(choice.why, lang)}"
        lines.append(line)
    if choices:
        lines.append("")
    items = [d for d in shown if d.role == DETAIL_ITEM]
    lines += [f"{n}. {_inline(item.text, lang)}" for n, item in enumerate(items, start=1)]
    if items:
        lines.append("")
    blanks = {p.blank: p.text for p in parts if p.blank is not None}
    if blanks:  # the prompt with its blanks filled in, then what else each blank accepts
        for text in localized(question.prompt, lang):
            filled = BLANK_RE.sub(lambda m: f"**{blanks[int(m.group(1))]}**", text)
            lines += [f"**{label('answer', lang)}:** {filled}", ""]
        for n, blank in enumerate(question.blanks, start=1):
            others = [a for a in blank.accept if a != blanks[n]]
            if others:
                lines.append(f"- {label('also_accepts', lang, n=n)}: {', '.join(f'`{a}`' for a in others)}")
    elif choices:  # the right choices by their letters in the checklist above
        letters = ", ".join(chr(ord("A") + i) for i in sorted(right))
        lines.append(f"**{label('answer', lang)}:** {letters}")
    elif parts:
        lines.append(f"**{label('answer', lang)}:** {right_answer_in(question, lang)}")
    key_points = [d.text for d in shown if d.role == DETAIL_KEY_POINT]
    if key_points:
        lines += [f"**{label('model_answer', lang)}:**", "", _join(question.answer, lang), ""]
        lines += [f"**{label('key_points', lang)}:**", ""]
        lines += [f"- {_inline(point, lang)}" for point in key_points]
    elif question.answer is not None:
        lines += ["", _join(question.answer, lang)]
    return lines


def _general(question: Any, text: str) -> str:
    """A generated question's text for the general case: `{{name}}` literals unescaped, `{name}` kept."""
    if not getattr(question, "vary", None):
        return text
    from quizbank.generated.draw import fill

    return fill(text, {})


def _instance_lines(question: Any, lang: str) -> list[str]:
    """A generated question's three export instances: each prompt with its numbers and its answer."""
    from quizbank.generated.instances import EXPORT_SEEDS, export_showings

    lines = [f"*{label('instances', lang, seeds=', '.join(map(str, EXPORT_SEEDS)))}:*", ""]
    for n, shown in enumerate(export_showings(question), start=1):
        lines += [
            f"**{label('instance', lang, n=n)}.** {_prompt(shown, lang)}",
            "",
            *_answer_lines(shown, lang),
            "",
        ]
    return lines


def _prompt(question: Any, lang: str) -> str:
    text = _join(question.prompt, lang)
    if question_type(question.type).blanks:  # unanswered: each blank as `____ (n)`
        text = BLANK_RE.sub(lambda m: f"\\_\\_\\_\\_ ({m.group(1)})", text)
    return text


def render_topic(topic: Any, questions: dict[str, Any], topic_of: dict[str, str], lang: str = "en") -> str:
    """The Markdown text of one topic file."""
    title = _title(topic.title, lang, topic.id)
    out = [f"# {title}", ""]
    description = getattr(topic, "description", None)
    if description is not None:
        out += [_join(description, lang), ""]
    count = len(topic.question_ids)
    counted = label("one_question", lang) if count == 1 else label("questions", lang, n=count)
    out += [f"*{counted} · {label('exported', lang, id=topic.id)}*", ""]
    for number, qid in enumerate(topic.question_ids, start=1):
        question = questions[qid]
        stars = "★" * question.difficulty + "☆" * (3 - question.difficulty)
        out += [
            f'<a id="{qid}"></a>',
            "",
            f"## {number}. `{qid}` · {question.type} · {stars}",
            "",
            _prompt(question, lang),
            "",
            *(
                _instance_lines(question, lang)
                if getattr(question, "vary", None)
                else _answer_lines(question, lang)
            ),
            "",
            f"**{label('explanation', lang)}.**",
            "",
            _general(question, _join(question.explanation, lang)),
            "",
        ]
        if question.sources:
            out += [f"**{label('sources', lang)}:**", "", *[f"- {source}" for source in question.sources], ""]
        if question.demo is not None:
            params = ", ".join(f"{k}={v}" for k, v in question.demo.params.items())
            shown = f"`{question.demo.name}`" + (f" ({params})" if params else "")
            out += [f"**{label('live_demo', lang)}:** {shown}, {label('in_demo_lab', lang)}.", ""]
        if question.follow_ups:
            links = []
            for follow in question.follow_ups:
                target = topic_of.get(follow)
                if target is None:
                    links.append(f"`{follow}`")
                elif target == topic.id:
                    links.append(f"[{follow}](#{follow})")
                else:
                    links.append(f"[{follow}]({target}.md#{follow})")
            out += [f"**{label('follow_ups', lang)}:** " + ", ".join(links), ""]
        if question.tags:
            out += [f"{label('tags', lang)}: " + ", ".join(f"`{tag}`" for tag in question.tags), ""]
        out += ["---", ""]
    return escape_unsafe("\n".join(out).rstrip() + "\n")


def write_markdown(bankset: Any, out_dir: str | os.PathLike[str], lang: str = "en") -> MarkdownExport:
    """Write `<topic id>.md` for every topic and a README.md index into `out_dir` (created if missing)."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    topic_of = {qid: topic.id for topic in bankset.topics for qid in topic.question_ids}
    files = []
    index = [
        f"# {label('bank_title', lang)}",
        "",
        f"| {label('topic', lang)} | {label('question_count', lang)} |",
        "|---|---|",
    ]
    total = 0
    for topic in bankset.topics:
        path = folder / f"{topic.id}.md"
        write_text_atomic(path, render_topic(topic, bankset.questions, topic_of, lang))
        files.append(path)
        total += len(topic.question_ids)
        index.append(
            f"| [{_title(topic.title, lang, topic.id)}]({topic.id}.md) | {len(topic.question_ids)} |"
        )
    readme = folder / "README.md"
    write_text_atomic(readme, escape_unsafe("\n".join(index) + "\n"))
    return MarkdownExport(out_dir=folder, files=[*files, readme], questions=total)
