"""A cache of the last clean bank load, so the app lists its topics without parsing YAML.

`load_banks(..., use_cache=True)` reads it back when it was written for the same bank files (the shipped
bank, `--bank` paths and the user's bank folder, each unchanged); otherwise the load parses the YAML and,
when nothing was skipped and nothing is an error, writes the result.

What is stored, and how it is trusted (the file sits in the user cache folder, which other
programs may write):

* plain JSON (never pickle, nothing that runs code when read), written atomically;
* a key: the cache format, a hash of the loader's own source files (a code change invalidates
  it) and the SHA-256 of every bank file in the load (an edited, added or removed file invalidates
  it), checked against the files on disk at every load;
* a digest (SHA-256) of the payload, so a truncated or altered file is refused;
* the questions, topics and texts are rebuilt with the schema's full validation (pydantic's
  `model_validate`, about 10 ms for the shipped bank), so a cache can never produce a question the
  schema would reject. Anything that does not check out means a normal load (and a fresh cache).

Locations (file, line, column) are kept, so messages and `origin` point into the YAML as before.

Beside it, under the same key: the preview (`preview_file()`), just the fields that `quizbank.bank_preview`
reads, in two sections with a digest each. The first holds the topics and each question's type (a few KB,
read at once: Home lists the topics from it); the second each question's type, difficulty, prompt, answer,
choices' texts, explanation and parameter names (read when a question is first needed: search, a question
shown). Every digest is checked when the file is read; a section's characters and JSON when it is loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from .bankfiles import MAX_FILE_BYTES
from .cachedir import CACHE_ENV, cache_dir
from .safetext import UNSAFE_UTF8_RE

__all__ = [
    "CACHE_ENV",
    "CachedSection",
    "cache_file",
    "fingerprint",
    "preview_file",
    "read_cache",
    "read_payload",
    "read_sections",
    "load_key",
    "write_cache",
]

FORMAT = 2  # 2: a header with one digest per section (the preview has two)
CACHE_NAME = "loaded-banks.json"
MAX_CACHE_BYTES = 64 * 1024 * 1024
# the code that decides what a loaded bank is: a change to any of these invalidates the cache
_CODE = (
    "bank_cache.py",
    "bank_preview.py",
    "bankfiles.py",
    "loader.py",
    "schema.py",
    "validate.py",
    "reference_findings.py",
    "generated/findings.py",
    "generated/draw.py",
    "yamlsafe.py",
    "problems.py",
    "safetext.py",
    "judge/patterns.py",  # the schema checks pattern syntax with it
)


def cache_file() -> Path:
    """$POSENC_CACHE_DIR/loaded-banks.json, else the user cache folder's."""
    return cache_dir() / CACHE_NAME


def preview_file(path: Path | None = None) -> Path:
    """The preview section of the cache at `path` (default `cache_file()`): loaded-banks.preview.json."""
    return (path or cache_file()).with_suffix(".preview.json")


