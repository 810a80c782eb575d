"""At 80x24, in both languages, labels are not cut: Home's topic titles end in "…" when they do not fit,
the mock setup's three fields fit the width, the Stats section titles wrap, Help's binding ids never wrap
under its keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from support.apps import make_app
from support.pilot import pilot_test, settle
from textual.widgets import Label, RadioSet, Static, Tree

from tui.screens.mock import MockSetupScreen
from tui.screens.stats import StatsScreen

LONG_TITLE = "A topic whose title is far too long to fit beside the columns at eighty columns wide"
BANK = f"""
topic: long-title
title: {{en: "{LONG_TITLE}", zh: "一个标题非常非常长的主题，在八十列宽的终端里放不下，必须截断并显示省略号"}}
questions:
  - id: long-title.tf
    type: truefalse
    prompt: {{en: "True?", zh: "对吗？"}}
    explanation: {{en: "Yes.", zh: "是的。"}}
    correct: true
"""


@pytest.mark.parametrize("lang", ["en", "zh"])
@pilot_test
async def test_home_topic_titles_end_in_an_ellipsis_when_cut(env: Path, lang: str) -> None:
    (env / "user-banks").mkdir(parents=True, exist_ok=True)
    (env / "user-banks" / "long.yaml").write_text(BANK, encoding="utf-8")
    app = make_app(env, open_store=False, language=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.pause(0.2)
        tree = app.screen.query_one("#topic-tree", Tree)
        room = tree.scrollable_content_region.width
        labels = {node.data[1]: node.label for node in tree.root.children}
        label = labels["long-title"]
        assert label.plain.endswith("…"), label.plain
        assert label.cell_len + 2 <= room  # the expand arrow, then the label: all of it shows
        short = labels[next(t.id for t in app.bankset.topics if t.id != "long-title")]
        assert not short.plain.endswith("…")
        await pilot.resize_terminal(160, 40)  # wider: more of the title (up to the 60-character cap)
        await settle(pilot)
        await pilot.pause(0.2)
        wider = {node.data[1]: node.label for node in tree.root.children}["long-title"]
        assert wider.cell_len > label.cell_len and wider.plain.rstrip("…").startswith(label.plain.rstrip("…"))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pilot_test
async def test_mock_setup_and_stats_fit_80_columns(env: Path, lang: str) -> None:
    app = make_app(env, language=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MockSetupScreen)
        for radio in app.screen.query(RadioSet):
            assert radio.region.right <= 80, (radio.id, radio.region)
        app.pop_screen()
        await settle(pilot)
        app.open_stats()
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        title = app.screen.query_one("#stats-leeches-title", Label)
        lines = title.render_lines(title.region.reset_offset)
        text = "".join(strip.text for strip in lines).replace(" ", "")
        wanted = "·Enteropens" if lang == "en" else "·回车打开"
        assert wanted in text, text


@pytest.mark.parametrize("lang", ["en", "zh"])
@pilot_test
async def test_help_rows_fit_80_columns_with_each_binding_id_in_the_id_column(env: Path, lang: str) -> None:
    """At 80 columns a row's binding id wrapped to the next line's left edge ("  posenc.language" under
    the keys): a row that has no room for its id puts it on a line of its own, in the description column."""
    app = make_app(env, open_store=False, language=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        box = app.screen.query_one("#help-box")
        room = box.scrollable_content_region.width
        lines = str(app.screen.query_one("#help-text", Static).content).splitlines()
        assert len(lines) > 40
        for line in lines[:-1]:  # (the closing remap note is prose: it wraps)
            assert cell_len(line) <= room, (room, line)
        ids = [line for line in lines if line.strip().startswith("posenc.")]
        indents = {len(line) - len(line.lstrip()) for line in ids}
        assert ids and len(indents) == 1 and indents.pop() > 4, ids  # the description column
        await pilot.resize_terminal(140, 40)  # room again: every id back on its row
        await settle(pilot)
        wide = str(app.screen.query_one("#help-text", Static).content).splitlines()
        assert not [line for line in wide if line.strip().startswith("posenc.")]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pilot_test
async def test_the_footer_keeps_the_screens_keys_and_help_at_80_columns(env: Path, lang: str) -> None:
    """The quiz footer ran off the edge at 80 columns, cutting `? Help` ("… ^q Quit  ? "): keys every
    screen has (reload, quit, search, …) make room first, and come back when the terminal is wide."""
    from support.apps import screen_text, start_quiz

    from tui.i18n import tr

    app = make_app(env, language=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await start_quiz(pilot, ["fx.mcq"])
        await settle(pilot)
        footer = screen_text(app).splitlines()[-1]
        for key in ("key.check", "key.next", "key.end_quiz", "key.help", "key.palette"):
            assert tr(key, lang) in footer, (key, footer)
        assert tr("key.reload", lang) not in footer
        await pilot.resize_terminal(140, 30)
        await settle(pilot)
        wide = screen_text(app).splitlines()[-1]
        for key in ("key.check", "key.help", "key.reload", "key.quit", "key.search"):
            assert tr(key, lang) in wide, (key, wide)
