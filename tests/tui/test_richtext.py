"""Bank text on screen (tui/richtext.py): markup shown literally, inline syntax and math, Markdown soft breaks
(without a stray space inside Chinese), emphasis next to CJK as CommonMark reads it, cloze blanks."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from support.banks import shipped_strings

from tui.richtext import ITALIC_STYLE, _blocks, inline, markdown_source, plain, render_text


def test_emphasis_next_to_cjk_is_italic_not_literal_asterisks() -> None:
    content = inline("表里*确实*有第 1500 行")
    assert content.plain == "表里确实有第 1500 行"
    italic = [content.plain[s.start : s.end] for s in content.spans if str(s.style) == ITALIC_STYLE]
    assert italic == ["确实"]
    assert plain("论文的*假设*：固定函数") == "论文的假设：固定函数"
    # an ASCII word right next to the asterisks keeps them literal (multiplication, exponents)
    assert inline("a*b*c").plain == "a*b*c"
    assert inline("hidden_size**-0.5 and hidden_size**0.5").plain == "hidden_size**-0.5 and hidden_size**0.5"


def _commonmark_emphasis(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for token in MarkdownIt("commonmark").parse(markdown_source(text)):
        if token.type != "inline":
            continue
        stack: list[list[str]] = []
        for child in token.children or []:
            if child.type in ("em_open", "strong_open"):
                stack.append([child.type[:-5], ""])
            elif child.type in ("em_close", "strong_close"):
                kind, inner = stack.pop()
                out.append((kind, inner))
                if stack:
                    stack[-1][1] += inner
            elif stack:
                stack[-1][1] += child.content
    return sorted(out)


def _our_emphasis(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for kind, _prefix, body in _blocks(text):
        if kind == "code":
            continue
        content = inline(body)
        for span in content.spans:
            style = str(span.style)
            if style in ("italic", "bold"):
                out.append(("em" if style == "italic" else "strong", content.plain[span.start : span.end]))
    return sorted(out)


@pytest.mark.slow  # every line of the shipped bank
def test_emphasis_agrees_with_commonmark_on_every_shipped_line() -> None:
    """The prompt renderer and the Markdown widget (CommonMark) emphasise the same words in every
    string of the shipped bank that has a `*`."""
    checked = 0
    for text in shipped_strings(shown_only=True):
        if "*" not in text:  # `_` emphasis is left to CommonMark (`__init__` stays literal here)
            continue
        checked += 1
        assert _our_emphasis(text) == _commonmark_emphasis(text), text[:120]
    assert checked > 150
    cjk = [t for t in shipped_strings(shown_only=True) if re.search(r"\*[^*\s][^*\n]*?\*[\u4e00-\u9fff]", t)]
    assert len(cjk) >= 40  # the lines the defect was about
    assert all("*" not in plain(t) for t in cjk)


def test_cjk_soft_break_join_keeps_list_items_quotes_and_table_rows_apart():
    from tui.richtext import join_cjk_soft_breaks

    assert join_cjk_soft_breaks("要点如下：\n- 第一条\n- 第二条") == "要点如下：\n- 第一条\n- 第二条"
    assert join_cjk_soft_breaks("步骤：\n1. 旋转 q\n2. 旋转 k") == "步骤：\n1. 旋转 q\n2. 旋转 k"
    assert join_cjk_soft_breaks("见下表：\n| 布局 | 配对 |") == "见下表：\n| 布局 | 配对 |"
    assert join_cjk_soft_breaks("引用：\n> 原文") == "引用：\n> 原文"
    assert join_cjk_soft_breaks("第一行中文\n第二行中文") == "第一行中文第二行中文"


def test_bank_markup_renders_literally() -> None:
    text = "Use [bold]this[/bold] and [link=https://example.com]that[/link] and [red]x"
    content = render_text(text)
    assert content.plain == text
    assert list(content.spans) == []


def test_inline_syntax_is_styled_and_math_converted() -> None:
    content = render_text(r"**Bold**, `code`, *it* and $\theta_i$")
    assert content.plain == "Bold, code, it and θᵢ"
    assert len(content.spans) == 4


def test_paragraph_soft_breaks_join_like_markdown() -> None:
    content = render_text("one line\nwraps here\n\n- item\n  continues\n\n中文\n接着 and\nmore")
    assert content.plain == "one line wraps here\n\n• item continues\n\n中文接着 and more"


def test_markdown_soft_breaks_inside_chinese_have_no_stray_space() -> None:
    from tui.richtext import join_cjk_soft_breaks, markdown_source

    assert (
        markdown_source("旋转不会改变\n向量的长度，\nRoPE 保持模长。")
        == "旋转不会改变向量的长度，RoPE 保持模长。"
    )
    # a Latin word next to a CJK character keeps its space (the soft break stays)
    assert join_cjk_soft_breaks("所以 RoPE\n保持") == "所以 RoPE\n保持"
    assert join_cjk_soft_breaks("English\nwords") == "English\nwords"
    # paragraphs, hard breaks, headings and code are left alone
    assert join_cjk_soft_breaks("第一段\n\n第二段") == "第一段\n\n第二段"
    assert join_cjk_soft_breaks("硬换行  \n下一行") == "硬换行  \n下一行"
    assert join_cjk_soft_breaks("硬换行\\\n下一行") == "硬换行\\\n下一行"
    assert join_cjk_soft_breaks("## 标题\n正文") == "## 标题\n正文"
    assert join_cjk_soft_breaks("```\n代码一\n代码二\n```") == "```\n代码一\n代码二\n```"
    assert join_cjk_soft_breaks("说明：\n\n    缩进一\n    缩进二") == "说明：\n\n    缩进一\n    缩进二"
    # a list item's continuation line joins its item
    assert join_cjk_soft_breaks("- 列表项\n  续行") == "- 列表项续行"
    # math is converted first, then joined
    assert markdown_source("角度 $\\theta$ 很\n小") == "角度 θ 很小"


def test_plain_text_for_lists_drops_inline_markers() -> None:
    from tui.richtext import plain

    text = "Why did it *not* use `wpe` or **this**, with $\\theta_i$? {{1}} and a*b\nnext"
    assert plain(text) == "Why did it not use wpe or this, with θᵢ? ___ and a*b next"
    assert plain("[bold]kept[/bold]") == "[bold]kept[/bold]"


def test_cloze_blanks_are_rendered_by_the_callback() -> None:
    from textual.content import Content

    content = render_text("a {{1}} b {{2}}", blank=lambda n: Content(f"<{n}>"))
    assert content.plain == "a <1> b <2>"


def test_importing_richtext_compiles_the_cjk_classes_only_when_used() -> None:
    """The CJK character classes (~7 ms to compile) wait for the first text that needs them: the bank
    loader imports this module on its way to Home's topics, whose titles never do."""
    import subprocess
    import sys

    code = (
        "import tui.richtext as r\n"
        "before = (r._cjk.cache_info().currsize, r._cjk_punct.cache_info().currsize)\n"
        "joined = r.join_cjk_soft_breaks('维度\\n对齐')\n"
        "print(before, r._cjk.cache_info().currsize, r._cjk_punct.cache_info().currsize, joined)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["(0,", "0)", "1", "1", "维度对齐"]


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_characters="$`*_{", blacklist_categories=("Cs",)), max_size=60)
)
def test_home_shows_a_title_without_markup_characters_as_plain_would(text: str) -> None:
    """Home's fast path (`_flat` without importing this module) agrees with `plain` on such text."""
    from tui.screens.home import _flat

    assert _flat(text, 10_000) == plain(text)


def test_home_flattens_every_shipped_string_as_plain_does() -> None:
    from tui.screens.home import _flat

    strings = list(shipped_strings())
    assert len(strings) > 1000
    for text in strings:
        assert _flat(text, 10_000) == plain(text), text