def _sha256(path: Path) -> str:
    """The content hash of a regular bank file; OSError for anything the loader would refuse unread (a FIFO
    or device, a file over the loader's size limit), so keying a load never blocks or reads without end."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            raise OSError(f"{path}: not a regular bank file within the size limit")
        with os.fdopen(os.dup(fd), "rb") as fh:
            return hashlib.sha256(fh.read(MAX_FILE_BYTES + 1)).hexdigest()
    finally:
        os.close(fd)


def fingerprint(files: list[Path], languages: tuple[str, ...]) -> dict[str, Any]:
    """What a cache must match: the format, the loader's code, the languages required and each
    bank file (name and content hash), in load order."""
    here = Path(__file__).resolve().parent
    code = hashlib.sha256()
    for name in _CODE:
        source = here / name
        code.update(name.encode() + b"\0" + (source.read_bytes() if source.is_file() else b"") + b"\0")
    return {
        "format": FORMAT,
        "code": code.hexdigest(),
        "languages": list(languages),
        "files": [[str(f), _sha256(f)] for f in files],
    }


def load_key(
    sources: list[tuple[Path, str]], extra_paths: list[Any], languages: tuple[str, ...]
) -> dict[str, Any] | None:
    """The key of a load of these bank files (`quizbank.bankfiles.bank_sources`) as they are on disk now:
    their names, kinds and content hashes, the `--bank` paths as given, how each file is named in
    messages (relative to the current folder). None when a file cannot be keyed (the load then parses)."""
    from .bankfiles import display_path

    files = [f for f, _kind in sources]
    try:
        key = fingerprint(files, languages)
    except OSError:
        return None
    key["kinds"] = [kind for _f, kind in sources]
    key["paths"] = [str(p) for p in extra_paths]
    key["shown"] = [display_path(f) for f in files]
    return key


# ----------------------------------------------------------------------------- writing


def _location(loc: Any) -> list[Any]:
    return [loc.path, loc.line, loc.col]


def _dump_text(text: Any) -> dict[str, Any] | None:
    return None if text is None else text.model_dump(mode="json", exclude_none=True)


def _payload(bankset: Any) -> dict[str, Any]:
    return {
        "topics": [
            {
                "id": t.id,
                "title": _dump_text(t.title),
                "description": _dump_text(t.description),
                "order": t.order,
                "question_ids": list(t.question_ids),
                "sources": list(t.sources),
            }
            for t in bankset.topics
        ],
        "questions": [q.model_dump(mode="json", exclude_unset=True) for q in bankset.questions.values()],
        "topic_of": dict(bankset.topic_of),
        "origin": {qid: _location(loc) for qid, loc in bankset.origin.items()},
        "problems": [[p.path, p.line, p.col, p.message, p.severity] for p in bankset.problems],
        "files": list(bankset.files),
        "file_kind": dict(bankset.file_kind),
        "demo_origin": {qid: _location(loc) for qid, loc in bankset.demo_origin.items()},
        "check_origin": [[qid, i, *_location(loc)] for (qid, i), loc in bankset.check_origin.items()],
        "replaced_by": dict(bankset.replaced_by),
    }


# what the preview section keeps of each question (`quizbank.bank_preview` reads these, a choice's text only)
_PREVIEW_FIELDS = ("id", "type", "difficulty", "prompt", "explanation", "answer", "vary")


def _preview_sections(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The preview's two sections: the topics with each question's type, then the questions."""
    questions = []
    for raw in payload["questions"]:
        question = {name: raw[name] for name in _PREVIEW_FIELDS if name in raw}
        if raw.get("choices"):
            question["choices"] = [{"text": choice.get("text")} for choice in raw["choices"]]
        questions.append(question)
    topics = [
        {name: t[name] for name in ("id", "title", "description", "order", "question_ids")}
        for t in payload["topics"]
    ]
    types = {question["id"]: question["type"] for question in questions}
    return [{"topics": topics, "types": types}, {"questions": questions}]


def _write(target: Path, key: dict[str, Any], sections: list[dict[str, Any]]) -> None:
    """A header line (the key, a digest per section), then each section on a line of its own (JSON escapes
    every newline inside a string, so a section never spans lines)."""
    bodies = [json.dumps(section, ensure_ascii=False, separators=(",", ":")) for section in sections]
    digests = [hashlib.sha256(body.encode("utf-8")).hexdigest() for body in bodies]
    header = json.dumps({"key": key, "digests": digests})
    from .atomicio import write_text_atomic  # (here: reading the cache, at start-up, needs none of it)

    write_text_atomic(target, "\n".join([header, *bodies]))


def write_cache(bankset: Any, key: dict[str, Any], path: Path | None = None) -> Path | None:
    """Store `bankset` under `key` (atomically), and its preview section beside it. Returns the path, or None
    when it could not be written (a read-only folder is not an error: the next start loads normally)."""
    if bankset.skipped or any(p.severity == "error" for p in bankset.problems):
        return None  # only a clean load is worth keeping
    target = path or cache_file()
    payload = _payload(bankset)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(target, key, [payload])
        _write(preview_file(target), key, _preview_sections(payload))
    except OSError:
        return None
    return target


# ----------------------------------------------------------------------------- reading


def read_cache(key: dict[str, Any], path: Path | None = None) -> Any | None:
    """The BankSet stored under `key`, rebuilt and validated; None when there is no cache or it
    does not match, is damaged, or fails validation."""
    payload = read_payload(key, path)
    if payload is None:
        return None
    try:
        return _rebuild(payload)
    except Exception:  # noqa: BLE001 - any shape or validation problem: not a cache we can trust
        return None


def read_payload(key: dict[str, Any], path: Path | None = None) -> dict[str, Any] | None:
    """The cache's plain JSON payload when it is stored under `key`, whole (its digest matches) and free of
    unsafe characters; None otherwise. Its shape is not checked here: `read_cache` validates it with the
    schema."""
    sections = read_sections(key, path or cache_file())
    return sections[0].load() if sections is not None and len(sections) == 1 else None


