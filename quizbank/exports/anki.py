"""`posenc export anki OUT.apkg`: the banks as an Anki deck, built with genanki (https://github.com/kerrickstaley/genanki).

- One note type per question type, with fixed model ids, so that re-importing a newer export updates the same
  note types. Cloze questions use Anki's own cloze note type (`{{c1::...}}`).
- One subdeck per topic (`posenc::<topic title>`), deck ids derived from the topic id.
- Note GUIDs are `genanki.guid_for(question_id)`: re-importing updates notes instead of duplicating them.
- Choices are shown in `render.choice_order` (a shuffle seeded by the question id, multi-answer too): the
  same in every export, and the right answer is not always `A` (the banks list it first).
- Math goes to MathJax `\\(..\\)` / `\\[..\\]`; bank text is HTML-escaped (Markdown rendered with raw HTML off),
  and control / bidi characters are shown as visible escapes (`quizbank.safetext`).
- The package is built in memory and written atomically (`quizbank.atomicio`): a full disk or a kill keeps the
  previous package; a symlink is written through, a FIFO or device is written straight into.
"""

from __future__ import annotations

import hashlib
import html
import io
import os
from dataclasses import dataclass
from typing import Any

from quizbank.atomicio import write_bytes_atomic
from quizbank.exports.render import choice_order, localized, markdown_to_html, right_answer_in
from quizbank.question_types import (
    DETAIL_CHOICE,
    DETAIL_ITEM,
    DETAIL_KEY_POINT,
    DETAIL_UNIT,
    QUESTION_TYPES,
    Detail,
    details,
    question_type,
    right_answer,
)
from quizbank.safetext import escape_unsafe
from quizbank.texts import label

__all__ = ["DECK_ROOT", "MODEL_IDS", "AnkiExport", "build_anki_package", "write_anki"]

DECK_ROOT = "posenc"
# Fixed forever (Anki matches note types by id): each type's `anki.id` in quizbank.question_types.
MODEL_IDS: dict[str, int] = {kind.name: kind.anki.id for kind in QUESTION_TYPES}

CSS = """
.card { font-family: -apple-system, "Segoe UI", "Noto Sans", "PingFang SC", "Microsoft YaHei", sans-serif;
        font-size: 18px; line-height: 1.5; text-align: left; color: #1d1d1f; background: #fff; max-width: 46em;
        margin: 0 auto; }
.nightMode .card, .night_mode .card { color: #e8e8e8; background: #1e1e1e; }
.meta { font-size: 12px; color: #888; margin-bottom: .6em; }
.lang + .lang { margin-top: .4em; padding-top: .4em; border-top: 1px dashed #bbb; }
ol.choices { list-style: upper-alpha; }
ol.choices li.correct { font-weight: bold; color: #1a7f37; }
.nightMode ol.choices li.correct { color: #56d364; }
.why { font-size: 15px; color: #666; }
.answer { font-weight: bold; }
.explanation { margin-top: .8em; }
.sources { margin-top: .8em; font-size: 13px; color: #777; }
.cloze { font-weight: bold; color: #0550ae; }
.hint { font-style: italic; color: #666; }
"""


def _models() -> dict[str, Any]:
    """One genanki model per question type, from its record's `anki` (quizbank.question_types)."""
    import genanki

    return {
        kind.name: genanki.Model(
            kind.anki.id,
            f"posenc {kind.name}",
            fields=[{"name": name} for name in kind.anki.fields],
            templates=[{"name": f"{kind.name} card", "qfmt": kind.anki.front, "afmt": kind.anki.back}],
            css=CSS,
            model_type=genanki.Model.CLOZE if kind.anki.cloze else genanki.Model.FRONT_BACK,
        )
        for kind in QUESTION_TYPES
    }


def _deck_id(topic_id: str) -> int:
    digest = hashlib.sha256(f"posenc-deck:{topic_id}".encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:4], "big") % (1 << 30)


def _block(value: Any, lang: str, inline: bool = False, keep: dict[str, str] | None = None) -> str:
    """A localized value as HTML: one `.lang` div per language shown."""
    parts = [markdown_to_html(text, inline=inline, keep=keep) for text in localized(value, lang)]
    if len(parts) <= 1:
        return parts[0] if parts else ""
    tag = "span" if inline else "div"
    return "".join(f'<{tag} class="lang">{part}</{tag}>' for part in parts)


def _letter(index: int) -> str:
    return chr(ord("A") + index)


def _sources_html(sources: list[str], lang: str) -> str:
    items = []
    for source in sources:
        escaped = html.escape(source)
        if source.startswith(("http://", "https://")):
            items.append(f'<a href="{escaped}">{escaped}</a>')
        else:
            items.append(escaped)
    return f"{label('sources', lang)}: " + "; ".join(items) if items else ""


