"""Line breaking inside CJK text for Rich and Textual.

Rich breaks lines only at whitespace (`rich._wrap.divide_line`, which Textual's `Content` and so
every `Static`, `Label` and `Markdown` use too). A run of Chinese has no spaces, so a whole clause
that does not fit jumps to the next line and leaves ragged lines ("…演示在 40" / "个 token" /
"的输入上…"). In CJK typesetting a line may break between any two characters, with two rules
(kinsoku): closing punctuation (，。）」…) never starts a line and opening punctuation (（「…)
never ends one.

`install()` replaces Rich's "word" pattern with one where each CJK character (with the
punctuation glued to it) is a word of its own; Latin words, numbers and spaces split exactly as
before. Rich's `words()` reads the module-level `re_word` on every call, so the change applies
wherever Rich or Textual wrap text in this process. `PosencApp` calls `install()` when it is
created (importing `tui.app` changes nothing). Rich is pinned to one minor version in pyproject.toml,
and `tests/tui/test_library_hooks.py` checks the hook and the pin, so an upgrade that moves it is caught.

The hook is `WORDS`, which answers `match` as `CJK_WORD_RE` would. Compiling that pattern's character
classes takes 3-5 ms, before the app's first paint, and most text holds no CJK character: such text is
matched by the same pattern without its CJK branches (`LATIN_WORD_RE`, 0.3 ms to compile), which splits
it into the same words. `CJK_WORD_RE` compiles on the first text that has a CJK character.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

__all__ = ["BREAK", "LATIN_WORD_RE", "WORDS", "cjk_word_re", "install"]

# A zero-width space: a line may break after it (used after the separators of file paths).
BREAK = "\u200b"

# Ideographs, radicals, kana, bopomofo, hangul and compatibility ideographs.
_CJK = r"[\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
# Must not end a line (glued to the character after it).
_OPEN = r"[（［｛「『【《〈〔“‘(\[{]"
# Must not start a line (glued to the character before it).
_CLOSE = r"[，。、；：！？）］｝」』】》〉〕”’…—・％,.;:!?)\]}]"

# A path separator a line may break after: one followed by a name (a letter, `.`, `_`, `~`, `-`) that
# has another separator or a file extension after it, so a long path wraps between its folders rather
# than inside a name, with no character added (a zero-width space would be copied with the path and
# shows in some terminals); `1/256`, `2i/d` and `RoPE/ALiBi` stay whole.
_SEP = r"[/\\](?=[^\W\d]|[._~-])(?=[^\s/\\]*[/\\.]\S)"
# Rich's pattern is r"\s*\S+\s*"; here a CJK character (with its punctuation) is a word, and a
# run of other non-space characters stops where CJK text starts, after such a separator, or after a
# zero-width space.
_CJK_WORD = (
    rf"\s*(?:{_OPEN}*{_CJK}{_CLOSE}*"
    rf"|(?:(?!{_OPEN}*{_CJK})(?!{_SEP})[^\s{BREAK}])+(?:{_SEP}|{BREAK})?|{_SEP}|{BREAK})\s*"
)
# The same pattern for text without a CJK character: its first branch never matches such text and its
# look-ahead for CJK text never fails, so both split it into the same words.
LATIN_WORD_RE = re.compile(rf"\s*(?:(?:(?!{_SEP})[^\s{BREAK}])+(?:{_SEP}|{BREAK})?|{_SEP}|{BREAK})\s*")
_FIRST_CJK = "\u2e80"  # every character of _CJK is at or above it


@cache
def cjk_word_re() -> re.Pattern[str]:
    """The whole pattern, compiled on first use."""
    return re.compile(_CJK_WORD)


class _Words:
    """Rich's `re_word`: `match(text, pos)` as `cjk_word_re()` answers it (Rich's `words()` calls it at each
    word of one text, so the pattern for a text is chosen once and kept with it)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[str, re.Pattern[str]] = ("", LATIN_WORD_RE)

    def pattern_for(self, text: str) -> re.Pattern[str]:
        last = self._last  # one read: another thread may wrap other text meanwhile
        if last[0] is text:
            return last[1]
        pattern = LATIN_WORD_RE if not text or max(text) < _FIRST_CJK else cjk_word_re()
        self._last = (text, pattern)
        return pattern

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.pattern_for(text).match(text, pos)

    def __getattr__(self, name: str) -> Any:  # anything else Rich may read (`pattern`, `finditer`)
        return getattr(cjk_word_re(), name)


WORDS = _Words()


def install() -> bool:
    """Make Rich (and Textual) break lines inside CJK text. Returns False if Rich has no such
    hook (then wrapping stays as Rich does it)."""
    try:
        from rich import _wrap
    except ImportError:  # pragma: no cover - Rich always has it in the pinned version
        return False
    if not hasattr(_wrap, "re_word"):
        return False
    _wrap.re_word = WORDS  # type: ignore[assignment]  # answers `match` as a Pattern does
    return True
