"""The text policy (quizbank/safetext.py): control and bidi characters in bank text are rejected at load
time with path:line:col, and every output that prints text from a file, a backup or a path escapes them
(the CLIs, the Markdown and Anki exports, the app's problems pane)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from support.banks import ALL_TYPES
from support.pilot import settle

from quizbank.loader import load_bank_text
from quizbank.safetext import UNSAFE_RE, UNSAFE_UTF8_RE, escape_json_unsafe, escape_unsafe

# Every C0 control except tab and newline, DEL, C1 (all of it: it is small), the bidi controls, and
# the two terminal sequences the review used (OSC 52 writes the clipboard, OSC 0 sets the title).
C0 = [chr(c) for c in range(0x20) if chr(c) not in "\t\n"]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]
OSC = ["\x1b]52;c;cHduZWQ=\x07", "\x1b]0;pwned\x07", "\x9b31m"]
CORPUS = [*C0, "\x7f", *C1, *BIDI, *OSC]
# what YAML lets a file hold raw (the reader refuses other controls itself, also with line:col; a raw
# U+0085 is a YAML line break, folded away before it reaches any text)
RAW_OK = BIDI

Path_ = tuple[str | int, ...]


def _text_paths(data: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every string value in the bank data (the text-bearing fields, ids, tags, sources, names ...)."""
    if isinstance(data, dict):
        return [p for key, value in data.items() for p in _text_paths(value, (*prefix, key))]
    if isinstance(data, list):
        return [p for i, value in enumerate(data) for p in _text_paths(value, (*prefix, i))]
    return [prefix] if isinstance(data, str) else []


def _key_paths(data: Any, prefix: Path_ = ()) -> list[Path_]:
    if isinstance(data, dict):
        out = [(*prefix, key) for key in data]
        return out + [p for key, value in data.items() for p in _key_paths(value, (*prefix, key))]
    if isinstance(data, list):
        return [p for i, value in enumerate(data) for p in _key_paths(value, (*prefix, i))]
    return []


def _get(data: Any, path: Path_) -> Any:
    for part in path:
        data = data[part]
    return data


def _set(data: Any, path: Path_, value: Any) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _rename_key(data: Any, path: Path_, new: str) -> None:
    parent = _get(data, path[:-1])
    items = [(new if key == path[-1] else key, value) for key, value in parent.items()]
    parent.clear()
    parent.update(items)


def _node_mark(text: str, path: Path_, key: bool = False) -> tuple[int, int]:
    """1-based line and column of the scalar at `path` (or of its key), found by PyYAML's composer."""
    node = yaml.compose(text)
    for i, part in enumerate(path):
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == part:
                    if key and i == len(path) - 1:
                        node = k
                    else:
                        node = v
                    break
            else:
                raise KeyError(part)
        else:
            node = node.value[part]
    return node.start_mark.line + 1, node.start_mark.column + 1


BASE = yaml.safe_load(ALL_TYPES)
TEXT_PATHS = _text_paths(BASE)
KEY_PATHS = _key_paths(BASE)


def _dump(data: Any, raw: bool) -> str:
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(data, Dumper=dumper, allow_unicode=raw, sort_keys=False, width=10_000)


def _assert_rejected(
    text: str, path: Path_, bad: str, key: bool = False, mark: tuple[int, int] | None = None
) -> None:
    bank, problems = load_bank_text(text, "hostile.yaml")
    assert bank is None, f"{path} with {bad!r} was accepted"
    line, col = mark or _node_mark(text, path, key=key)
    first = UNSAFE_RE.search(bad).group()
    want = f"hostile.yaml:{line}:{col}: text contains U+{ord(first):04X}"
    shown = [str(p) for p in problems]
    assert any(s.startswith(want) for s in shown), (path, bad, shown)
    for line_text in shown:
        assert UNSAFE_RE.search(line_text) is None  # the problem itself prints safely


