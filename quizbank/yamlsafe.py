"""Safe, line-aware YAML reading for untrusted bank files.

The file is read with PyYAML's *safe* parser (the libyaml C one, ``CSafeLoader``, when it is
available), but only as a stream of parser events: this module builds the plain Python values
(dict, list, str, int, float, bool, None) itself, iteratively, and records where every value
and every mapping key starts. ``YamlDoc.mark(("questions", 3, "prompt", "en"))`` gives the
1-based (line, col) of the value at that path. Building from events rather than
``yaml.compose`` + construct keeps the marks, is several times faster (PyYAML's composer
resolves every scalar through regexes in Python), and never recurses, so deep nesting cannot
overflow the C stack (libyaml's composer, used by ``yaml.compose``, can crash on it).

Nothing is ever executed or imported. The rules, each reported as a problem (never a traceback):

- at most ``MAX_FILE_BYTES`` (5 MiB) per file, a regular file (a FIFO or device is refused, never read),
  UTF-8 only (a bad byte is reported with its line);
- no control characters (C0 except tab and newline, DEL, C1) and no bidirectional-formatting
  characters in any text or key, raw or written as an escape (``"\\e"``, ``"\\u202e"``): each is a
  problem at the scalar's line and column (`quizbank.safetext`);
- a plain or ``!!int`` / ``!!float`` number has at most ``MAX_NUMBER_CHARS`` characters (YAML 1.1
  sexagesimal ints like ``59:59:59`` convert in quadratic time, long ints overflow Python's
  4,300-digit limit);
- exactly one YAML document, not empty, nesting at most ``MAX_DEPTH`` levels deep;
- only the standard data tags (``!!str``, ``!!int``, ``!!float``, ``!!bool``, ``!!null``, ``!!map``,
  ``!!seq``); ``!!python/object:...`` and any other tag is refused;
- anchors and aliases (``&name`` / ``*name``) and merge keys (``<<: *name``) are allowed, but all
  alias uses together may stand for at most ``MAX_ALIAS_NODES`` (10,000) values, which stops
  "billion laughs" alias bombs, and add at most ``MAX_ALIAS_BYTES`` (5 MiB) of text, which bounds the
  expanded size of a file (one big anchored string aliased 100 times); a recursive alias is refused;
- a mapping key must be plain text and appear once per mapping (a duplicate is a problem;
  the first value is kept). Keys are read as text: ``1:`` is the key "1", ``yes:`` is "yes".
"""

from __future__ import annotations

import gc
import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from .bankfiles import MAX_FILE_BYTES  # one limit for the loader and the cache key
from .problems import Problem
from .safetext import UNSAFE_RE, describe_unsafe, escape_unsafe
from .yaml_indentation import indentation_error

try:  # the C parser (libyaml); fall back to the pure-Python one
    from yaml import CSafeLoader as _SafeLoader

    LIBYAML = True
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

    LIBYAML = False

MAX_ALIAS_NODES = 10_000
MAX_ALIAS_BYTES = 5 * 1024 * 1024
MAX_NUMBER_CHARS = 100
MAX_DEPTH = 64

Path_ = tuple[str | int, ...]
Mark = tuple[int, int]

_TAG = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_TAG + t for t in ("str", "int", "float", "bool", "null"))
_MERGE, _TIMESTAMP, _VALUE = _TAG + "merge", _TAG + "timestamp", _TAG + "value"
_SCALAR_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, "!"}
_COLLECTION_TAGS = {_TAG + "map", _TAG + "seq", "!"}
_IMPLICIT = yaml.resolver.Resolver.yaml_implicit_resolvers  # first char -> [(tag, regexp)]
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
# first characters of plain scalars that may resolve to something other than a string
_PLAIN_SPECIAL_FIRST = frozenset(k for k in _IMPLICIT if k)


