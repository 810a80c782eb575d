"""Bank text for export: pick a language, convert math, and render Markdown to HTML safely.

Bank text is Markdown with LaTeX between `$...$` (inline) and `$$...$$` (display). For Anki the math becomes
MathJax delimiters `\\(...\\)` and `\\[...\\]`, and everything else is rendered by markdown-it-py with raw HTML
disabled, so text from a bank can never inject markup.
"""

from __future__ import annotations

import hashlib
import html
import random
import re
from typing import Any

from quizbank.question_types import answer_line

__all__ = [
    "LANG_CHOICES",
    "MATH_RE",
    "choice_order",
    "localized",
    "markdown_to_html",
    "math_to_mathjax",
    "right_answer_in",
    "text_in",
]

LANG_CHOICES = ("en", "zh", "both")

# $$display$$ first, then $inline$: no space just inside the dollars, and "\$" is a literal dollar.
MATH_RE = re.compile(
    r"\$\$(?P<display>.+?)\$\$|(?<![\\$\w])\$(?=\S)(?P<inline>(?:\\.|[^$\\\n])+?)(?<=\S)\$(?!\d)",
    re.DOTALL,
)
_PLACEHOLDER = "\ue000{}\ue001"
_PLACEHOLDER_RE = re.compile("\ue000(\\d+)\ue001")


def choice_order(question_id: str, count: int) -> list[int]:
    """The order an export shows a question's `count` choices in: a shuffle seeded by the question id (SHA-256),
    so it is the same in every export and every process (notes do not churn), and the bank's habit of listing
    the right choice first does not teach "it's A"."""
    digest = hashlib.sha256(f"posenc-choices:{question_id}".encode()).digest()
    order = list(range(count))
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return order


def text_in(value: Any, lang: str) -> str:
    """One language of a localized value (a schema `Text`, a plain string, or None), with fallback."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return value.get(lang)


def localized(value: Any, lang: str) -> list[str]:
    """The texts to show for `lang` in ('en', 'zh', 'both'); 'both' gives English then Chinese when they differ."""
    if lang != "both":
        text = text_in(value, lang)
        return [text] if text else []
    first, second = text_in(value, "en"), text_in(value, "zh")
    out = [first] if first else []
    if second and second != first:
        out.append(second)
    return out


def right_answer_in(question: Any, lang: str) -> str:
    """A question's right answer on one line (`quizbank.question_types.answer_line`) for `lang` in ('en', 'zh',
    'both'); 'both' gives English / Chinese when they differ."""
    texts = [answer_line(question, one) for one in (("en", "zh") if lang == "both" else (lang,))]
    return " / ".join(dict.fromkeys(text for text in texts if text))


def _mathjax(tex: str, display: bool) -> str:
    # "}}" inside math would close an Anki cloze deletion early; TeX ignores the space.
    body = html.escape(tex.strip().replace("}}", "} }"), quote=False)
    return f"\\[{body}\\]" if display else f"\\({body}\\)"


def math_to_mathjax(text: str) -> str:
    """Replace `$$..$$` with `\\[..\\]` and `$..$` with `\\(..\\)` (HTML-escaped inside); rest untouched."""
    return MATH_RE.sub(lambda m: _mathjax(m["display"] or m["inline"], m["display"] is not None), text)


def _markdown_engine():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


_ENGINE = None


def markdown_to_html(text: str, inline: bool = False, keep: dict[str, str] | None = None) -> str:
    """Render bank Markdown to HTML with MathJax math. Raw HTML in the text is escaped, never passed through.

    Math is swapped for placeholders before Markdown runs (so `_` and `*` inside formulas are not emphasis),
    then put back as MathJax. `keep` maps literal substrings to HTML inserted verbatim after rendering
    (used for cloze deletions).
    """
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = _markdown_engine()
    pieces: list[str] = []

    def stash(rendered: str) -> str:
        pieces.append(rendered)
        return _PLACEHOLDER.format(len(pieces) - 1)

    protected = MATH_RE.sub(
        lambda m: stash(_mathjax(m["display"] or m["inline"], m["display"] is not None)), text
    )
    for literal, replacement in (keep or {}).items():
        protected = protected.replace(literal, stash(replacement))
    rendered = _ENGINE.renderInline(protected) if inline else _ENGINE.render(protected)
    return _PLACEHOLDER_RE.sub(lambda m: pieces[int(m.group(1))], rendered).strip()