def test_the_walk_covers_every_text_bearing_field():
    fields = {p[-1] if isinstance(p[-1], str) else p[-2] for p in TEXT_PATHS}
    for name in (
        "id",
        "topic",
        "en",
        "zh",
        "tags",
        "sources",
        "accept",
        "follow_ups",
        "name",
        "unit",
        "path",
    ):
        assert name in fields, name
    # the localized texts: prompt, explanation, answer, key points, choices, why, titles, descriptions
    owners = {p[-2] for p in TEXT_PATHS if p[-1] in ("en", "zh")} | {
        p[-3] for p in TEXT_PATHS if p[-1] in ("en", "zh") and isinstance(p[-2], int)
    }
    for name in ("prompt", "explanation", "answer", "key_points", "text", "why", "title", "description"):
        assert name in owners, name
    assert len(TEXT_PATHS) > 60


def _rejects(path: Path_, corpus: list[str], raw_corpus: list[str]) -> None:
    for raw, chars in ((False, corpus), (True, raw_corpus)):  # as YAML escapes ("\e", "\x9b"), and raw
        mark = None  # where the scalar starts does not depend on what it holds: find it once
        for bad in chars:
            data = copy.deepcopy(BASE)
            _set(data, path, "a" + bad + "b")
            text = _dump(data, raw=raw)
            mark = mark or _node_mark(text, path)
            _assert_rejected(text, path, bad, mark=mark)


# one of each kind: C0 (ESC), DEL, C1 (CSI), bidi (RLO), and an OSC sequence
SAMPLE = ["\x1b", "\x7f", "\x9b", "\u202e", OSC[0]]


@pytest.mark.slow  # every field x every character: about 70 s of the fast loop's time; make test runs it
@pytest.mark.parametrize("path", TEXT_PATHS, ids=lambda p: ".".join(map(str, p)))
def test_every_text_field_rejects_every_control_character(path):
    _rejects(path, CORPUS, RAW_OK)


@pytest.mark.parametrize("path", TEXT_PATHS[::7], ids=lambda p: ".".join(map(str, p)))
def test_text_fields_reject_one_control_character_of_each_kind(path):
    """The fast loop's share of the matrix above: every seventh field, one character of each kind."""
    _rejects(path, SAMPLE, ["\u202e"])


def test_a_prompt_rejects_every_control_character():
    path = next(p for p in TEXT_PATHS if "prompt" in p and p[-1] == "en")
    _rejects(path, CORPUS, RAW_OK)


@pytest.mark.parametrize("path", KEY_PATHS[::3], ids=lambda p: ".".join(map(str, p)))
def test_mapping_keys_reject_control_characters(path):
    for bad in ("\x1b", "\u202e", "\x9b"):
        data = copy.deepcopy(BASE)
        new = f"{path[-1]}{bad}"
        _rename_key(data, path, new)
        _assert_rejected(_dump(data, raw=False), (*path[:-1], new), bad, key=True)


def test_rejected_text_never_stays_raw_in_the_data():
    """A shipped file keeps its valid questions when others fail; no raw control character survives."""
    from quizbank.yamlsafe import parse_yaml_text

    doc, problems = parse_yaml_text('a: "x\\e]0;t\\ay"\nb: ["\\u202e"]\n"k\\x9b": 1\n')
    assert len(problems) == 3
    assert doc.data == {"a": "x\\x1b]0;t\\x07y", "b": ["\\u202e"], "k\\x9b": 1}


def test_tab_newline_and_cjk_stay_allowed():
    data = yaml.safe_load(ALL_TYPES)
    data["questions"][0]["prompt"]["en"] = "line one\n\tline two — “quoted” 中文 ½ é"
    bank, problems = load_bank_text(_dump(data, raw=True), "fine.yaml")
    assert bank is not None and problems == []


# ---------------------------------------------------------------------------------------------------- outputs

HOSTILE = "\x1b]0;pwned\x07\x9b2J\u202e"


def _clean(text: str) -> None:
    assert UNSAFE_RE.search(text.replace("\n", " ").replace("\t", " ")) is None, repr(text)


def test_bank_validate_escapes_a_hostile_file_name(tmp_path, monkeypatch, capsys):
    from quizbank.cli import main

    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "none"))
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / f"evil{HOSTILE}.yaml"
    bad.write_text("topic: x\ntitle: X\nquestions: [1]\n", encoding="utf-8")
    assert main(["bank", "validate", str(bad), "--no-checks"]) == 1
    out = capsys.readouterr()
    _clean(out.out)
    _clean(out.err)
    assert "evil\\x1b]0;pwned\\x07\\x9b2J\\u202e.yaml:3:" in out.out