class _Fatal(Exception):
    """Stop reading: the problem makes the rest of the file meaningless."""

    def __init__(self, mark: Mark, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message


class _Merge:
    """The `<<` merge key."""


class _Discard:
    """A key whose value is read but dropped (duplicate or non-text key)."""


_MERGE_KEY = _Merge()
_DISCARD = _Discard()
_NO_KEY = object()


class YamlDoc:
    """Plain data read from one YAML file, plus where each value and key starts.

    Marks are kept per container (keyed by the container's id) rather than per full path:
    recording costs one store per value, and `mark(path)` walks the data to find it.
    """

    __slots__ = ("data", "_root_mark", "_marks")

    def __init__(self, data: Any, root_mark: Any, marks: dict[int, tuple[Any, Any]]) -> None:
        self.data = data
        self._root_mark = root_mark
        self._marks = marks  # id(container) -> (value marks, key marks or None for lists)

    def _walk(self, path: Path_) -> tuple[Any, Any, bool]:
        """Follow `path` as far as it goes: (deepest mark, its key mark or None, reached the end)."""
        obj = self.data
        mark, key_mark = self._root_mark, None
        for element in path:
            entry = self._marks.get(id(obj))
            if entry is None:
                return mark, key_mark, False
            value_marks, key_marks = entry
            try:
                found = value_marks[element]
                obj = obj[element]
            except (KeyError, IndexError, TypeError):
                return mark, key_mark, False
            mark = found
            key_mark = key_marks.get(element) if key_marks is not None else None
        return mark, key_mark, True

    def mark(self, path: Path_ = ()) -> Mark:
        """1-based (line, col) of the value at `path`, or of the deepest ancestor that exists."""
        found = self._walk(path)[0]
        return (found.line + 1, found.column + 1) if found is not None else (1, 1)

    def key_mark(self, path: Path_) -> Mark:
        """(line, col) of the mapping key that ends `path`; falls back to the value's mark."""
        found, key_found, complete = self._walk(path)
        if complete and key_found is not None:
            return (key_found.line + 1, key_found.column + 1)
        return (found.line + 1, found.column + 1) if found is not None else (1, 1)

    def has(self, path: Path_) -> bool:
        return self._walk(path)[2]


class _Frame:
    __slots__ = ("container", "values", "keys", "is_map", "key", "merges", "anchor", "is_key")

    def __init__(self, container: Any, values: Any, keys: Any, is_map: bool, anchor: str | None) -> None:
        self.container = container
        self.values = values  # marks of the values: a dict (mapping) or a list (sequence)
        self.keys: dict[str, Any] | None = keys  # marks of the keys (mappings only)
        self.is_map = is_map
        self.key: Any = _NO_KEY  # the key waiting for its value
        self.merges: list[tuple[Any, Any]] | None = None  # `<<` values, merged at the end
        self.anchor = anchor
        self.is_key = False  # a list/mapping used as a mapping key: read, then dropped


def _line_col(mark: Any) -> Mark:
    return (mark.line + 1, mark.column + 1)


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def _tag_message(tag: str) -> str:
    short = _short_tag(tag)
    if "python" in tag:
        return f"tag {short!r} is not allowed: bank files hold data only, nothing is ever executed"
    return f"unsupported tag {short!r}: bank files may only use plain YAML data (no tags)"


def _count_values(value: Any, limit: int, byte_limit: int) -> tuple[int, int]:
    """(values, UTF-8 bytes of text) that `value` stands for with every alias written out; stops
    counting past either limit."""
    count = size = 0
    todo = [value]
    while todo and count <= limit and size <= byte_limit:
        item = todo.pop()
        count += 1
        if isinstance(item, str):
            size += len(item.encode("utf-8", "surrogatepass"))
        elif isinstance(item, dict):
            size += sum(len(k.encode("utf-8", "surrogatepass")) for k in item if isinstance(k, str))
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
        else:
            size += 8
    return count, size


def _long_number(value: str) -> str:
    return (
        f"a number written with {len(value):,} characters (over the {MAX_NUMBER_CHARS}-character limit "
        f"for numbers: {_shorten(value, 20)!r}); quote it if it is text"
    )


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return "a value"


_SIMPLE_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_BOOLS = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}


_NUMBER_CHARS = frozenset("0123456789_:+-.eExXoObBaAcCdDfF")


def _shorten(value: str, limit: int = 40) -> str:
    return value if len(value) <= limit else value[:limit] + "…"


def _typed(tag: str, value: str) -> Any:
    """Construct a resolved scalar like the safe loader (YAML 1.1: `yes` is true, `0x10` is 16)."""
    if tag == _INT:
        if _SIMPLE_INT.match(value):
            return int(value)
        return _CONSTRUCTOR.construct_yaml_int(yaml.ScalarNode(tag, value))
    if tag == _FLOAT:
        return _CONSTRUCTOR.construct_yaml_float(yaml.ScalarNode(tag, value))
    if tag == _BOOL:
        return _BOOLS[value.lower()]
    if tag == _NULL:
        return None
    return value  # str, and dates / `=` kept as the text written


