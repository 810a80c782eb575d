"""quizbank.bank_preview: the plain, pydantic-free view of the cached shipped bank that Home and Search
show during the app's first second. It must say exactly what the full bank says, and never come from a
cache the full load would not trust."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from quizbank import bank_cache
from quizbank.bank_preview import BankPreview, read_preview
from quizbank.loader import load_banks


@pytest.fixture
def cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, Path]:
    """The shipped bank loaded through the cache (which writes it), with no user banks; the path of the
    cache's preview section."""
    monkeypatch.setenv(bank_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BANK_CACHE", raising=False)
    bankset = load_banks(use_cache=True)
    path = bank_cache.preview_file()
    assert path.is_file() and path.parent == tmp_path / "cache"
    return bankset, path


def test_the_preview_says_what_the_full_bank_says(cached: tuple[object, Path]) -> None:
    bankset, _ = cached
    preview = read_preview()
    assert isinstance(preview, BankPreview)
    assert [t.id for t in preview.topics] == [t.id for t in bankset.topics]
    for mine, full in zip(preview.topics, bankset.topics, strict=True):
        assert (mine.title.en, mine.title.zh, mine.order) == (full.title.en, full.title.zh, full.order)
        assert list(mine.question_ids) == full.question_ids
        if full.description is None:
            assert mine.description is None
        else:
            assert mine.description.get("zh") == full.description.get("zh")
    assert preview.topic_of == bankset.topic_of
    assert [q.id for q in preview.ordered_questions()] == [q.id for q in bankset.ordered_questions()]
    assert len(preview.questions) == len(bankset.questions) > 300
    for qid, full in bankset.questions.items():
        mine = preview.questions[qid]
        assert (mine.type, mine.difficulty) == (full.type, full.difficulty)
        for lang in ("en", "zh"):
            assert mine.prompt.get(lang) == full.prompt.get(lang)
            assert mine.explanation.get(lang) == full.explanation.get(lang)
            assert (mine.answer.get(lang) if mine.answer else None) == (
                full.answer.get(lang) if full.answer else None
            )
            assert [c.text.get(lang) for c in mine.choices] == [
                c.text.get(lang) for c in getattr(full, "choices", None) or []
            ]


def test_the_preview_holds_only_what_the_preview_reads_topics_first(cached: tuple[object, Path]) -> None:
    """The preview file, under the cache's key: a small topics section (with each question's type), parsed
    at once, then the questions' fields the preview reads, parsed when a question is first needed."""
    bankset, path = cached
    whole = bank_cache.cache_file()
    header, head, questions = path.read_bytes().split(b"\n")
    assert json.loads(header)["key"] == json.loads(whole.read_bytes().partition(b"\n")[0])["key"]
    assert json.loads(header)["digests"] == [
        hashlib.sha256(head).hexdigest(),
        hashlib.sha256(questions).hexdigest(),
    ]
    head_payload, payload = json.loads(head), json.loads(questions)
    assert set(head_payload) == {"topics", "types"} and set(payload) == {"questions"}
    assert list(head_payload["types"].items()) == [(q["id"], q["type"]) for q in payload["questions"]]
    assert head_payload["types"] == {qid: q.type for qid, q in bankset.questions.items()}
    assert {name for q in payload["questions"] for name in q} <= {
        "id", "type", "difficulty", "prompt", "explanation", "answer", "choices", "vary"
    }  # fmt: skip
    assert {name for q in payload["questions"] for c in q.get("choices", []) for name in c} == {"text"}
    assert len(head) + len(questions) < 0.6 * whole.stat().st_size
    assert len(head) < 0.05 * len(questions)  # what Home needs first is a few KB
    whole.unlink()  # the preview needs only its own file (the full load then parses the files)
    assert read_preview() is not None


def test_no_preview_where_the_cache_does_not_answer(
    cached: tuple[object, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, path = cached
    assert read_preview() is not None
    assert read_preview(["extra/"]) is None  # a --bank path: the full load parses files
    monkeypatch.setenv("POSENC_BANK_CACHE", "0")
    assert read_preview() is None
    monkeypatch.delenv("POSENC_BANK_CACHE")
    user = tmp_path / "user-banks"
    user.mkdir()
    (user / "mine.yaml").write_text("topic: mine\n", encoding="utf-8")
    assert read_preview() is None  # a user bank file joins the load
    assert read_preview(include_user=False) is not None
    (user / "mine.yaml").unlink()
    path.write_bytes(path.read_bytes()[:-10])  # truncated: the digest no longer matches
    assert read_preview() is None
    path.unlink()
    assert read_preview() is None


def _tamper(path: Path, edit) -> None:
    """Rewrite the preview with correct digests: only the shape checks can refuse it. `edit` sees both sections
    as one payload (topics, types, questions)."""
    header_bytes, *sections = path.read_bytes().split(b"\n")
    header = json.loads(header_bytes)
    payload = edit({name: value for section in sections for name, value in json.loads(section).items()})
    sections = [
        json.dumps({name: payload[name] for name in names if name in payload}, ensure_ascii=False).encode()
        for names in (("topics", "types"), ("questions",))
    ]
    header["digests"] = [hashlib.sha256(section).hexdigest() for section in sections]
    path.write_bytes(b"\n".join([json.dumps(header).encode(), *sections]))


def _set(where: str, value: object):
    def edit(payload: dict) -> dict:
        target = payload
        *parents, last = where.split(".")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
        return payload

    return edit


@pytest.mark.parametrize(
    "edit",
    [
        _set("questions.0.type", "essay"),
        _set("questions.0.prompt", 42),
        _set("questions.0.prompt", {"en": "", "zh": ""}),  # a text in no language
        _set("questions.0.prompt", {"en": "x", "zh": "y", "fr": "z"}),
        _set("questions.0.difficulty", 7),
        _set("questions.0.difficulty", True),
        _set("questions.0.choices", "not a list"),
        _set("questions.0.vary", ["not", "a", "mapping"]),
        _set("questions.1.id", None),
        _set("questions.1", "not a question"),
        lambda p: _set("questions.1.id", p["questions"][0]["id"])(p),  # the first question's id twice
        _set("questions.0.type", "numeric"),  # a known type, not the one the topics section says
        lambda p: {**p, "questions": p["questions"] + p["questions"][:1]},  # one more than the topics list
        lambda p: {**p, "questions": p["questions"][::-1]},  # not in the topics section's order
        _set("questions", {}),
        _set("questions.0.prompt", {"en": "bell \u0007", "zh": "铃"}),  # unsafe text
        _set("questions.0.prompt", {"en": "flip \u202e", "zh": "翻"}),
    ],
)
def test_a_question_shaped_wrong_leaves_the_preview_with_its_topics_and_no_questions(
    cached: tuple[object, Path], edit
) -> None:
    """Questions are read and checked when first needed (`BankPreview.questions`): a section that does not
    match the topics, or one question shaped wrong, means none at all; the topics (checked at once) stay
    listed until the full load."""
    _, path = cached
    _tamper(path, edit)
    preview = read_preview()
    assert preview is not None and preview.topics and not preview.questions_built
    assert preview.questions == {} and preview.ordered_questions() == []


@pytest.mark.parametrize(
    "edit",
    [
        _set("topics.0.question_ids", ["no.such.question"]),
        _set("topics.0.order", "1"),
        _set("topics", {}),
        _set("types", ["not", "a", "mapping"]),
        lambda p: {**p, "types": {**p["types"], next(iter(p["types"])): 3}},  # a type that is no text
        lambda p: {**p, "types": {**p["types"], "no.topic": "mcq"}},  # a question without a topic
        lambda p: {**p, "topics": p["topics"][1:]},  # questions without a topic
        lambda p: {**p, "topics": p["topics"] + p["topics"][:1]},  # a question in two topics
        _set("topics.0.title", {"en": "bell \u0007", "zh": "铃"}),  # unsafe text
        _set("topics.0.title", {"en": "flip \u202e", "zh": "翻"}),
    ],
)
def test_a_cache_shaped_wrong_gives_no_preview(cached: tuple[object, Path], edit) -> None:
    _, path = cached
    _tamper(path, edit)
    assert read_preview() is None


def test_reading_the_preview_imports_neither_pydantic_nor_yaml(cached: tuple[object, Path]) -> None:
    """Nor does it build a question object (or import `quizbank.question_types`) before `questions` is read:
    Home lists the topics first."""
    code = (
        "import json, sys\n"
        "from quizbank.bank_preview import read_preview\n"
        "preview = read_preview()\n"
        "lazy = [preview.questions_built, 'quizbank.question_types' in sys.modules, len(preview.topic_of)]\n"
        "print(json.dumps([lazy, len(preview.questions), [m for m in ('pydantic', 'yaml', 'textual', 'torch')"
        " if m in sys.modules]]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ),
        timeout=60,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lazy, count, heavy = json.loads(out.stdout.strip().splitlines()[-1])
    assert lazy == [False, False, len(cached[0].questions)]
    assert count == len(cached[0].questions)
    assert heavy == []
