"""Chinese line breaking (tui/cjkwrap.py): wraps between characters with kinsoku rules, inside 80 columns."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
from support.apps import correct_position, make_app, screen_text, start_quiz
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
