"""Chinese line breaking (tui/cjkwrap.py): wraps between characters with kinsoku rules, inside 80 columns."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from support.apps import correct_position, make_app, screen_text, start_quiz
from support.paths import ROOT
from support.pilot import pilot_test, settle

SIZE = (100, 30)


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


@pilot_test
async def test_cjk_wraps_inside_80_columns(env: Path) -> None:
    app = make_app(env, language="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq"])
        await pilot.press(str(correct_position(screen.view) + 1), "space")
        await settle(pilot)
        text = screen_text(app)
        lines = text.splitlines()
        assert all(cell_len(line) <= 80 for line in lines)
        assert "乘以什么" in text
        assert "\ufffd" not in text


# Characters around every branch of the word pattern: spaces, separators, digits, the zero-width space,
# Latin and Greek letters, and the punctuation of _OPEN and _CLOSE that sits below U+2E80.
_NO_CJK = " \t\n/\\._~-:1a0Zθé“”‘’…—([{}]),.;:!?%\u200b"
_WITH_CJK = _NO_CJK + "位置编码，。（）「」"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_NO_CJK, max_size=40))
def test_text_without_cjk_splits_the_same_under_both_patterns(text: str) -> None:
    from tui import cjkwrap

    def words(pattern: re.Pattern[str]) -> list[str]:
        out, pos = [], 0
        while (m := pattern.match(text, pos)) is not None and m.end() > pos:
            out.append(m.group(0))
            pos = m.end()
        return out

    assert words(cjkwrap.LATIN_WORD_RE) == words(cjkwrap.cjk_word_re())
    assert cjkwrap.WORDS.pattern_for(text) is cjkwrap.LATIN_WORD_RE


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=_WITH_CJK, min_size=1, max_size=40).filter(lambda t: max(t) >= "\u2e80"))
def test_text_with_a_cjk_character_gets_the_whole_pattern(text: str) -> None:
    from tui import cjkwrap

    assert cjkwrap.WORDS.pattern_for(text) is cjkwrap.cjk_word_re()
    assert [m.group(0) for m in [cjkwrap.WORDS.match(text, 0)]] == [
        cjkwrap.cjk_word_re().match(text, 0).group(0)
    ]


def test_english_start_up_never_compiles_the_cjk_pattern() -> None:
    """Compiling the CJK character classes took 3-5 ms before the first paint: English text never needs it."""
    code = (
        "from textual.content import Content\n"
        "from tui import cjkwrap\n"
        "cjkwrap.install()\n"
        "lines = Content('Loading banks… a path /home/someone/.local/share/x.db').wrap(12)\n"
        "print(len(lines) > 2, cjkwrap.cjk_word_re.cache_info().currsize)\n"
        "Content('位置编码很好').wrap(4)\n"
        "print(cjkwrap.cjk_word_re.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["True", "0", "1"]