def _choices_html(question: Any, choices: list[Detail], lang: str) -> tuple[str, str]:
    """(front list, answer) of a question's choices, in `choice_order` (lettered as shown)."""
    right = {part.choice for part in right_answer(question, "en")}
    front_items = []
    correct_items = []
    whys = []
    for shown, index in enumerate(choice_order(question.id, len(choices))):
        choice = choices[index]
        choice_html = _block(choice.text, lang, inline=True)
        front_items.append(f"<li>{choice_html}</li>")
        if index in right:
            correct_items.append(f"<b>{_letter(shown)}</b>. {choice_html}")
        if choice.why is not None:
            whys.append(
                f"<div class='why'><b>{_letter(shown)}</b>: {_block(choice.why, lang, inline=True)}</div>"
            )
    front = '<ol class="choices">' + "".join(front_items) + "</ol>"
    return front, "<br>".join(correct_items) + "".join(whys)


def _fields(question: Any, topic_title: str, lang: str) -> tuple[str, list[str]]:
    """(model key, field values) for one question: the right answer is `right_answer`'s (choices lettered
    as shown, blanks as cloze deletions); what its type shows besides the prompt (`details`: choices, items,
    the unit, key points) goes in Details."""
    prompt = _block(question.prompt, lang)
    explanation = _block(question.explanation, lang)
    sources = _sources_html(list(question.sources), lang)
    meta = [html.escape(question.id), html.escape(topic_title)]
    extra_answer = _block(question.answer, lang) if question.answer is not None else ""

    if question_type(question.type).anki.cloze:
        keep: dict[str, str] = {}
        for part in right_answer(question, "en"):  # a blank's answers are the same in every language
            keep["{{" + str(part.blank) + "}}"] = (
                "{{c" + str(part.blank) + "::" + html.escape(part.text) + "}}"
            )
        text = _block(question.prompt, lang, keep=keep)
        accepted = "<br>".join(
            f"{n}. " + " / ".join(html.escape(a) for a in blank.accept)
            for n, blank in enumerate(question.blanks, start=1)
        )
        answer = (
            f"{html.escape(label('accepted', lang))}:<br>"
            + accepted
            + (f"<br>{extra_answer}" if extra_answer else "")
        )
        return question.type, [text, answer, explanation, sources, *meta]

    shown = details(question)
    choices = [d for d in shown if d.role == DETAIL_CHOICE]
    points = [d.text for d in shown if d.role == DETAIL_KEY_POINT]
    extra = ""
    if choices:
        extra, answer = _choices_html(question, choices, lang)
    elif points:  # its model answer is the answer, its key points follow it
        answer, extra_answer = extra_answer, ""
    else:
        answer = markdown_to_html(right_answer_in(question, lang), inline=True)
    items = "".join(f"<li>{_block(d.text, lang, inline=True)}</li>" for d in shown if d.role == DETAIL_ITEM)
    if items:
        extra += f"<ol>{items}</ol>"
    if points:
        listed = "".join(f"<li>{_block(p, lang, inline=True)}</li>" for p in points)
        extra += f'<div class="keypoints">{html.escape(label("key_points", lang))}:<ul>{listed}</ul></div>'
    for unit in (d.text for d in shown if d.role == DETAIL_UNIT):
        extra += html.escape(label("answer_in", lang, unit=" / ".join(localized(unit, lang))))
    if extra_answer:
        answer += f"<div>{extra_answer}</div>"
    return question.type, [prompt, extra, answer, explanation, sources, *meta]


@dataclass(frozen=True)
class AnkiExport:
    path: str
    notes: int
    decks: int


def build_anki_package(bankset: Any, lang: str = "en") -> tuple[Any, int]:
    """A genanki.Package with one subdeck per topic and one note per question. Returns (package, note count)."""
    import genanki

    models = _models()
    decks = []
    count = 0
    for topic in bankset.topics:
        title = localized(topic.title, lang)
        title_text = " / ".join(title) if title else topic.id
        deck_name = escape_unsafe(f"{DECK_ROOT}::{title_text.replace('::', ':')}", one_line=True)
        deck = genanki.Deck(_deck_id(topic.id), deck_name)
        for qid in topic.question_ids:
            question = bankset.questions[qid]
            # a generated question becomes three notes, one per export seed (stable GUIDs and numbers)
            notes = [(question, genanki.guid_for(question.id))]
            if getattr(question, "vary", None):
                from quizbank.generated.instances import EXPORT_SEEDS, export_showings

                shown = export_showings(question)
                notes = [
                    (s, genanki.guid_for(question.id, "seed", seed)) for s, seed in zip(shown, EXPORT_SEEDS)
                ]
            for note_question, guid in notes:
                key, values = _fields(note_question, title_text, lang)
                tags = [topic.id, f"type::{question.type}", f"difficulty::{question.difficulty}"]
                tags += [tag.replace(" ", "_") for tag in question.tags]
                values = [escape_unsafe(value) for value in values]
                tags = [escape_unsafe(tag, one_line=True) for tag in tags]
                deck.add_note(genanki.Note(model=models[key], fields=values, tags=tags, guid=guid))
                count += 1
        decks.append(deck)
    return genanki.Package(decks), count


def write_anki(bankset: Any, out_path: str | os.PathLike[str], lang: str = "en") -> AnkiExport:
    package, count = build_anki_package(bankset, lang)
    buffer = io.BytesIO()
    package.write_to_file(buffer)
    write_bytes_atomic(out_path, buffer.getvalue())
    return AnkiExport(path=os.fspath(out_path), notes=count, decks=len(package.decks))