def test_bank_validate_escapes_text_problems(tmp_path, monkeypatch, capsys):
    from quizbank.cli import main

    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "none"))
    bad = tmp_path / "bad.yaml"
    bad.write_text('topic: x\ntitle: "T\\e]52;c;aGk=\\a"\nquestions: []\n', encoding="utf-8")
    assert main(["bank", "validate", str(bad), "--no-checks"]) == 1
    out = capsys.readouterr()
    _clean(out.out + out.err)
    assert ":2:8: text contains U+001B (control character) at character 2" in out.out


def test_bank_stats_escapes_titles_and_names(tmp_path, monkeypatch, capsys):
    from quizbank.cli import main
    from quizbank.stats import bank_stats, format_stats

    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "none"))
    bad = tmp_path / f"s{HOSTILE}.yaml"
    bad.write_text('topic: x\ntitle: "\\e]0;t\\a"\nquestions: []\n', encoding="utf-8")
    assert main(["--bank", str(bad), "bank", "stats"]) == 0
    assert main(["--bank", str(bad), "bank", "stats", "--json"]) == 0
    out = capsys.readouterr()
    _clean(out.out + out.err)
    # and the formatter itself, whatever a bank set holds
    fake = SimpleNamespace(
        topics=[
            SimpleNamespace(
                id="t" + HOSTILE, title=SimpleNamespace(get=lambda lang: HOSTILE), question_ids=[]
            )
        ],
        files=["f"],
        ordered_questions=lambda: [],
    )
    text = format_stats(bank_stats(fake), fake)
    _clean(text)
    assert "\\x1b]0;pwned\\x07" in text


def test_json_escaping_keeps_the_data():
    value = {"id": HOSTILE + "\ud800"}
    dumped = escape_json_unsafe(json.dumps(value, ensure_ascii=False))
    _clean(dumped)
    assert json.loads(dumped) == value


def _orphan_store(folder: Path, qid: str) -> None:
    import sqlite3

    from quizbank.progress.store import open_store

    with open_store(folder) as store:
        store.review("fine.id", 3, datetime(2025, 3, 1, tzinfo=UTC), duration_ms=1000)
    # an old store (or another tool) may hold any id: write one straight into the database
    conn = sqlite3.connect(folder / "progress.db")
    with conn:
        conn.execute("UPDATE reviews SET question_id = ?", (qid,))
        conn.execute("UPDATE cards SET question_id = ?", (qid,))
    conn.close()


def test_progress_orphans_escapes_question_ids(tmp_path, monkeypatch, capsys):
    from support.export_bank import main

    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "none"))
    _orphan_store(tmp_path / "data", "gone" + HOSTILE)
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "orphans"]) == 0
    text = capsys.readouterr().out
    _clean(text)
    assert "gone\\x1b]0;pwned" in text
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "orphans", "--json"]) == 0
    text = capsys.readouterr().out
    _clean(text)
    assert json.loads(text)[0]["question_id"] == "gone" + HOSTILE


def test_progress_import_errors_escape_and_name_the_record(tmp_path, monkeypatch, capsys):
    from support.export_bank import main

    backup = {
        "format": "posenc-progress",
        "version": 1,
        "cards": [],
        "reviews": [{"question_id": HOSTILE, "rating": 3, "reviewed_at": "2025-01-01T00:00:00+00:00"}],
    }
    path = tmp_path / f"b{HOSTILE}.json"
    path.write_text(json.dumps(backup), encoding="utf-8")
    assert main(["--data-dir", str(tmp_path / "d"), "progress", "import", str(path)]) == 2
    err = capsys.readouterr().err
    _clean(err)
    assert err.count("\n") == 1 and "reviews[0].question_id: contains U+001B" in err
    assert (
        main(["--data-dir", str(tmp_path / "d"), "progress", "import", str(tmp_path / f"no{HOSTILE}")]) == 2
    )
    err = capsys.readouterr().err
    _clean(err)
    assert "no\\x1b]0;pwned" in err


