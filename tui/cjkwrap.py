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
"""

from __future__ import annotations

import re

__all__ = ["BREAK", "CJK_WORD_RE", "install"]

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
CJK_WORD_RE = re.compile(
    rf"\s*(?:{_OPEN}*{_CJK}{_CLOSE}*"
    rf"|(?:(?!{_OPEN}*{_CJK})(?!{_SEP})[^\s{BREAK}])+(?:{_SEP}|{BREAK})?|{_SEP}|{BREAK})\s*"
)


def install() -> bool:
    """Make Rich (and Textual) break lines inside CJK text. Returns False if Rich has no such
    hook (then wrapping stays as Rich does it)."""
    try:
        from rich import _wrap
    except ImportError:  # pragma: no cover - Rich always has it in the pinned version
        return False
    if not hasattr(_wrap, "re_word"):
        return False
    _wrap.re_word = CJK_WORD_RE
    return True
