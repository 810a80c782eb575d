"""At 80x24, in both languages, labels are not cut: Home's topic titles end in "…" when they do not fit,
the mock setup's three fields fit the width, the Stats section titles wrap, Help's binding ids never wrap
under its keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from support.apps import make_app, screen_text
from support.pilot import pilot_test, settle, wait_for
from textual.widgets import Label, RadioSet, Static, Tree

from tui.screens.mock import MockSetupScreen
from tui.screens.stats import StatsScreen

# Chinese runs in `make test`; `make check` keeps the English half of each layout check
LANGS = ["en", pytest.param("zh", marks=pytest.mark.slow)]

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


def long_bank_app(env: Path, lang: str, **options: Any) -> Any:
    """The fixture app with BANK (long topic titles) among the user's banks."""
    (env / "user-banks").mkdir(parents=True, exist_ok=True)
    (env / "user-banks" / "long.yaml").write_text(BANK, encoding="utf-8")
    return make_app(env, language=lang, **options)


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_home_topic_titles_end_in_an_ellipsis_when_cut(env: Path, lang: str) -> None:
    app = long_bank_app(env, lang, open_store=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#topic-tree", Tree)

        def long_label() -> Any:
            return {node.data[1]: node.label for node in tree.root.children}.get("long-title")

        await wait_for(lambda: long_label() is not None and long_label().plain.endswith("…"), 30, long_label)
        room = tree.scrollable_content_region.width
        labels = {node.data[1]: node.label for node in tree.root.children}
        label = labels["long-title"]
        assert label.plain.endswith("…"), label.plain
        assert label.cell_len + 2 <= room  # the expand arrow, then the label: all of it shows
        short = labels[next(t.id for t in app.bankset.topics if t.id != "long-title")]
        assert not short.plain.endswith("…")
        await pilot.resize_terminal(120, 40)  # wider: more of the title, to the width the tree has
        await settle(pilot)
        await wait_for(lambda: long_label().cell_len > label.cell_len, 30, long_label)  # refitted
        wider = long_label()
        assert wider.cell_len > label.cell_len and wider.plain.rstrip("…").startswith(label.plain.rstrip("…"))
        title = next(t for t in app.bankset.topics if t.id == "long-title").title.get(lang)
        room = tree.scrollable_content_region.width
        assert wider.plain.endswith(title) or wider.cell_len + 2 >= room - 1, (wider, room)  # all the width
        await pilot.resize_terminal(160, 40)  # wide: the whole title (it was cut at 60 characters)
        await settle(pilot)
        await wait_for(lambda: long_label().plain.endswith(title), 30, long_label)


@pilot_test
async def test_home_titles_are_refitted_when_the_topic_list_gains_a_scrollbar(env: Path) -> None:
    """The topic description appearing under the list shortens it; once it needs a scrollbar the
    list is narrower, and the titles are cut again (with "…") rather than clipped mid-word."""
    (env / "user-banks").mkdir(parents=True, exist_ok=True)
    about = "A description long enough to take the most rows the pane under the list may take. " * 6
    for n in range(14):
        bank = BANK.replace("long-title", f"long-title-{n}").replace(LONG_TITLE, f"{LONG_TITLE} {n}")
        bank = bank.replace("questions:", f'description: {{en: "{about}", zh: "很长的说明。"}}\nquestions:')
        (env / "user-banks" / f"long{n}.yaml").write_text(bank, encoding="utf-8")
    app = make_app(env, open_store=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree = app.screen.query_one("#topic-tree", Tree)
        assert not tree.show_vertical_scrollbar
        tree.move_cursor(next(node for node in tree.root.children if node.data[1] == "long-title-0"))
        await settle(pilot)

        def refitted() -> bool:  # the description pane took rows from the list, the titles were cut again
            room = tree.scrollable_content_region.width
            long = [n.label for n in tree.root.children if n.data[1] and n.data[1].startswith("long-title")]
            return tree.show_vertical_scrollbar and all(label.cell_len + 2 <= room for label in long)

        await wait_for(refitted, 30, lambda: (tree.show_vertical_scrollbar, tree.scrollable_content_region))
        assert tree.show_vertical_scrollbar
        room = tree.scrollable_content_region.width
        for node in tree.root.children:
            if node.data[1] and node.data[1].startswith("long-title"):
                assert node.label.plain.endswith("…"), node.label.plain
                assert node.label.cell_len + 2 <= room, (node.label.plain, room)


@pytest.mark.parametrize("lang", LANGS)
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


def _shown(widget: object) -> str:
    """Every character `widget` draws, spaces dropped (so a line that wraps still reads whole)."""
    lines = widget.render_lines(widget.region.reset_offset)  # type: ignore[attr-defined]
    return "".join(strip.text for strip in lines).replace(" ", "")


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_long_lines_wrap_rather_than_lose_their_end_at_80_columns(env: Path, lang: str) -> None:
    """The setup screens' topics line, Study's key hint and the Stats chart titles show all their text."""
    from textual.widgets import Static

    from tui.screens.quiz import QuizSetupScreen
    from tui.screens.study import StudyScreen

    app = long_bank_app(env, lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # the long-titled topic under Home's cursor: the longest form of the line
        tree = app.screen.query_one("#topic-tree", Tree)
        tree.move_cursor(next(node for node in tree.root.children if node.data[1] == "long-title"))
        await settle(pilot)
        for key, screen_type, label_id in (
            ("z", QuizSetupScreen, "#setup-topics-label"),
            ("m", MockSetupScreen, "#mock-topics-label"),
        ):
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, screen_type)
            label = app.screen.query_one(label_id, Label)
            whole = str(label.content).replace(" ", "")
            assert whole.endswith(")" if lang == "en" else "）") and _shown(label) == whole, _shown(label)
            assert label.region.right <= 80, label.region  # drawn inside the screen, not clipped by it
            app.pop_screen()
            await settle(pilot)
        app.store.set_setting("enable_fuzzing", False)
        await app.push_screen(StudyScreen(app.bankset.topics[0].id))
        await settle(pilot)
        hint = app.screen.query_one("#study-hint", Static)
        whole = str(hint.content).replace(" ", "")
        assert whole.endswith("Ctrl+Zundoes." if lang == "en" else "Ctrl+Z撤销。"), whole
        assert _shown(hint) == whole and hint.region.right <= 80, _shown(hint)
        app.pop_screen()
        await settle(pilot)
        app.open_stats()
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        wanted = ["Reviewsperday", "Dueperday"] if lang == "en" else ["每日复习", "每日到期"]
        for plot_id, title in zip(("#stats-reviews", "#stats-forecast"), wanted, strict=True):
            plot = app.screen.query_one(plot_id)
            line = plot.render_lines(plot.region.reset_offset)[0]
            first = line.text.replace(" ", "")
            assert first.startswith(title) and first.endswith(")" if lang == "en" else "）"), first
            # CJK counts double; room is left for the scrollbar the body shows once it has more rows
            scrollbar = app.screen.query_one("#stats-body").styles.scrollbar_size_vertical
            assert cell_len(line.text.rstrip()) <= plot.region.width - scrollbar, line.text


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_quiz_bar_gives_the_topic_title_the_room_the_line_has(env: Path, lang: str) -> None:
    from textual.widgets import Static

    from quizbank.quiz_session import QuizConfig, QuizSession
    from tui.screens.quiz import QuizScreen

    app = long_bank_app(env, lang, open_store=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.push_screen(QuizScreen(QuizSession(QuizConfig(seed=1), ["long-title.tf"])))
        await settle(pilot)
        bar = app.screen.query_one("#quiz-bar", Static)
        text = str(bar.content)
        title = next(t for t in app.bankset.topics if t.id == "long-title").title.get(lang)
        shown = text.split("▱")[-1].split("✓")[0].strip()  # between the progress bar and the counts
        assert shown.endswith("…") and title.startswith(shown.rstrip("…")), (shown, text)
        assert 76 <= cell_len(text) <= 80, text  # all the room the line has, and no more


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_study_bar_keeps_its_counts_at_80_columns(env: Path, lang: str) -> None:
    from textual.widgets import Static

    from tui.screens.study import StudyScreen

    app = long_bank_app(env, lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.store.set_setting("enable_fuzzing", False)
        await app.push_screen(StudyScreen("long-title"))
        await settle(pilot)
        text = str(app.screen.query_one("#study-bar", Static).content)
        counts = "due 0 · new 1 · done 0" if lang == "en" else "到期 0 · 新卡 1 · 已完成 0"
        assert counts in text and "…" in text and cell_len(text) <= 80, text
        await pilot.resize_terminal(200, 24)  # wide: the whole title, the counts and the card's state
        await settle(pilot)
        text = str(app.screen.query_one("#study-bar", Static).content)
        title = next(t for t in app.bankset.topics if t.id == "long-title").title.get(lang)
        assert title in text and counts in text, text
        # at 80 columns a short title leaves room for the card's state too
        await pilot.resize_terminal(80, 24)
        app.pop_screen()
        await settle(pilot)
        await app.push_screen(StudyScreen("fixture-rope"))
        await settle(pilot)
        text = str(app.screen.query_one("#study-bar", Static).content)
        assert ("new card" if lang == "en" else "新卡片") in text and cell_len(text) <= 80, text


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_footer_shows_whole_keys_only(env: Path, lang: str) -> None:
    """At 80 columns the footer shows the keys that fit whole and leaves out the rest, rather than
    clipping one mid-word ('? Help  / Searc'); wider, the left-out keys come back."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    from quizbank.quiz_session import QuizConfig, QuizSession
    from tui.screens.quiz import QuizScreen

    app = make_app(env, language=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.push_screen(QuizScreen(QuizSession(QuizConfig(seed=1), ["fx.mcq", "fx.truefalse"])))
        await settle(pilot)
        await wait_for(lambda: any(k.display for k in app.screen.query_one(Footer).query(FooterKey)), 30)

        def shown() -> list[FooterKey]:
            footer = app.screen.query_one(Footer)
            keys = [k for k in footer.query(FooterKey) if not k.has_class("-command-palette")]
            palette = footer.query(".-command-palette").first(FooterKey)
            visible = [k for k in keys if k.display]
            for key in visible:  # whole, left of the command palette's key
                assert key.region.right <= palette.region.x, (str(key.render()), key.region, palette.region)
            return visible

        narrow = shown()
        assert narrow  # (the keys every screen has make room first: left out, not composed)
        await pilot.resize_terminal(200, 24)
        await settle(pilot)
        await wait_for(lambda: len(shown()) > len(narrow), 30, lambda: len(shown()))  # the keys come back


@pytest.mark.parametrize("lang", LANGS)
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


@pilot_test
async def test_quiz_setup_opens_at_its_top_with_the_topic_list_focused(env: Path) -> None:
    """At 80x24 with a dozen topics, focusing the topic list scrolled the form down: the title and the
    'Difficulty' and 'Questions' labels were off screen, leaving '10' unlabelled."""
    from textual.containers import VerticalScroll
    from textual.widgets import SelectionList

    from tui.screens.quiz import QuizSetupScreen

    (env / "user-banks").mkdir(parents=True, exist_ok=True)
    for n in range(14):
        bank = BANK.replace("long-title", f"long-title-{n}").replace(LONG_TITLE, f"Topic {n}")
        (env / "user-banks" / f"long{n}.yaml").write_text(bank, encoding="utf-8")
    app = make_app(env, open_store=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot)
        await wait_for(  # laid out: the form taller than the screen
            lambda: (
                isinstance(app.screen, QuizSetupScreen)
                and app.screen.query_one("#setup", VerticalScroll).max_scroll_y > 0
            ),
            30,
            lambda: app.screen,
        )
        form = app.screen.query_one("#setup", VerticalScroll)
        assert form.max_scroll_y > 0  # the form is taller than the screen
        assert isinstance(app.focused, SelectionList) and form.scroll_y == 0
        for label_id in ("#setup-title", "#setup-count-label", "#setup-difficulty-label"):
            region = app.screen.query_one(label_id).region
            assert form.region.contains_region(region), (label_id, region)


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_the_footer_keeps_the_screens_keys_and_help_at_80_columns(env: Path, lang: str) -> None:
    """The quiz footer ran off the edge at 80 columns, cutting `? Help` ("… ^q Quit  ? "): keys every
    screen has (search, language, back, reload, quit) make room first, and come back when the terminal is
    wide."""
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
        assert tr("key.search", lang) not in footer  # the first to make room; Quit goes last
        assert tr("key.quit", lang) in footer
        await pilot.resize_terminal(140, 30)
        await settle(pilot)
        wide = screen_text(app).splitlines()[-1]
        for key in ("key.check", "key.help", "key.reload", "key.quit", "key.search"):
            assert tr(key, lang) in wide, (key, wide)


def _many_topics(env: Path, n: int = 14) -> list[str]:
    """`n` user banks of one topic each (with a long title); returns their question ids."""
    (env / "user-banks").mkdir(parents=True, exist_ok=True)
    for i in range(n):
        bank = BANK.replace("long-title", f"long-title-{i}").replace(LONG_TITLE, f"{LONG_TITLE} {i}")
        (env / "user-banks" / f"long{i}.yaml").write_text(bank, encoding="utf-8")
    return [f"long-title-{i}.tf" for i in range(n)]


async def _show_summary(pilot: Any, ids: list[str], *, correct: bool) -> None:
    """The quiz summary of a session over `ids`, every answer right or every one wrong."""
    from quizbank.grading import Grade
    from quizbank.quiz_session import QuizConfig, QuizSession
    from tui.screens.quiz.summary import QuizSummaryScreen

    session = QuizSession(QuizConfig(seed=1), ids)
    for qid in ids:
        session.record(qid, Grade(correct, str(correct).lower()))
        session.advance()
    session.end()
    await pilot.app.push_screen(QuizSummaryScreen(session))
    await settle(pilot)


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_quiz_summary_keeps_rows_for_the_revisit_list_beside_many_topics(env: Path, lang: str) -> None:
    """At 80x24 a dozen topics' lines took every row and left the revisit list none: the topic lines
    give up rows (and scroll), the list keeps at least four rows; at 120x40 all the topic lines show."""
    from textual.containers import VerticalScroll
    from textual.widgets import OptionList

    from tui.screens.quiz.summary import REVISIT_ROWS

    ids = _many_topics(env)
    app = make_app(env, language=lang, open_store=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_for(
            lambda: app.bankset is not None and "long-title-13.tf" in app.bankset.questions,
            state=lambda: sorted(app.bankset.questions) if app.bankset is not None else "no bankset",
        )
        await _show_summary(pilot, ids, correct=False)
        options = app.screen.query_one("#summary-revisit", OptionList)
        box = app.screen.query_one("#summary-topics-box", VerticalScroll)

        def rows() -> int:
            return options.scrollable_content_region.height

        await wait_for(
            lambda: rows() >= REVISIT_ROWS,
            30,
            lambda: (rows(), box.region, options.region, box.styles.max_height),
        )
        assert options.option_count == 14 and options.max_scroll_y > 0  # the rest scroll
        assert box.max_scroll_y > 0 and options.region.bottom <= 24 - 1 - 4  # the buttons show below it
        assert app.screen.query_one("#summary-buttons").region.bottom <= 23
        lines = str(app.screen.query_one("#summary-topics", Static).visual).splitlines()[1:]
        assert len(lines) == 14 and all(
            "…" in line and cell_len(line) <= box.scrollable_content_region.width for line in lines
        )
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        await wait_for(
            lambda: box.max_scroll_y == 0, 30, lambda: (box.region, box.max_scroll_y, box.styles.max_height)
        )
        assert rows() >= REVISIT_ROWS
        # wide: the whole title (they were cut at 40 characters with 60 columns free)
        whole = app.bankset.topic("long-title-13").title.get(lang)
        await wait_for(lambda: whole in screen_text(app), 30, lambda: screen_text(app))


@pilot_test
async def test_a_perfect_quiz_summary_puts_its_buttons_under_the_topic_lines(env: Path) -> None:
    """Nothing to revisit: the list and Retry hide, the topic lines take what they need and New quiz
    follows them (the lines' box is not stretched to the bottom of the screen)."""
    from textual.widgets import OptionList

    app = make_app(env, language="en", open_store=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_for(lambda: app.bankset is not None)
        await _show_summary(pilot, sorted(app.bankset.questions)[:2], correct=True)
        screen = app.screen
        assert not screen.query_one("#summary-revisit", OptionList).display
        assert not screen.query_one("#summary-retry").display
        lines = screen.query_one("#summary-topics-box")
        buttons = screen.query_one("#summary-buttons")
        await wait_for(
            lambda: buttons.region.y <= lines.region.bottom + 3, 30, lambda: (lines.region, buttons.region)
        )
        assert lines.max_scroll_y == 0


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_drill_statement_code_wraps_and_the_file_path_keeps_its_name_at_80_columns(
    env: Path, lang: str
) -> None:
    """The statement's code block scrolled sideways with no scrollbar and no focus, so at 80 columns the
    signature read `def sinusoidal_pe(seq_len`: it wraps. The file line (the same widget `posenc serve`
    shows) lost the file name off its end under a long data dir: it keeps the end, `…/drills/<name>.py`."""
    from support.drills import open_drill
    from textual.widgets._markdown import MarkdownFence

    from quizbank.drills import get_drill

    deep = env / ("a-workspace-folder-with-a-long-name-" * 3) / "nested"
    app = make_app(deep, language=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_drill(pilot, "sinusoidal-pe")
        fence = screen.query_one("#drill-statement").query(MarkdownFence).first()
        await wait_for(lambda: fence.region.width > 0, 30, lambda: fence.region)
        signature = "def sinusoidal_pe(seq_len, dim, base=10000.0) -> torch.Tensor"
        assert signature in get_drill("sinusoidal-pe").text("statement", lang)
        code = fence.query_one(Label)
        assert signature.replace(" ", "") in _shown(code), _shown(code)
        assert (
            code.region.width <= fence.region.width and fence.max_scroll_x == 0
        )  # nothing left out sideways
        line = screen.query_one("#drill-file", Static)
        name = "sinusoidal-pe.py"
        await wait_for(lambda: _shown(line).endswith(name), 30, lambda: _shown(line))
        text = str(line.content)
        assert "…/" in text and text.endswith("/drills/" + name), text  # the start cut, the end kept
        assert cell_len(text) <= line.content_region.width, (text, line.content_region)
        await pilot.resize_terminal(200, 40)  # wide: more of the path, cut again to the new width
        await settle(pilot)
        path = str(deep / "data" / "drills" / name)
        await wait_for(lambda: cell_len(str(line.content)) > cell_len(text), 30, lambda: str(line.content))
        wide = str(line.content)
        assert cell_len(wide) <= line.content_region.width and path.endswith(wide.split("…", 1)[1]), wide


@pytest.mark.parametrize(
    ("cells", "shown"),
    [
        (60, "/tmp/a/long/data/dir/drills/rope-half.py"),
        (30, "…/data/dir/drills/rope-half.py"),
        (22, "…/drills/rope-half.py"),
        (13, "…rope-half.py"),  # not even "…/rope-half.py": the name's last characters
        (1, "…"),
        (0, ""),
    ],
)
def test_fit_path_keeps_the_end_of_a_path(cells: int, shown: str) -> None:
    from tui.cells import fit_path

    assert fit_path("/tmp/a/long/data/dir/drills/rope-half.py", cells) == shown


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_browse_index_takes_the_demos_place_below_120_columns(env: Path, lang: str) -> None:
    """At 80x24 `i` put the index beside the note and the demo, leaving the question 23 columns: the
    index takes the demo's place (and is narrower); `i` again, or `d`, brings the demo back. From 120
    columns all three stand side by side as before."""
    from tui.screens.browse import BrowseScreen

    app = make_app(env, language=lang, open_store=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen) and app.screen.question_id == "fx.mcq"  # has a demo
        screen = app.screen
        index, note, demo = (screen.query_one(f"#browse-{n}") for n in ("index", "note", "demo"))
        assert not index.display and demo.display
        await pilot.press("i")
        await settle(pilot)
        assert index.display and not demo.display
        assert note.region.width >= 50 and note.region.right == 80, note.region
        assert index.region.width <= 28
        await pilot.press("i")  # the index goes, the demo comes back
        await settle(pilot)
        assert not index.display and demo.display
        await pilot.press("i", "d")  # `d` with the index in its place: the demo comes back and runs
        await settle(pilot)
        assert not index.display and demo.display
        await pilot.resize_terminal(120, 40)  # wide: index, note and demo side by side
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert index.display and demo.display and index.region.width == 34, index.region


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
@pilot_test
async def test_home_type_counts_break_between_types_never_inside_one(
    env: Path, lang: str, size: tuple[int, int]
) -> None:
    """Under the topic list, `判断 65` broke between the type and its count (a terminal wraps at any
    space, and a CJK character takes two cells): each `type count` stays on one line, inside the pane."""
    from tui.i18n import tr

    app = make_app(env, language=lang, open_store=False, include_shipped=True)  # counts of 2-3 digits
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await wait_for(lambda: app.bankset is not None, 30)
        await settle(pilot)
        info = app.screen.query_one("#topic-info", Static)
        types: dict[str, int] = {}
        for question in app.bankset.questions.values():
            types[question.type] = types.get(question.type, 0) + 1
        items = [f"{tr(f'type.{name}', lang)} {n}" for name, n in types.items()]

        def lines() -> list[str]:
            return [strip.text.rstrip() for strip in info.render_lines(info.region.reset_offset)]

        await wait_for(lambda: any(items[0] in line for line in lines()), 30, lines)
        for item in items:
            assert any(item in line for line in lines()), (item, lines())
        for line in lines():
            assert cell_len(line) <= info.region.width, (line, info.region)


@pytest.mark.parametrize("lang", LANGS)
@pilot_test
async def test_stats_topic_titles_take_the_width_the_number_columns_leave(env: Path, lang: str) -> None:
    """The mastery table cut every title to 22 cells: at 80 columns, beside the leeches, its Mastery
    column was off the right edge; at 120 the table had cells to spare. Below 90 columns the tables
    stack; the titles take what the number columns leave, and nothing scrolls sideways."""
    from datetime import UTC, datetime

    from textual.widgets import DataTable

    app = long_bank_app(env, lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_for(lambda: app.bankset is not None and app.store is not None, 30)
        for qid in ("long-title.tf", "fx.mcq"):
            app.store.review(qid, 3, datetime.now(UTC))
        app.open_stats()
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        table = app.screen.query_one("#stats-mastery", DataTable)
        title = next(t for t in app.bankset.topics if t.id == "long-title").title.get(lang)

        def cell() -> str:
            rows = [table.get_row_at(i) for i in range(table.row_count)]
            return next((str(r[0]) for r in rows if title.startswith(str(r[0]).rstrip("…"))), "")

        for size, least in (((80, 24), 36), ((120, 40), 26)):  # (both were 22)
            await pilot.resize_terminal(*size)
            await settle(pilot)
            await wait_for(lambda: cell().endswith("…") and cell_len(cell()) >= least, 30, cell)  # noqa: B023
            assert table.max_scroll_x == 0 and table.virtual_size.width <= table.size.width, size
            bars = "".join(str(table.get_row_at(i)[-1]) for i in range(table.row_count))
            assert "█" in bars or "░" in bars, bars  # the mastery column, whole


@pytest.mark.parametrize(
    ("cells", "packed"),
    [
        (26, "填空 51  单选 120  判断 66"),  # two spaces apart when they fit
        (24, "填空 51 单选 120 判断 66"),  # one space apart keeps them on one line
        (23, "填空 51  单选 120\n判断 66"),  # else whole items per line
        (5, "填空 51\n单选 120\n判断 66"),  # (an item wider than the line is left to the terminal)
    ],
)
def test_pack_items_never_splits_an_item(cells: int, packed: str) -> None:
    from tui.cells import pack_items

    assert pack_items(["填空 51", "单选 120", "判断 66"], cells) == packed
