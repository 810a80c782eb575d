"""The UI in English and Chinese: `tr` looks a key up in the one table of strings (`tui.strings`). Bank
text carries its own languages (`Text.get`).

`tr(key, lang, **fields)` formats a string; a key missing in one language falls back to English.
"""

from __future__ import annotations

import os

from .strings import STRINGS

__all__ = ["LANGUAGES", "STRINGS", "count", "default_language", "demo_claim", "demo_title", "tr"]

LANGUAGES = ("en", "zh")


def tr(key: str, lang: str, **fields: object) -> str:
    """The UI string `key` in `lang` ("en" or "zh"), formatted with `fields`."""
    pair = STRINGS.get(key)
    if pair is None:
        text = key
    else:
        text = pair[1] if lang == "zh" and pair[1] else pair[0]
    return text.format(**fields) if fields else text


def count(n: int, noun: str, plural: str = "") -> str:
    """`1 review`, `2 reviews`: an English count with the noun in the right number (Chinese
    strings put the number in their own template)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def demo_title(demo: object, lang: str) -> str:
    """The title of a posenc_ref `Demo` or `DemoResult` in `lang`: `title_zh` in Chinese when the
    spec has one, else the English `title`."""
    return _demo_text(demo, "title", lang)


def demo_claim(demo: object, lang: str) -> str:
    """The one-sentence claim of a `Demo` or `DemoResult` in `lang` (English when no `claim_zh`)."""
    return _demo_text(demo, "claim", lang)


def _demo_text(demo: object, field: str, lang: str) -> str:
    if lang == "zh":
        text = getattr(demo, f"{field}_zh", "")
        if text:
            return str(text)
    return str(getattr(demo, field, "") or "")


def default_language() -> str:
    """The language before any saved setting: Chinese if the locale says so, else English."""
    for var in ("POSENC_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"
