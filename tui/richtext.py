"""Bank text -> Textual `Content`, treating the text as data.

Bank text is authored in a small Markdown dialect with LaTeX math. Prompts, choices and short
answers are rendered here, synchronously and cheaply, into `textual.content.Content` built from
plain strings plus style spans, so Textual/Rich markup in the bank (`[bold]`, `[link=...]`) is
never interpreted: it shows literally. Long explanations go through the `Markdown` widget
instead (see `markdown_source`).

Supported inline syntax: `code`, **bold**, *italic* / _italic_, $math$ and $$display math$$,
``` fenced code blocks, and "- " / "* " bullets.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from textual.content import Content, Span

from .mathtext import MathSpan, convert_math, split_math

__all__ = ["inline", "join_cjk_soft_breaks", "markdown_source", "plain", "render_text"]

MATH_STYLE = "italic $text-accent"
CODE_STYLE = "$text-warning"
BOLD_STYLE = "bold"
ITALIC_STYLE = "italic"

_INLINE_RE = re.compile(
    r"(?P<code>`[^`\n]+`)"
    r"|(?P<bold>(?<![A-Za-z0-9_*\\])\*\*(?=\S)[^*\n]+?(?<=\S)\*\*(?![A-Za-z0-9_*]))"
    r"|(?P<italic>(?<![A-Za-z0-9_*\\])\*(?=\S)[^*\n]+?(?<=\S)\*(?![A-Za-z0-9_*])"
    r"|(?<![\w_])_(?=\S)[^_\n]+?(?<=\S)_(?![\w_]))"
)
# `*italic*` and `**bold**` may touch CJK text on either side (`这些*确实*有`), as CommonMark
# allows for `*`; an ASCII letter or digit next to them (`a*b*c`, `x**-0.5`) keeps them literal. `_` stays
# word-bounded, as in CommonMark.
_BLANK_RE = re.compile(r"\{\{(\d+)\}\}")


def plain(text: str) -> str:
    """Text with math converted, cloze blanks as ___ and no styling (the `code`, **bold** and
    *italic* markers dropped): for titles, list items and search results."""
    flat = "".join(
        str(piece) if isinstance(piece, MathSpan) else "".join(run for run, _style in _inline_runs(piece))
        for piece in split_math(text)
    )
    return _BLANK_RE.sub("___", flat).replace("\n", " ").strip()


def _inline_runs(text: str) -> list[tuple[str, str]]:
    """Split plain (math-free) text into (text, style) runs for code/bold/italic."""
    runs: list[tuple[str, str]] = []
    pos = 0
    for m in _INLINE_RE.finditer(text):
        if m.start() > pos:
            runs.append((text[pos : m.start()], ""))
        token = m.group(0)
        if m.group("code"):
            runs.append((token[1:-1], CODE_STYLE))
        elif m.group("bold"):
            runs.append((token[2:-2], BOLD_STYLE))
        else:
            runs.append((token[1:-1], ITALIC_STYLE))
        pos = m.end()
    if pos < len(text):
        runs.append((text[pos:], ""))
    return runs


def inline(
    text: str,
    *,
    style: str = "",
    blank: Callable[[int], Content] | None = None,
) -> Content:
    """Render one paragraph of bank text (inline syntax, math) to Content.

    `blank(n)` renders cloze placeholders `{{n}}`; without it they show as `[n]`.
    """
    parts: list[Content | tuple[str, str] | str] = []
    for piece in split_math(text):
        if isinstance(piece, MathSpan):
            parts.append((str(piece), MATH_STYLE))
            continue
        for run_text, run_style in _inline_runs(piece):
            if blank is None or "{{" not in run_text:
                parts.append((run_text, run_style))
                continue
            pos = 0
            for m in _BLANK_RE.finditer(run_text):
                if m.start() > pos:
                    parts.append((run_text[pos : m.start()], run_style))
                parts.append(blank(int(m.group(1))))
                pos = m.end()
            if pos < len(run_text):
                parts.append((run_text[pos:], run_style))
    content = Content.assemble(*parts)
    if style:
        content = content.stylize_before(style)
    return content


_BULLET_RE = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")


# The two character classes below are compiled on first use (`_cjk`, `_cjk_punct`): ~7 ms at import, on the
# bank loader's way to Home's topics, which never need them.
@cache
def _cjk() -> re.Pattern[str]:
    """CJK ideographs, kana, hangul, and full-width forms and punctuation."""
    return re.compile(
        r"[\u2e80-\u2fff\u3000-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
        r"\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]"
    )


@cache
def _cjk_punct() -> re.Pattern[str]:
    """Full-width punctuation (a space is never wanted next to it)."""
    return re.compile(r"[\u3000-\u303f\ufe30-\ufe4f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")


def _soft_break_is_space(left: str, right: str) -> bool:
    """Whether the line break between `left` and `right` (one paragraph) reads as a space.

    Markdown turns a soft break into a space, which is right between words but a stray gap
    inside Chinese: no space between two CJK characters or next to full-width punctuation
    (a Latin word next to a CJK character keeps its space, as authors usually write it).
    """
    if not left or not right:
        return False
    a, b = left[-1], right[0]
    if _cjk_punct().match(a) or _cjk_punct().match(b):
        return False
    return not (_cjk().match(a) and _cjk().match(b))


def _join_soft(left: str, right: str) -> str:
    """Join two source lines of one paragraph as Markdown does (a soft break is a space),
    without a space inside CJK text."""
    left = left.rstrip()
    right = right.strip()
    if not left:
        return right
    if not right:
        return left
    return left + (" " if _soft_break_is_space(left, right) else "") + right


_FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")
_HARD_BREAK_RE = re.compile(r"(  |\\)$")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}(\s|$)")


# A line that starts a new block (list item, quote, heading, table row) even without a blank line before it.
_BLOCK_START_RE = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:\s|$)|>|#{1,6}(?:\s|$)|\|")


def join_cjk_soft_breaks(text: str) -> str:
    """Remove the line breaks inside Markdown paragraphs that would render as a stray space in
    CJK text (see `_soft_break_is_space`); fenced and indented code and hard breaks (two
    trailing spaces or a backslash) are left alone."""
    if "\n" not in text or not _cjk().search(text):
        return text
    lines = text.split("\n")
    out: list[str] = []
    in_fence = False
    previous_blank = True
    for line in lines:
        if _FENCE_RE.match(line):
            in_fence = not in_fence
            out.append(line)
            previous_blank = False
            continue
        stripped = line.strip()
        if (
            not in_fence
            and out
            and stripped
            and not previous_blank
            and not _FENCE_RE.match(out[-1])
            and not _HARD_BREAK_RE.search(out[-1])
            and not out[-1].startswith(("    ", "\t"))
            and not _HEADING_RE.match(out[-1])
            and out[-1].strip()
            and not _BLOCK_START_RE.match(stripped)
            and not _soft_break_is_space(out[-1].rstrip(), stripped)
        ):
            out[-1] = out[-1].rstrip() + line.lstrip()
            continue
        out.append(line)
        previous_blank = not stripped
    return "\n".join(out)


def _blocks(text: str) -> list[tuple[str, str, str]]:
    """Split text into display blocks (kind, prefix, body): paragraphs with soft breaks joined,
    bullets (continuation lines joined), headings, fenced code lines and blank separators."""
    blocks: list[tuple[str, str, str]] = []
    in_code = False
    current: list[str] | None = None  # [kind, prefix, body] of the block being joined

    def flush() -> None:
        nonlocal current
        if current is not None:
            blocks.append((current[0], current[1], current[2]))
            current = None

    for raw_line in text.rstrip().split("\n"):
        stripped = raw_line.strip()
        if stripped.startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            blocks.append(("code", "", raw_line.rstrip()))
            continue
        if not stripped:
            flush()
            if blocks and blocks[-1][0] != "blank":
                blocks.append(("blank", "", ""))
            continue
        bullet = _BULLET_RE.match(raw_line)
        if bullet:
            flush()
            indent = "  " * (len(bullet.group(1)) // 2)
            marker = "•" if bullet.group(2) in "-*+" else bullet.group(2)
            current = ["bullet", f"{indent}{marker} ", raw_line[bullet.end() :].strip()]
            continue
        heading = re.match(r"^#{1,6}\s+", raw_line)
        if heading:
            flush()
            blocks.append(("heading", "", raw_line[heading.end() :].strip()))
            continue
        if current is None:
            current = ["para", "", stripped]
        else:
            current[2] = _join_soft(current[2], stripped)
    flush()
    while blocks and blocks[-1][0] == "blank":
        blocks.pop()
    return blocks


def render_text(text: str, *, style: str = "", blank: Callable[[int], Content] | None = None) -> Content:
    """Render multi-line bank text: paragraphs, bullets, fenced code and display math.

    Every character of `text` is data; the only styling comes from the syntax listed in the
    module docstring.
    """
    lines_out: list[Content] = []
    for kind, prefix, body in _blocks(text):
        if kind == "code":
            lines_out.append(Content.styled("  " + body, CODE_STYLE))
        elif kind == "blank":
            lines_out.append(Content(""))
        elif kind == "heading":
            lines_out.append(inline(body, style="bold", blank=blank))
        elif kind == "bullet":
            lines_out.append(Content.assemble(prefix, inline(body, blank=blank)))
        else:
            lines_out.append(inline(body, blank=blank))
    content = Content("\n").join(lines_out)
    if style:
        content = content.stylize_before(style)
    return content


def markdown_source(text: str) -> str:
    """Bank Markdown prepared for the `Markdown` widget: math converted to escaped Unicode, and
    soft line breaks inside CJK text joined without the space Markdown would put there."""
    return join_cjk_soft_breaks(convert_math(text, markdown=True))


def spans_of(content: Content) -> list[Span]:
    """The style spans of rendered content (used by tests to check what is styled)."""
    return list(content.spans)


MATCH_STYLE = "bold reverse"


def highlight(text: str, query: str, style: str = "") -> Content:
    """`text` (plain, never markup) with every match of the query's words highlighted, as Search matches
    them (`quizbank.search.match_spans`: word prefixes, substrings in Chinese); search results, the glossary."""
    from quizbank.search import match_spans

    content = Content.styled(text, style) if style else Content(text)
    for start, end in match_spans(text, query):
        content = content.stylize(MATCH_STYLE, start, end)
    return content
