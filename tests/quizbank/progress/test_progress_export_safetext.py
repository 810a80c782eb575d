"""Every export passes untrusted text through the one `quizbank.safetext` policy: Markdown, Anki, the progress
backup and the mock-interview report are walked with the hostile set (every C0 control but tab and newline, DEL,
each C1 code point U+0080..U+009F, the bidi controls) planted in every text field, and none of those characters
reaches the output, as text or as its UTF-8 bytes."""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support.export_bank import load_fixture_bankset

from quizbank.exports.anki import write_anki
from quizbank.exports.markdown import write_markdown
from quizbank.mock.planner import InterviewPlan, PlanItem
from quizbank.mock.report import ItemResult, build_report, render_markdown
from quizbank.progress.backup import backup_json, export_backup
from quizbank.progress.store import open_store
from quizbank.safetext import UNSAFE_RE

HOSTILE_CODES = [
    *range(0x00, 0x09),
    *range(0x0B, 0x20),
    0x7F,
    *range(0x80, 0xA0),  # C1: U+009B is a one-character CSI
    0x061C,
    0x200E,
    0x200F,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
]
HOSTILE = "".join(chr(code) for code in HOSTILE_CODES)
# Raw C0/DEL bytes, or the UTF-8 encoding of a C1 or bidi character.
UNSAFE_BYTES = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


def hostile(text: str) -> str:
    return f"{text} <{HOSTILE}> end"


def assert_clean(where: str, text: str) -> None:
    match = UNSAFE_RE.search(text)
    assert match is None, f"{where}: U+{ord(match.group()):04X} at {match.start()}: {text[max(0, match.start() - 40):match.start() + 10]!r}"  # fmt: skip
    raw = UNSAFE_BYTES.search(text.encode("utf-8", "surrogatepass"))
    assert raw is None, f"{where}: bytes {raw.group()!r}"


def _plant(model: Any, **values: Any) -> None:
    for name, value in values.items():
        object.__setattr__(model, name, value)


@pytest.fixture
def hostile_bank(tmp_path: Path) -> Any:
    """The fixture bank with the hostile set planted in every text field an export shows (bank files cannot
    hold them: the loader refuses them; a bank from an older posenc, or a bug, might)."""
    (tmp_path / "bank").mkdir()
    bankset = load_fixture_bankset(tmp_path / "bank")
    for topic in bankset.topics:
        _plant(topic, title=hostile("Topic"), description=hostile("About"))
    for question in bankset.questions.values():
        _plant(question, prompt=hostile("Prompt {{1}}") if question.type == "cloze" else hostile("Prompt"))
        _plant(question, explanation=hostile("Why"), sources=[hostile("https://x.test/a"), hostile("Book")])
        _plant(question, tags=[hostile("tag")])
        if question.answer is not None or question.type == "open":
            _plant(question, answer=hostile("Answer"))
        for choice in getattr(question, "choices", None) or ():
            _plant(choice, text=hostile("Choice"), why=hostile("Because"))
        for blank in getattr(question, "blanks", None) or ():
            _plant(blank, accept=[hostile("word"), hostile("other")])
        if question.type == "open":
            _plant(question, key_points=[hostile("Point")])
        if question.type == "numeric":
            _plant(question, unit=hostile("unit"))
    return bankset


@pytest.mark.parametrize("lang", ["en", "zh", "both"])
def test_markdown_export(hostile_bank: Any, tmp_path: Path, lang: str) -> None:
    result = write_markdown(hostile_bank, tmp_path / "md", lang=lang)
    assert len(result.files) == 3
    for path in result.files:
        text = path.read_text(encoding="utf-8")
        assert "\\x9b" in text and "\\u202e" in text  # shown as visible escapes, not dropped
        assert_clean(path.name, text)


@pytest.mark.parametrize("lang", ["en", "both"])
def test_anki_export(hostile_bank: Any, tmp_path: Path, lang: str) -> None:
    out = tmp_path / "deck.apkg"
    write_anki(hostile_bank, out, lang=lang)
    with zipfile.ZipFile(out) as archive:
        (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
    conn = sqlite3.connect(tmp_path / "c.anki2")
    try:
        notes = conn.execute("SELECT flds, tags FROM notes").fetchall()
        decks, models = conn.execute("SELECT decks, models FROM col").fetchone()
    finally:
        conn.close()
    assert len(notes) == len(hostile_bank.questions)
    shown = ""
    for fields, tags in notes:
        for field in fields.split("\x1f"):  # Anki's own field separator
            assert_clean("note field", field)
            shown += field
        assert_clean("tags", tags)
    assert "\\x9b" in shown and "\\u2067" in shown
    for deck in json.loads(decks).values():
        assert_clean("deck name", deck["name"])
    for model in json.loads(models).values():
        assert_clean("model", model["name"])


def test_progress_backup(tmp_path: Path) -> None:
    """Text a store may hold from an older posenc (free text, a mock report) is written as JSON escapes."""
    at = datetime(2025, 3, 1, tzinfo=UTC)
    with open_store(tmp_path / "data") as store:
        store.record_attempt("q.one", False, hostile("response"), 10, at)
        store.set_question_mark("q.one", flagged=True, note=hostile("note"))
        store.save_mock_session(
            "s1", at, 30, "standard", "en", False, 0.5, {"items": [{"response": hostile("r")}]}
        )
        data = export_backup(store)
    text = backup_json(data)
    assert_clean("backup", text)
    back = json.loads(text)
    assert back["attempts"][0]["response"] == hostile("response")  # the data is unchanged
    assert back["mock_sessions"][0]["report"]["items"][0]["response"] == hostile("r")


def _plant_strings(node: Any, keep: frozenset[str]) -> Any:
    if isinstance(node, dict):
        return {key: (value if key in keep else _plant_strings(value, keep)) for key, value in node.items()}
    if isinstance(node, list):
        return [_plant_strings(value, keep) for value in node]
    return hostile(node) if isinstance(node, str) else node


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mock_report_export(tmp_path: Path, lang: str) -> None:
    bankset = load_fixture_bankset(tmp_path)
    items = tuple(
        PlanItem("question", qid, bankset.topic_of[qid], "concept", 2.0, None, 2, question.type)
        for qid, question in bankset.questions.items()
    )
    plan = InterviewPlan(
        minutes=len(items) * 2, seed=1, level="standard", topics=("fx-rope", "fx-alibi"), items=items
    )
    results = {item.id: ItemResult(item.id, "answered", 0.0, 30.0, hostile("typed")) for item in items[:3]}
    report = build_report(
        plan,
        results,
        session_id=hostile("session"),
        started_at=datetime(2025, 3, 1, tzinfo=UTC),
        language=lang,
        ended_early=True,
        bankset=bankset,
    )
    # the report keeps the bank's text and the answers: plant the hostile set in every string but enums and keys
    enums = {"kind", "status", "skill", "qtype", "level", "language", "topic", "topics", "weakest_topics"}
    report = _plant_strings(report, frozenset(enums))
    text = render_markdown(report, lang)
    assert "\\x9b" in text
    assert_clean("mock report", text)