class _Builder:
    """Turns parser events into plain values and per-container marks, without recursion."""

    def __init__(self) -> None:
        self.problems: list[tuple[Any, str]] = []
        self.stack: list[_Frame] = []
        self.marks: dict[int, tuple[Any, Any]] = {}
        self.anchors: dict[str, tuple[Any, bool]] = {}  # name -> (value, complete; False while open)
        self.alias_nodes = 0
        self.alias_bytes = 0
        self.check_text = True  # False when the file cannot hold an unsafe character (no escapes)
        self.check_all = True  # False when only double-quoted scalars can (no raw unsafe character)
        self.documents = 0
        self.root: Any = None
        self.root_mark: Any = None

    def run(self, get_event: Any) -> None:
        # The hot loop keeps the open container's state in locals; slow paths sync it back
        # into the frame (`top.key = pending`) before they run and reload it after.
        stack = self.stack
        marks = self.marks
        no_key = _NO_KEY
        plain_first = _PLAIN_SPECIAL_FIRST
        top: _Frame | None = None
        check = self.check_text
        check_all = self.check_all
        unsafe_search = UNSAFE_RE.search
        is_map = False
        container: Any = None
        values: Any = None
        keys: Any = None
        pending: Any = no_key
        while True:
            event = get_event()
            cls = event.__class__
            if cls is ScalarEvent:
                # without a raw unsafe character in the file only "double-quoted" escapes can make one
                if check and (check_all or event.style == '"') and unsafe_search(event.value) is not None:
                    self.unsafe(event)
                if top is None or event.tag is not None or event.anchor is not None:
                    if top is not None:
                        top.key = pending
                    self.scalar_slow(event)
                    if top is not None:
                        pending = top.key
                    continue
                if is_map and pending is no_key:
                    key = event.value
                    if key in container or key == "<<":
                        top.key = pending
                        self.take_key(key, event)
                        pending = top.key
                    else:
                        pending = key
                        keys[key] = event.start_mark
                    continue
                value: Any = event.value
                if (not value or value[0] in plain_first) and event.implicit[0]:
                    value = self.resolve(value, event)
                if not is_map:
                    container.append(value)
                    values.append(event.start_mark)
                elif pending.__class__ is str:
                    container[pending] = value
                    values[pending] = event.start_mark
                    pending = no_key
                else:
                    self.attach(value, event.start_mark, top, pending)
                    pending = no_key
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if (
                    top is None
                    or event.tag is not None
                    or event.anchor is not None
                    or (is_map and pending.__class__ is not str)
                    or len(stack) >= MAX_DEPTH
                ):
                    if top is not None:
                        top.key = pending
                    top = self.start(event, cls is MappingStartEvent)
                else:  # the common case, inlined: a plain list/mapping under a text key or in a list
                    mark = event.start_mark
                    if cls is MappingStartEvent:
                        new: Any = {}
                        frame = _Frame(new, {}, {}, True, None)
                    else:
                        new = []
                        frame = _Frame(new, [], None, False, None)
                    if is_map:
                        container[pending] = new
                        values[pending] = mark
                        top.key = no_key
                    else:
                        container.append(new)
                        values.append(mark)
                    marks[id(new)] = (frame.values, frame.keys)
                    stack.append(frame)
                    top = frame
                is_map, container, values, keys, pending = (
                    top.is_map,
                    top.container,
                    top.values,
                    top.keys,
                    no_key,
                )
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                frame = stack[-1]
                if frame.merges is not None or frame.anchor is not None or frame.is_key:
                    self.end()
                else:
                    stack.pop()
                if stack:
                    top = stack[-1]
                    is_map, container, values, keys, pending = (
                        top.is_map,
                        top.container,
                        top.values,
                        top.keys,
                        top.key,
                    )
                else:
                    top = None
            elif cls is AliasEvent:
                if top is not None:
                    top.key = pending
                self.alias(event)
                if top is not None:
                    pending = top.key
            elif cls is DocumentStartEvent:
                self.documents += 1
                if self.documents > 1:
                    raise _Fatal(
                        _line_col(event.start_mark),
                        "a second YAML document starts here ('---'); a bank file holds exactly one",
                    )
            elif cls is StreamEndEvent:
                return

    # -- scalars -----------------------------------------------------------------------------------
    def resolve(self, value: str, event: Any) -> Any:
        """Resolve a plain scalar's type like the safe loader does."""
        if not value:
            return None
        if len(value) > 5 and value[0].isalpha():
            return value  # words that mean true/false/null are at most 5 letters ("false")
        if len(value) > MAX_NUMBER_CHARS and _NUMBER_CHARS.issuperset(value):
            self.problems.append((event.start_mark, _long_number(value)))
            return value
        for tag, regexp in _IMPLICIT.get(value[0], ()):
            if regexp.match(value):
                if tag == _MERGE:
                    return value
                return self.typed(tag, value, event)
        return value

    def typed(self, tag: str, value: str, event: Any) -> Any:
        if tag in (_INT, _FLOAT) and len(value) > MAX_NUMBER_CHARS:
            self.problems.append((event.start_mark, _long_number(value)))
            return value
        try:
            return _typed(tag, value)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError):
            shown = _shorten(value)
            self.problems.append((event.start_mark, f"{shown!r} is not a valid {_short_tag(tag)} value"))
            return value

    def unsafe(self, event: Any) -> None:
        """Report the first control or bidi character of a scalar, and keep the text escaped."""
        text = event.value
        match = UNSAFE_RE.search(text)
        if match is None:
            return
        self.problems.append(
            (
                event.start_mark,
                f"text contains {describe_unsafe(match.group())} at character {match.start() + 1}; "
                "control and bidirectional-formatting characters are not allowed in bank text",
            )
        )
        event.value = escape_unsafe(text)

    def scalar_slow(self, event: Any) -> None:
        """A scalar with a tag or an anchor, or the whole document being one scalar."""
        tag = event.tag
        mark = event.start_mark
        if tag is not None and tag not in _SCALAR_TAGS:
            self.problems.append((mark, _tag_message(tag)))
            tag = None
        top = self.stack[-1] if self.stack else None
        if top is not None and top.is_map and top.key is _NO_KEY:
            key = event.value
            if event.anchor:
                self.anchors[event.anchor] = (key, True)
            self.take_key(key, event)
            return
        if tag is None or tag == "!":
            value = self.resolve(event.value, event) if tag is None and event.implicit[0] else event.value
        else:
            value = self.typed(tag, event.value, event)
        if event.anchor:
            self.anchors[event.anchor] = (value, True)
        self.attach(value, mark, top, top.key if top is not None and top.is_map else None)

    def take_key(self, key: Any, event: Any) -> None:
        top = self.stack[-1]
        mark = event.start_mark
        if isinstance(key, str) and key == "<<" and getattr(event, "implicit", (False,))[0] and not event.tag:
            top.key = _MERGE_KEY
            return
        if not isinstance(key, str):
            self.problems.append((mark, f"a mapping key must be plain text, not {_kind(key)}"))
            top.key = _DISCARD
            return
        if key in top.container:
            first = top.keys.get(key) if top.keys is not None else None
            where = (
                f" (first at line {first.line + 1}, column {first.column + 1})" if first is not None else ""
            )
            self.problems.append((mark, f"duplicate key {key!r}{where}; the first value is kept"))
            top.key = _DISCARD
            return
        top.key = key
        top.keys[key] = mark  # type: ignore[index]

    # -- placing values ------------------------------------------------------------------------------
    def attach(self, value: Any, mark: Any, top: _Frame | None, key: Any) -> None:
        """Put `value` into the open container `top` under `key` (mappings), or make it the root."""
        if top is None:
            self.root = value
            self.root_mark = mark
            return
        if not top.is_map:
            top.container.append(value)
            top.values.append(mark)
            return
        top.key = _NO_KEY
        if key is _MERGE_KEY:
            if top.merges is None:
                top.merges = []
            top.merges.append((value, mark))
        elif key is not _DISCARD:
            top.container[key] = value
            top.values[key] = mark

    def start(self, event: Any, is_map: bool) -> _Frame:
        mark = event.start_mark
        if len(self.stack) >= MAX_DEPTH:
            raise _Fatal(
                _line_col(mark), f"nesting is deeper than {MAX_DEPTH} levels; a bank file never needs that"
            )
        if event.tag is not None and event.tag not in _COLLECTION_TAGS:
            self.problems.append((mark, _tag_message(event.tag)))
        if is_map:
            frame = _Frame({}, {}, {}, True, event.anchor)
        else:
            frame = _Frame([], [], None, False, event.anchor)
        top = self.stack[-1] if self.stack else None
        if top is not None and top.is_map and top.key is _NO_KEY:
            self.problems.append((mark, f"a mapping key must be plain text, not {_kind(frame.container)}"))
            frame.is_key = True
        else:
            self.attach(frame.container, mark, top, top.key if top is not None and top.is_map else None)
        self.marks[id(frame.container)] = (frame.values, frame.keys)
        if event.anchor:
            self.anchors[event.anchor] = (frame.container, False)
        self.stack.append(frame)
        return frame

    def end(self) -> None:
        frame = self.stack.pop()
        if frame.merges is not None:
            self.apply_merges(frame)
        if frame.anchor:
            self.anchors[frame.anchor] = (frame.container, True)
        if frame.is_key:
            self.stack[-1].key = _DISCARD

    def apply_merges(self, frame: _Frame) -> None:
        target = frame.container
        for value, mark in frame.merges or ():
            sources = value if isinstance(value, list) else [value]
            for source in sources:
                if not isinstance(source, dict):
                    self.problems.append(
                        (
                            mark,
                            "a merge key '<<' needs a mapping or a list of mappings (e.g. '<<: *defaults')",
                        )
                    )
                    break
                for key, item in source.items():
                    if key not in target:
                        target[key] = item
                        frame.values[key] = mark
                        frame.keys[key] = mark  # type: ignore[index]

    def alias(self, event: Any) -> None:
        mark = event.start_mark
        entry = self.anchors.get(event.anchor)
        if entry is None:
            raise _Fatal(
                _line_col(mark),
                f"alias *{event.anchor} refers to no anchor &{event.anchor} defined before it",
            )
        value, complete = entry
        if not complete:
            raise _Fatal(
                _line_col(mark), f"alias *{event.anchor} is used inside its own anchor (a recursive alias)"
            )
        nodes, size = _count_values(
            value, MAX_ALIAS_NODES - self.alias_nodes + 1, MAX_ALIAS_BYTES - self.alias_bytes + 1
        )
        self.alias_nodes += nodes
        self.alias_bytes += size
        if self.alias_nodes > MAX_ALIAS_NODES:
            raise _Fatal(
                _line_col(mark),
                f"aliases expand to more than {MAX_ALIAS_NODES:,} values (an alias bomb?); "
                "write the data out instead of nesting anchors",
            )
        if self.alias_bytes > MAX_ALIAS_BYTES:
            raise _Fatal(
                _line_col(mark),
                f"aliases expand to more than {MAX_ALIAS_BYTES // 2**20} MiB of text (an alias bomb?); "
                "write the data out instead of repeating large anchors",
            )
        top = self.stack[-1] if self.stack else None
        if top is not None and top.is_map and top.key is _NO_KEY:
            self.take_key(value, event)
            return
        self.attach(value, mark, top, top.key if top is not None and top.is_map else None)