class CachedSection:
    """One section of a cache file whose digest matched when the file was read; `load()` parses it."""

    __slots__ = ("_body",)

    def __init__(self, body: bytes) -> None:
        self._body = body

    def load(self) -> dict[str, Any] | None:
        """The section's JSON object, or None when it is not one or holds an unsafe character (the loader
        rejects control and bidi characters: so does the cache)."""
        try:
            payload = json.loads(self._body)
        except (ValueError, UnicodeDecodeError):
            return None
        return payload if isinstance(payload, dict) and _body_safe(self._body) else None


def read_sections(key: dict[str, Any], path: Path) -> list[CachedSection] | None:
    """The sections of the cache file at `path` when it is stored under `key` and whole (every section's
    digest matches: ~1.5 ms per MB); None otherwise. Nothing is parsed past the header: each section is
    parsed, and its characters checked, by its `load()`, when it is needed."""
    try:
        if path.stat().st_size > MAX_CACHE_BYTES:
            return None
        header_bytes, *bodies = path.read_bytes().split(b"\n")
        header = json.loads(header_bytes)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(header, dict) or header.get("key") != key:
        return None
    digests = header.get("digests")
    if not isinstance(digests, list) or len(digests) != len(bodies):
        return None
    if any(digest != hashlib.sha256(body).hexdigest() for digest, body in zip(digests, bodies, strict=True)):
        return None  # truncated or altered
    return [CachedSection(body) for body in bodies]


# An unsafe character written as a JSON escape (once escaped backslashes are gone): \b \f \r, or \uXXXX for
# a C0 control (not tab or newline), DEL, a C1 control, a bidi control, or a surrogate half.
_UNSAFE_ESCAPE_RE = re.compile(
    rb"\\(?:[bfr]|u(?:00(?:0[0-8bBcCdDeEfF]|1[0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])"
    rb"|061[cC]|200[eEfF]|202[a-eA-E]|206[6-9]|[dD][89a-fA-F][0-9a-fA-F]{2}))"
)


def _body_safe(body: bytes) -> bool:
    """No string in the JSON text `body` (UTF-8) holds a character `quizbank.safetext` calls unsafe, raw or
    escaped: two scans of the bytes (~8 ms for the shipped bank's 0.9 MB preview) instead of one regex per
    string (~30 ms)."""
    if UNSAFE_UTF8_RE.search(body) is not None:
        return False
    # drop escaped backslashes left to right, as JSON reads them: every backslash left starts an escape
    return _UNSAFE_ESCAPE_RE.search(body.replace(b"\\\\", b"")) is None


def _rebuild(payload: dict[str, Any]) -> Any:
    from pydantic import TypeAdapter

    from .bankset import BankSet, TopicEntry
    from .problems import Location, Problem
    from .schema import Question, Text

    adapter = TypeAdapter(Question)
    bankset = BankSet()
    for raw in payload["questions"]:
        question = adapter.validate_python(raw)
        bankset.questions[question.id] = question
    for raw in payload["topics"]:
        entry = TopicEntry(
            str(raw["id"]),
            Text.model_validate(raw["title"]),
            Text.model_validate(raw["description"]) if raw["description"] is not None else None,
            int(raw["order"]),
            [str(q) for q in raw["question_ids"]],
            [str(s) for s in raw["sources"]],
        )
        if any(q not in bankset.questions for q in entry.question_ids):
            raise ValueError(f"topic {entry.id!r} lists a question the cache does not hold")
        bankset.topics.append(entry)
    bankset.topic_of = {str(k): str(v) for k, v in payload["topic_of"].items()}
    bankset.origin = {
        str(k): Location(str(p), int(line), int(col)) for k, (p, line, col) in payload["origin"].items()
    }
    bankset.problems = [
        Problem(str(p), int(line), int(col), str(m), str(s)) for p, line, col, m, s in payload["problems"]
    ]
    bankset.files = [str(f) for f in payload["files"]]
    bankset.file_kind = {str(k): str(v) for k, v in payload["file_kind"].items()}
    bankset.demo_origin = {
        str(k): Location(str(p), int(line), int(col)) for k, (p, line, col) in payload["demo_origin"].items()
    }
    bankset.check_origin = {
        (str(qid), int(i)): Location(str(p), int(line), int(col))
        for qid, i, p, line, col in payload["check_origin"]
    }
    bankset.replaced_by = {str(k): str(v) for k, v in payload["replaced_by"].items()}
    bankset.skipped_bank = BankSet()
    bankset.from_cache = True
    if set(bankset.topic_of) != set(bankset.questions):
        raise ValueError("the cache's topics and questions disagree")
    return bankset