def _hostile_bankset():
    """A bank set as if loaded, with raw control characters everywhere (what the exports must survive)."""
    from pydantic import TypeAdapter

    from quizbank.schema import Question, Topic

    data = yaml.safe_load(ALL_TYPES)
    for path in TEXT_PATHS:
        value = _get(data, path)
        if path[-1] in ("en", "zh") or (len(path) > 1 and path[-2] in ("tags", "sources", "accept")):
            _set(data, path, value + HOSTILE)
    questions = [TypeAdapter(Question).validate_python(q) for q in data.pop("questions")]
    topic = Topic.model_validate({**data, "questions": []})
    entry = SimpleNamespace(
        id=topic.topic,
        title=topic.title,
        description=topic.description,
        question_ids=[q.id for q in questions],
    )
    return SimpleNamespace(topics=[entry], questions={q.id: q for q in questions})


def test_markdown_export_escapes_control_characters(tmp_path):
    from quizbank.exports.markdown import write_markdown

    result = write_markdown(_hostile_bankset(), tmp_path / "md")
    assert len(result.files) == 2
    for file in result.files:
        text = file.read_text(encoding="utf-8")
        _clean(text)
    assert "\\x1b]0;pwned\\x07" in result.files[0].read_text(encoding="utf-8")


def test_anki_export_escapes_control_characters(tmp_path):
    import sqlite3
    import zipfile

    from quizbank.exports.anki import write_anki

    out = tmp_path / "deck.apkg"
    write_anki(_hostile_bankset(), out)
    with zipfile.ZipFile(out) as package:
        (tmp_path / "c.db").write_bytes(package.read("collection.anki2"))
    conn = sqlite3.connect(tmp_path / "c.db")
    notes = conn.execute("SELECT flds, tags FROM notes").fetchall()
    decks = conn.execute("SELECT decks FROM col").fetchone()[0]
    conn.close()
    assert len(notes) == 6
    for fields, tags in notes:
        _clean(fields.replace("\x1f", " "))  # \x1f is Anki's own field separator
        _clean(tags)
    _clean(json.dumps(json.loads(decks), ensure_ascii=False))
    assert any("\\x1b]0;pwned" in fields for fields, _ in notes)


def test_problems_pane_escapes_file_names(tmp_path, monkeypatch):
    """The app's Home problems pane: a skipped file's name and its problems print escaped."""
    import asyncio

    from support.apps import make_app

    monkeypatch.setenv("POSENC_LANG", "en")
    monkeypatch.delenv("POSENC_BENCH_LOG", raising=False)
    user = tmp_path / "user-banks"
    user.mkdir()
    (user / f"pane{HOSTILE}.yaml").write_text(
        'topic: x\ntitle: "\\e]0;t\\a"\nquestions: []\n', encoding="utf-8"
    )
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(user))

    async def run() -> str:
        app = make_app(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)  # a superseded Home progress worker is no failure
            assert app.bankset.skipped
            return str(app.screen.query_one("#problems").render())

    text = asyncio.run(run())
    _clean(text)
    assert "pane\\x1b]0;pwned" in text
    assert "text contains U+001B" in text


def test_escape_unsafe_one_line():
    assert escape_unsafe("a\nb\tc\x1b", one_line=True) == "a\\x0ab\\x09c\\x1b"
    assert escape_unsafe("a\nb\tc\x1b") == "a\nb\tc\\x1b"


def test_the_utf8_pattern_finds_the_same_characters_in_utf8_bytes() -> None:
    """UNSAFE_UTF8_RE (the bank cache scans its bytes with it) matches a character's UTF-8 encoding exactly
    when UNSAFE_RE matches the character: every code point, alone and between safe text."""
    for code in range(0x110000):
        char = chr(code)
        encoded = char.encode("utf-8", "surrogatepass")
        unsafe = UNSAFE_RE.search(char) is not None
        assert (UNSAFE_UTF8_RE.search(encoded) is not None) == unsafe, hex(code)
        if unsafe:
            assert UNSAFE_UTF8_RE.search(f"é中{char}a".encode("utf-8", "surrogatepass")) is not None
    assert UNSAFE_UTF8_RE.search("é中文 \t\n ok".encode()) is None