def _line_col_at(data: bytes, offset: int) -> Mark:
    """1-based line and column (in characters) of byte `offset`."""
    offset = max(0, min(offset, len(data)))
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    col = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, col


def _yaml_error(exc: yaml.YAMLError, data: bytes) -> tuple[Mark, str, str]:
    """(where, the message, an excerpt of the file to print under it or "")."""
    problem_mark = getattr(exc, "problem_mark", None)
    if isinstance(exc, yaml.reader.ReaderError):
        mark = _line_col_at(data, int(exc.position))
        char = exc.character
        shown = f"{char:#04x}" if isinstance(char, int) else repr(char)
        return mark, f"YAML cannot contain the character {shown} ({exc.reason})", ""
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    context_mark = getattr(exc, "context_mark", None)
    mark = (problem_mark.line + 1, problem_mark.column + 1) if problem_mark is not None else (1, 1)
    if "maximum nesting depth" in problem:  # PyYAML >= 6.0.3 stops deep flow nesting before the composer does
        return mark, f"nesting is deeper than {MAX_DEPTH} levels; a bank file never needs that", ""
    indentation = indentation_error(problem, data, mark)
    if indentation is not None:
        return (mark, *indentation)
    message = f"YAML syntax error: {problem}"
    if context:
        message += f" ({context}"
        if context_mark is not None and (context_mark.line + 1, context_mark.column + 1) != mark:
            message += f" started at line {context_mark.line + 1}, column {context_mark.column + 1}"
        message += ")"
    hint = _syntax_hint(problem, data, mark)
    return mark, message + hint, ""


