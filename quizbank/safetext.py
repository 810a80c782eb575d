"""One policy for text that came from a file, a backup, a path or a candidate's program.

Control characters (C0 except tab and newline, DEL, C1) and bidirectional-formatting characters
(U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069) never reach a terminal or an export:

* bank text containing them is rejected at load time (`find_unsafe` gives the offset);
* every output that prints text it did not write itself passes it through `escape_unsafe`,
  which shows each such character as a visible escape (`\\x1b`, `\\u202e`).
"""

from __future__ import annotations

import re

__all__ = [
    "UNSAFE_RE",
    "UNSAFE_UTF8_RE",
    "clip_long_runs",
    "describe_unsafe",
    "escape_json_unsafe",
    "escape_unsafe",
    "find_unsafe",
    "is_safe",
    "shorten",
]

SHORT_LIMIT = 60  # an echoed value in an error message: its repr, cut to this many characters
LONG_RUN = 200  # a run of non-space characters longer than this in a message is an echoed input: cut it

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Lone surrogates cannot be encoded and crash writers: treat them as unsafe too.
UNSAFE_RE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")
_UNSAFE_KEEP_NEWLINES_RE = UNSAFE_RE
# The same characters in UTF-8 text, as bytes (a lead byte never occurs inside another character's encoding),
# for the bank cache. The pattern starts with one set of the bytes that can begin a match, and each lead byte's
# continuation is tested behind it: `re` then skips every other byte at C speed, where an alternation of
# sequences is tried at every byte (4x slower on the shipped bank's cache: 20 ms against 5 ms).
UNSAFE_UTF8_RE = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f\xc2\xd8\xe2\xed]"
    rb"(?:(?<=[\x00-\x7f])"  # a C0 control or DEL
    rb"|(?<=\xc2)[\x80-\x9f]"  # a C1 control
    rb"|(?<=\xd8)\x9c|(?<=\xe2)(?:\x80[\x8e\x8f\xaa-\xae]|\x81[\xa6-\xa9])"  # a bidi control
    rb"|(?<=\xed)[\xa0-\xbf])"  # a surrogate half, as `surrogatepass` writes it
)
_UNSAFE_ONE_LINE_RE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}\ud800-\udfff]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_unsafe(text: str, *, one_line: bool = False) -> str:
    """`text` with every unsafe character shown as a visible escape. `one_line` also escapes
    newlines and tabs (for paths, ids and single-line messages)."""
    pattern = _UNSAFE_ONE_LINE_RE if one_line else _UNSAFE_KEEP_NEWLINES_RE
    return pattern.sub(_escape_char, text)


def find_unsafe(text: str) -> int | None:
    """The offset of the first unsafe character in `text`, or None."""
    match = UNSAFE_RE.search(text)
    return None if match is None else match.start()


def is_safe(text: str) -> bool:
    return UNSAFE_RE.search(text) is None


def describe_unsafe(char: str) -> str:
    """A short name for an unsafe character, for error messages: `U+001B (control character)`."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        kind = "lone surrogate"
    elif code <= 0x9F:
        kind = "control character"
    else:
        kind = "bidirectional-formatting character"
    return f"U+{code:04X} ({kind})"


def escape_json_unsafe(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with every unsafe character written as a
    JSON `\\uXXXX` escape: the data read back is unchanged, the terminal never sees the character."""
    return UNSAFE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def shorten(value: object, limit: int = SHORT_LIMIT) -> str:
    """`value` as an error message shows it: its repr, cut to `limit` characters (a 5,000-digit input is
    not echoed whole). Escape the message as usual (`escape_unsafe`) before printing it."""
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


_LONG_RUN_RE = re.compile(r"\S{" + str(LONG_RUN + 1) + ",}")


def clip_long_runs(message: str) -> str:
    """`message` with every run of more than LONG_RUN non-space characters (an echoed input, never a word
    or a path) cut to SHORT_LIMIT characters and its length: for one-line CLI errors."""

    def cut(match: re.Match[str]) -> str:
        run = match.group()
        return f"{run[: SHORT_LIMIT - 3]}... ({len(run):,} characters)"

    return _LONG_RUN_RE.sub(cut, message)
