"""Pure parts of the app: grading, quiz selection and shuffling, rich text rendering, i18n, keymaps."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizbank.grading import (
    grade_choices,
    grade_cloze,
    grade_numeric,
    grade_truefalse,
    normalize_blank,
    parse_number,
)
from quizbank.quiz_session import QuizConfig, QuizSession, choice_order, select_question_ids
from tui.i18n import STRINGS, demo_claim, demo_title, tr
from tui.keys import keymap_errors
from tui.richtext import render_text


def _choices(*flags: bool) -> SimpleNamespace:
    return SimpleNamespace(choices=[SimpleNamespace(correct=f) for f in flags])


def test_mcq_and_multi_grading() -> None:
    mcq = _choices(False, True, False)
    assert grade_choices(mcq, {1}).correct is True
    assert grade_choices(mcq, {0}).correct is False
    multi = _choices(True, True, False)
    assert grade_choices(multi, {0, 1}).correct is True
    assert grade_choices(multi, {0}).correct is False
    assert grade_choices(multi, {0, 1, 2}).correct is False
    assert grade_choices(multi, {1, 0}).response == "1,2"


def test_truefalse_grading() -> None:
    q = SimpleNamespace(correct=False)
    assert grade_truefalse(q, False).correct is True
    assert grade_truefalse(q, True).correct is False


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("0.5", 0.5),
        (".5", 0.5),
        ("1e-4", 1e-4),
        ("1/256", 1 / 256),
        ("1,024", 1024.0),
        ("50%", 0.5),
        ("−3", -3.0),
        ("０.２５", 0.25),
        (" 7 ", 7.0),
        ("-inf", -math.inf),
    ],
)
def test_parse_number(raw: str, value: float) -> None:
    assert parse_number(raw) == value


@pytest.mark.parametrize("raw", ["", "abc", "1/0", "1..2", "--1"])
def test_parse_number_rejects(raw: str) -> None:
    with pytest.raises(ValueError):
        parse_number(raw)


def test_numeric_tolerance_is_absolute_and_inclusive() -> None:
    q = SimpleNamespace(value=0.00390625, tolerance=0.0001)
    assert grade_numeric(q, "0.0039").correct is True
    assert grade_numeric(q, "0.00400625").correct is True  # exactly at the edge
    assert grade_numeric(q, "0.0041").correct is False
    assert grade_numeric(q, "1/256").correct is True


def test_cloze_matching_ignores_case_space_and_width() -> None:
    q = SimpleNamespace(
        blanks=[SimpleNamespace(accept=["m-n", "(m-n)"]), SimpleNamespace(accept=["Attention Scores"])]
    )
    assert grade_cloze(q, ["M - N", "attentionscores"]).correct is True
    assert grade_cloze(q, ["ｍ－ｎ", " Attention  scores "]).correct is True
    graded = grade_cloze(q, ["m+n", "attention scores"])
    assert graded.correct is False and graded.details["blanks"] == [False, True]
    assert grade_cloze(q, ["", ""]).correct is False
    assert normalize_blank(" A b\tC ") == "abc"


@given(st.integers(min_value=0, max_value=2**31), st.text(min_size=1, max_size=12), st.integers(1, 9))
def test_choice_order_is_a_stable_permutation(seed: int, qid: str, n: int) -> None:
    order = choice_order(seed, qid, n)
    assert sorted(order) == list(range(n))
    assert order == choice_order(seed, qid, n)


def _bankset() -> SimpleNamespace:
    questions = {
        f"t{t}.q{i}": SimpleNamespace(id=f"t{t}.q{i}", difficulty=1 + i % 3, type="mcq")
        for t in range(2)
        for i in range(9)
    }
    topics = [SimpleNamespace(id=f"t{t}", question_ids=[f"t{t}.q{i}" for i in range(9)]) for t in range(2)]
    return SimpleNamespace(topics=topics, questions=questions)


def test_selection_filters_shuffles_and_counts() -> None:
    bankset = _bankset()
    everything = select_question_ids(bankset, QuizConfig(count=None, seed=3))
    assert sorted(everything) == sorted(bankset.questions)
    assert everything == select_question_ids(bankset, QuizConfig(count=None, seed=3))
    assert everything != select_question_ids(bankset, QuizConfig(count=None, seed=4))
    hard_t1 = select_question_ids(bankset, QuizConfig(topics=("t1",), difficulty=3, count=None, seed=1))
    assert sorted(hard_t1) == ["t1.q2", "t1.q5", "t1.q8"]
    assert len(select_question_ids(bankset, QuizConfig(count=5, seed=1))) == 5


def test_session_tracks_score_and_revisit_list() -> None:
    from quizbank.grading import Grade

    session = QuizSession(QuizConfig(), ["a", "b", "c", "d"])
    session.record("a", Grade(True, "1"))
    session.advance()
    session.record("b", Grade(False, "2"))
    session.advance()
    session.advance()  # c skipped
    session.record("d", Grade(None, ""))
    session.advance()
    assert session.finished
    assert session.correct_count == 1
    assert session.to_revisit() == ["b", "c", "d"]


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


def test_every_ui_string_has_both_languages() -> None:
    missing = [key for key, (en, zh) in STRINGS.items() if not en or not zh]
    assert missing == []
    assert tr("quiz.progress", "zh", n=1, total=3) == "第 1/3 题"
    assert tr("no.such.key", "en") == "no.such.key"


def test_keymap_validation() -> None:
    assert keymap_errors({"posenc.next": "j"}) is None
    assert keymap_errors(["posenc.next"]) is not None
    assert keymap_errors({"posenc.next": ""}) is not None
    assert keymap_errors({"posenc.next": 3}) is not None


def test_chinese_wraps_between_characters_with_kinsoku() -> None:
    from rich.cells import cell_len
    from textual.content import Content

    from tui import cjkwrap

    assert cjkwrap.install()
    text = "演示在 40 个 token 的输入上统计不同标签的个数，这个长度足以让截断生效；RoPE（旋转）也一样。"
    lines = [line.plain.rstrip() for line in Content(text).wrap(20)]
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert all(cell_len(line) <= 20 for line in lines)
    # lines are filled (a break may fall between any two characters), not cut at spaces only
    assert all(cell_len(line) >= 18 for line in lines[:-1]), lines
    # closing punctuation never starts a line, opening punctuation never ends one
    assert not any(line[0] in "，。；）" for line in lines[1:]), lines
    assert not any(line.endswith("（") for line in lines), lines
    # Latin words still break at spaces only
    latin = [line.plain.rstrip() for line in Content("rotary position embedding everywhere").wrap(12)]
    assert latin == ["rotary", "position", "embedding", "everywhere"]
    # a path wraps after a separator, with no zero-width space added; a fraction stays whole
    path = "/home/someone/.local/share/posenc/progress.db"
    lines = [line.plain for line in Content(path).wrap(16)]
    assert "".join(lines) == path and lines[0] == "/home/someone/", lines
    assert all(cell_len(line) <= 16 for line in lines) and cjkwrap.BREAK not in "".join(lines)
    assert [line.plain.rstrip() for line in Content("ratio 1/256 here").wrap(9)] == ["ratio", "1/256", "here"]
    assert [line.plain.rstrip() for line in Content("x RoPE/ALiBi -2i/d").wrap(11)] == [
        "x",
        "RoPE/ALiBi",
        "-2i/d",
    ]


def test_demo_title_and_claim_follow_the_language_and_fall_back_to_english() -> None:
    from posenc_ref.demos import get_demo
    from posenc_ref.demos.base import DemoResult

    spec = get_demo("rope-norm")
    assert demo_title(spec, "en") == "RoPE preserves vector norms"
    assert demo_title(spec, "zh") == "RoPE 保持向量范数不变"
    assert demo_claim(spec, "zh") == spec.claim_zh and demo_claim(spec, "en") == spec.claim
    untranslated = DemoResult(
        name="x", title="Only English", claim="A claim.", device="cpu", dtype="float32", elapsed_ms=1.0
    )
    assert (untranslated.title_zh, untranslated.claim_zh) == ("", "")
    assert demo_title(untranslated, "zh") == "Only English" and demo_claim(untranslated, "zh") == "A claim."
    older = SimpleNamespace(title="Pickled before title_zh existed", claim="c")  # no *_zh attributes at all
    assert demo_title(older, "zh") == "Pickled before title_zh existed" and demo_claim(older, "zh") == "c"