def _syntax_hint(problem: str, data: bytes, mark: Mark) -> str:
    if "mapping values are not allowed" in problem:
        return "; text that contains ': ' must be quoted, e.g. prompt: \"Q: why?\""
    if "cannot start any token" in problem:
        lines = data.split(b"\n")
        if 0 < mark[0] <= len(lines) and b"\t" in lines[mark[0] - 1]:
            return "; indent with spaces, not tabs"
        return "; quote text that starts with '@', '`', '%' or similar"
    if "found undefined tag handle" in problem:
        return "; tags are not allowed in bank files"
    return ""


def parse_yaml_bytes(data: bytes, path: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Read one YAML document from UTF-8 bytes. Returns (doc or None, problems).

    The doc is None when the file cannot be read at all (syntax error, not UTF-8, empty,
    alias bomb, ...). Otherwise it is returned even when there are problems (duplicate keys,
    refused tags), so that later stages can report everything else too.
    """
    if len(data) > MAX_FILE_BYTES:
        return None, [
            Problem(
                path,
                0,
                0,
                f"file is {len(data) / 2**20:.1f} MiB, over the {MAX_FILE_BYTES // 2**20} MiB limit "
                "for a bank file; split it into several files",
            )
        ]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col_at(data, exc.start)
        bad = data[exc.start : exc.start + 1].hex()
        return None, [
            Problem(
                path,
                line,
                col,
                f"file is not UTF-8 text: byte 0x{bad} at offset {exc.start} cannot be decoded; "
                "save the file as UTF-8",
            )
        ]
    builder = _Builder()
    # Without a backslash (escapes) or a raw unsafe character no scalar can hold one: skip the check.
    builder.check_all = UNSAFE_RE.search(text) is not None
    builder.check_text = builder.check_all or "\\" in text
    loader = _SafeLoader(data)
    # Building creates many containers and no reference cycles; pausing the cyclic GC
    # meanwhile saves about a third of the time on large files.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        builder.run(loader.get_event)
    except _Fatal as fatal:
        return None, _problems(path, builder.problems) + [Problem(path, *fatal.mark, fatal.message)]
    except yaml.YAMLError as exc:
        mark, message, excerpt = _yaml_error(exc, data)
        return None, _problems(path, builder.problems) + [Problem(path, *mark, message, excerpt=excerpt)]
    finally:
        loader.dispose()
        if gc_was_enabled:
            gc.enable()
    if builder.documents == 0:
        return None, [Problem(path, 0, 0, "file is empty (no YAML content, only blanks or comments)")]
    return YamlDoc(builder.root, builder.root_mark, builder.marks), _problems(path, builder.problems)


def parse_yaml_text(text: str, path: str = "<text>") -> tuple[YamlDoc | None, list[Problem]]:
    """Like parse_yaml_bytes, for text already in memory (tests, the TUI's editor)."""
    return parse_yaml_bytes(text.encode("utf-8", errors="surrogatepass"), path)


def read_yaml_file(file: Path, path: str | None = None) -> tuple[YamlDoc | None, list[Problem]]:
    """Read a bank file from disk, refusing it before reading when it is over the size cap or is not a
    regular file (a FIFO would block forever, a device never ends)."""
    shown = path if path is not None else str(file)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then tells what was opened.
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return None, [Problem(shown, 0, 0, "no such file")]
    except IsADirectoryError:
        return None, [Problem(shown, 0, 0, "is a folder, not a file")]
    except OSError as exc:
        return None, [Problem(shown, 0, 0, f"cannot read the file: {exc.strerror or exc}")]
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return None, [Problem(shown, 0, 0, "is a folder, not a file")]
        if not stat.S_ISREG(info.st_mode):
            return None, [
                Problem(
                    shown, 0, 0, "is not a regular file (a FIFO, device or socket); bank files must be files"
                )
            ]
        if info.st_size > MAX_FILE_BYTES:
            return None, [
                Problem(
                    shown,
                    0,
                    0,
                    f"file is {info.st_size / 2**20:.1f} MiB, over the {MAX_FILE_BYTES // 2**20} MiB limit "
                    "for a bank file; split it into several files",
                )
            ]
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, [Problem(shown, 0, 0, f"cannot read the file: {exc.strerror or exc}")]
    finally:
        if fd >= 0:
            os.close(fd)
    return parse_yaml_bytes(data, shown)


def _problems(path: str, found: list[tuple[Any, str]]) -> list[Problem]:
    return [Problem(path, *_line_col(mark), message) for mark, message in found]
