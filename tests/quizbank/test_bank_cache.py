"""quizbank.bank_cache: the shipped bank read back from JSON equals a fresh load, and a cache that
does not match the files, was altered, or holds what the schema or the text policy rejects is
never used."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from quizbank import bank_cache
from quizbank.loader import load_banks, shipped_bank_dir

LANGS = ("en", "zh")


@pytest.fixture(scope="module")
def fresh() -> object:
    return load_banks(include_user=False)


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(bank_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv("POSENC_BANK_CACHE", raising=False)
    return tmp_path / "cache"


def _shipped() -> list[Path]:
    return sorted(shipped_bank_dir().glob("*.yaml"))


def _same(a: object, b: object) -> None:
    assert [t.id for t in a.topics] == [t.id for t in b.topics]
    assert [(t.title, t.description, t.order, t.question_ids, t.sources) for t in a.topics] == [
        (t.title, t.description, t.order, t.question_ids, t.sources) for t in b.topics
    ]
    assert a.questions == b.questions  # pydantic models compare field by field
    assert [type(q) for q in a.questions.values()] == [type(q) for q in b.questions.values()]
    for attr in (
        "topic_of",
        "origin",
        "problems",
        "files",
        "file_kind",
        "demo_origin",
        "check_origin",
        "replaced_by",
    ):
        assert getattr(a, attr) == getattr(b, attr), attr


def test_round_trip_equals_a_fresh_load(fresh: object, tmp_path: Path) -> None:
    key = bank_cache.fingerprint(_shipped(), LANGS)
    path = bank_cache.write_cache(fresh, key, tmp_path / "c.json")
    assert path is not None and path.read_bytes()[:1] == b"{"
    _same(bank_cache.read_cache(key, path), fresh)


def test_load_banks_uses_and_refreshes_the_cache(fresh: object, cache_dir: Path, tmp_path: Path) -> None:
    user = tmp_path / "user-banks"
    user.mkdir()
    first = load_banks(user_dir=user, use_cache=True)
    assert (cache_dir / bank_cache.CACHE_NAME).is_file()
    _same(first, fresh)
    second = load_banks(user_dir=user, use_cache=True)
    _same(second, fresh)
    assert next(iter(second.questions.values())) is not next(iter(first.questions.values()))  # rebuilt
    # a user bank file means a full load (the cross-file rules need every file)
    (user / "mine.yaml").write_text(
        "topic: mine\ntitle: {en: Mine, zh: 我的}\nquestions:\n  - id: mine.tf\n    type: truefalse\n"
        "    prompt: {en: A?, zh: 甲？}\n    correct: true\n    explanation: {en: Yes., zh: 是。}\n",
        encoding="utf-8",
    )
    assert "mine.tf" in load_banks(user_dir=user, use_cache=True).questions


def test_a_changed_bank_file_or_code_invalidates_the_key(tmp_path: Path) -> None:
    copies = tmp_path / "banks"
    shutil.copytree(shipped_bank_dir(), copies)
    files = sorted(copies.glob("*.yaml"))
    key = bank_cache.fingerprint(files, LANGS)
    files[0].write_text(files[0].read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert bank_cache.fingerprint(files, LANGS) != key
    assert bank_cache.fingerprint(files[1:], LANGS) != bank_cache.fingerprint(files, LANGS)  # a removed file
    assert bank_cache.fingerprint(files, ("en",)) != bank_cache.fingerprint(files, LANGS)
    assert len(key["code"]) == 64  # the loader's own source is part of the key


def _rewrite(path: Path, edit) -> None:
    """Edit the payload and store it with a correct digest (what a careful tamperer would do)."""
    header_bytes, _, body = path.read_bytes().partition(b"\n")
    header = json.loads(header_bytes)
    payload = edit(json.loads(body))
    body = json.dumps(payload, ensure_ascii=False).encode()
    header["digests"] = [hashlib.sha256(body).hexdigest()]
    path.write_bytes(json.dumps(header).encode() + b"\n" + body)


def test_an_altered_or_invalid_cache_is_refused(fresh: object, tmp_path: Path) -> None:
    key = bank_cache.fingerprint(_shipped(), LANGS)
    path = tmp_path / "c.json"

    def fresh_cache() -> Path:
        bank_cache.write_cache(fresh, key, path)
        return path

    data = fresh_cache().read_bytes()
    path.write_bytes(data[:-100])  # truncated
    assert bank_cache.read_cache(key, path) is None
    path.write_bytes(data.replace(b'"en":"', b'"en":"X', 1))  # altered, digest not updated
    assert bank_cache.read_cache(key, path) is None
    assert bank_cache.read_cache({**key, "format": -1}, fresh_cache()) is None  # another key

    _rewrite(fresh_cache(), lambda payload: payload)
    assert bank_cache.read_cache(key, path) is not None  # a plain rewrite is read: the edits below fail

    def bad_type(payload: dict) -> dict:
        payload["questions"][0]["type"] = "essay"
        return payload

    _rewrite(fresh_cache(), bad_type)
    assert bank_cache.read_cache(key, path) is None  # the schema rejects it

    def escape_sequence(payload: dict) -> dict:
        payload["questions"][0]["prompt"]["en"] = "clear \x1b[2J the screen"
        return payload

    _rewrite(fresh_cache(), escape_sequence)
    assert bank_cache.read_cache(key, path) is None  # the text policy rejects it

    def orphan(payload: dict) -> dict:
        payload["topics"][0]["question_ids"].append("no.such.question")
        return payload

    _rewrite(fresh_cache(), orphan)
    assert bank_cache.read_cache(key, path) is None
    path.write_bytes(b"\x80\x81 not json")
    assert bank_cache.read_cache(key, path) is None
    assert bank_cache.read_cache(key, tmp_path / "missing.json") is None


def test_a_load_with_errors_is_not_cached(fresh: object, tmp_path: Path) -> None:
    from quizbank.problems import Problem

    broken = type(fresh)(problems=[Problem("x.yaml", 1, 1, "bad")])
    assert bank_cache.write_cache(broken, {"format": 1}, tmp_path / "c.json") is None
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("plain \n\t 维度对 $\\theta$", True),
        ("esc \x1b[31m", False),
        ("bidi \u202e", False),
        ("backspace \x08", False),
        ("carriage \r", False),
        ("csi \x9b", False),
        ("isolate \u2066", False),
        ("a lone surrogate \ud800", False),  # raw: as `surrogatepass` writes it
        ("a literal backslash then b: \\b", True),
        ("a literal backslash then u001b: \\u001b", True),
    ],
)
def test_cache_body_scan_finds_unsafe_characters_raw_or_escaped(text, safe):
    from quizbank.bank_cache import _body_safe

    for body in (
        json.dumps({"k": [text]}, ensure_ascii=False, separators=(",", ":")),
        json.dumps({"k": [text]}),  # every non-ASCII character escaped
    ):
        assert _body_safe(body.encode("utf-8", "surrogatepass")) is safe, body


MINE = (
    "topic: mine\ntitle: {en: Mine}\nquestions:\n  - id: mine.tf\n    type: truefalse\n"
    "    prompt: {en: Is RoPE relative?}\n    correct: true\n    explanation: {en: Yes.}\n"
)


def test_a_clean_load_with_user_banks_is_cached_and_follows_their_edits(
    cache_dir: Path, tmp_path: Path
) -> None:
    from quizbank.bank_preview import read_preview

    user = tmp_path / "user-banks"
    user.mkdir()
    (user / "mine.yaml").write_text(MINE, encoding="utf-8")
    first = load_banks(user_dir=user, use_cache=True)
    assert not first.from_cache and "mine.tf" in first.questions
    second = load_banks(user_dir=user, use_cache=True)
    assert second.from_cache
    _same(second, first)
    assert second.file_kind == first.file_kind and "user" in second.file_kind.values()
    # the app's preview reads the same entry (its user folder comes from POSENC_BANK_DIR)
    import os

    os.environ["POSENC_BANK_DIR"] = str(user)
    try:
        preview = read_preview()
    finally:
        del os.environ["POSENC_BANK_DIR"]
    assert preview is not None and preview.questions["mine.tf"].prompt.get("zh") == "Is RoPE relative?"

    (user / "mine.yaml").write_text(MINE.replace("Is RoPE relative?", "Is ALiBi relative?"), encoding="utf-8")
    edited = load_banks(user_dir=user, use_cache=True)
    assert not edited.from_cache
    assert edited.questions["mine.tf"].prompt.en == "Is ALiBi relative?"
    assert load_banks(user_dir=user, use_cache=True).from_cache

    (user / "broken.yaml").write_text("topic: broken\nquestions: [\n", encoding="utf-8")
    for _ in range(2):  # a load that skips a file is never cached: each start reports it again
        broken = load_banks(user_dir=user, use_cache=True)
        assert not broken.from_cache
        assert [Path(path).name for path, _ in broken.skipped] == ["broken.yaml"]
        assert "mine.tf" in broken.questions


def test_keying_a_load_never_reads_a_fifo(cache_dir: Path, tmp_path: Path) -> None:
    import os
    import threading

    fifo = tmp_path / "bank.yaml"
    os.mkfifo(fifo)
    done: list[object] = []
    worker = threading.Thread(
        target=lambda: done.append(load_banks([str(fifo)], use_cache=True)), daemon=True
    )
    worker.start()
    worker.join(10)
    assert done, "load_banks blocked on a FIFO"
    assert any("not a regular file" in p.message for _, ps in done[0].skipped for p in ps)
