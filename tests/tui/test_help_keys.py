"""Help is generated from the live bindings, and every key it lists does something on its screen.

For each section, the screen is opened afresh for every key Help lists there; the key is pressed
(after the few keys that put the screen in the state where it applies, e.g. reveal before rating),
and the test asserts an effect a user can see or that is recorded: the screen, focus, the text on
screen, the language, a notification, the banks or the store changed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from support.apps import make_app, screen_text, start_quiz
from support.pilot import pilot_test, settle, wait_for

from quizbank.quiz_session import QuizConfig, QuizSession
from tui.screens.help import help_groups, help_sections, section_bindings

SIZE = (120, 40)


@pilot_test
async def test_help_lists_every_binding_of_every_screen_and_only_real_keys(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        groups = help_groups(app)
        titles = [title for title, _rows in groups]
        assert titles[:2] == ["Everywhere", "Home"]
        for wanted in (
            "Quiz",
            "Browse",
            "Study",
            "Demo lab",
            "Drills",
            "Mock interview",
            "Glossary",
            "Search",
            "Stats",
        ):
            assert wanted in titles, wanted
        listed = {one for _t, rows in groups for _k, _d, binding_id in rows for one in _ids(binding_id)}
        for _title, section_cls in help_sections():
            cls = type(app) if section_cls is None else section_cls
            for binding in section_bindings(cls):
                if binding.id:
                    assert binding.id in listed, binding.id
        # every key a keymap can remap is documented somewhere (dialogs and widgets included)
        from tui.keys import binding_ids

        assert not set(binding_ids()) - listed, sorted(set(binding_ids()) - listed)
        question = dict(groups)["Answering a question"]
        assert ("t", "Answer true", "posenc.answer_true") in question
        assert ("f", "Answer false", "posenc.answer_false") in question
        assert ("y", "Got it", "posenc.self_yes") in question
        assert ("x", "Missed", "posenc.self_no") in question
        assert ("1–9", "Choose (mcq answers, multi toggles)", "posenc.choose1…choose9") in question
        assert ("m", "Flag", "posenc.flag") in dict(groups)["Quiz"]  # f answers "false", so flag is m
        assert not any("y / n" in keys or "t / f" in keys for _t, rows in groups for keys, _d, _i in rows)
        # a remap shows in Help as what is bound
        app._keymap = {"posenc.flag": "!"}
        assert ("!", "Flag", "posenc.flag") in dict(help_groups(app))["Quiz"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pilot_test
async def test_help_rows_fit_the_box_so_no_binding_id_wraps(
    env: Path, lang: str, size: tuple[int, int]
) -> None:
    """At 80x24 a row whose description and id do not fit puts the id on its own line in the id
    column; nothing wraps to the box's left edge."""
    from rich.cells import cell_len
    from textual.widgets import Static

    app = make_app(env, language=lang)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        text = app.screen.query_one("#help-text", Static)
        width = text.content_region.width
        lines = str(text.content).splitlines()
        assert lines and width > 0
        too_long = [line for line in lines if cell_len(line) > width]
        assert not too_long, (width, too_long[:3])
        ids = {binding_id for _t, rows in help_groups(app) for _k, _d, binding_id in rows if binding_id}
        found = {word for line in lines for word in line.split() if word.startswith("posenc.")}
        assert ids <= found, sorted(ids - found)[:5]
        columns = {
            cell_len(line[: line.index(word)])
            for line in lines
            for word in line.split()
            if word.startswith("posenc.")
        }
        assert len(columns) == 1, columns  # one id column
        await pilot.resize_terminal(size[0] + 40, size[1])  # wider: the layout follows
        await settle(pilot)
        assert all(cell_len(line) <= text.content_region.width for line in str(text.content).splitlines())


@pilot_test
async def test_help_starts_at_the_section_of_the_screen_it_was_opened_from(env: Path) -> None:
    """Help opened from Quiz setup started at the top (Everywhere) and the setup's keys were a scroll away."""
    from textual.containers import VerticalScroll

    from tui.screens.help import HelpScreen
    from tui.screens.quiz import QuizSetupScreen

    app = make_app(env)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot)
        assert isinstance(app.screen, QuizSetupScreen)
        await pilot.press("question_mark")
        await settle(pilot)

        def scrolled() -> bool:  # Help scrolls to its section once laid out
            screen = app.screen
            return isinstance(screen, HelpScreen) and (
                screen.query_one("#help-box", VerticalScroll).scroll_y == screen.section_line > 0
            )

        await wait_for(scrolled, timeout=30, state=lambda: app.screen)
        help_screen = app.screen
        box = help_screen.query_one("#help-box", VerticalScroll)
        lines = str(help_screen.query_one("#help-text").content).splitlines()
        assert lines[help_screen.section_line] == "Quiz setup" and help_screen.section_line > 10
        assert box.scroll_y == help_screen.section_line
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, QuizSetupScreen)
        app.pop_screen()
        await settle(pilot)
        await pilot.press("question_mark")  # from Home: its own section
        await settle(pilot)
        home_help = app.screen
        assert isinstance(home_help, HelpScreen) and home_help.section_line < help_screen.section_line
        text = str(home_help.query_one("#help-text").content).splitlines()
        assert text[home_help.section_line] == "Home"
        assert home_help.query_one("#help-box", VerticalScroll).scroll_y == home_help.section_line


def _ids(listed: str) -> list[str]:
    """The binding ids of a Help row: "posenc.choose1…choose9" -> posenc.choose1 … posenc.choose9."""
    if "…" not in listed:
        return [listed]
    first, last = listed.split("…")
    stem, start = first[:-1], int(first[-1])
    return [f"{stem}{n}" for n in range(start, int(last[-1]) + 1)]


def fingerprint(app: Any) -> tuple:
    store = app.store
    return (
        type(app.screen).__name__,
        len(app.screen_stack),
        repr(app.focused),
        screen_text(app),
        app.language,
        len(app._notifications),
        app.banks_version,
        len(store.review_rows()) if store is not None else 0,
        repr(store.question_marks()) if store is not None else "",
        tuple(
            (getattr(view.answer, "highlight", None), getattr(view.answer, "cursor_moved", None))
            for view in app.screen.query("QuestionView")
        ),
        # a rerun that draws the same numbers
        tuple(getattr(panel, "run_id", 0) for panel in app.screen.query("DemoPanel")),
    )


Opener = Callable[[Any], Awaitable[None]]


async def _study(pilot: Any) -> None:
    from tui.screens.study import StudyScreen

    pilot.app.store.set_setting("enable_fuzzing", False)
    await pilot.app.push_screen(StudyScreen(pilot.app.bankset.topics[0].id))
    await settle(pilot)


async def _push(pilot: Any, spec: str, *args: Any) -> None:
    import importlib

    module_name, _, class_name = spec.partition(":")
    await pilot.app.push_screen(getattr(importlib.import_module(module_name), class_name)(*args))
    await settle(pilot)


async def _summary(pilot: Any) -> None:
    session = QuizSession(QuizConfig(seed=1), ["fx.mcq", "fx.truefalse"])
    session.end()
    await _push(pilot, "tui.screens.quiz.summary:QuizSummaryScreen", session)


# section title -> how to open its screen
OPENERS: dict[str, Opener] = {
    "Everywhere": lambda p: _push(p, "tui.screens.browse:BrowseScreen", p.app.bankset.topics[0].id),
    "Home": lambda p: settle(p),
    "Quiz setup": lambda p: _push(p, "tui.screens.quiz.setup:QuizSetupScreen"),
    "Quiz": lambda p: start_quiz(p, ["fx.mcq", "fx.truefalse"]),
    "Quiz summary": _summary,
    "Browse": lambda p: _push(p, "tui.screens.browse:BrowseScreen", p.app.bankset.topics[0].id),
    "Study": _study,
    "Demo lab": lambda p: _push(p, "tui.screens.demo_lab:DemoLabScreen", "alibi-bias"),
    "Stats": lambda p: _push(p, "tui.screens.stats:StatsScreen"),
}

# binding id -> (opener override, keys that put the screen in the state where the key applies)
SETUP: dict[str, tuple[Opener | None, tuple[str, ...]]] = {
    "posenc.answer_true": (lambda p: start_quiz(p, ["fx.truefalse"]), ()),
    "posenc.answer_false": (lambda p: start_quiz(p, ["fx.truefalse"]), ()),
    "posenc.choice_pick": (lambda p: start_quiz(p, ["fx.mcq"]), ("down",)),
    "posenc.self_yes": (lambda p: start_quiz(p, ["fx.literal"]), ("space",)),
    "posenc.self_no": (lambda p: start_quiz(p, ["fx.literal"]), ("space",)),
    "posenc.leave_input": (lambda p: start_quiz(p, ["fx.numeric"]), ("1",)),
    "posenc.hint": (lambda p: start_quiz(p, ["fx.numeric"]), ()),
    "posenc.no_hint": (lambda p: start_quiz(p, ["fx.numeric"]), ()),  # the fixture has no hints: both say so
    "posenc.study.undo": (_study, ("enter", "3")),
    "posenc.study.undo_anywhere": (_study, ("enter", "3")),
    "posenc.study.demo": (_study, ("enter",)),
    **{f"posenc.study.rate{n}": (_study, ("enter",)) for n in range(1, 5)},
    "posenc.summary.retry": (None, ()),
    "posenc.quiz.reload": (None, ()),
}
# binding id -> what to change behind the screen's back first, so that a refresh has something to show
PREPARE: dict[str, Callable[[Any], Any]] = {
    "posenc.stats.refresh": lambda app: app.store.review("fx.mcq", 3, None, 1000),
    # the same "no hints" toast as the key before: gone first, so that a toast timing out is no false pass
    "posenc.hint": lambda app: app.clear_notifications(),
    "posenc.no_hint": lambda app: app.clear_notifications(),
}
# Listed in Help but not pressed here, each with the reason (covered elsewhere or needs what the fixture lacks)
NOT_PRESSED = {
    "posenc.quit": "ends the app (test_tui_flows covers Ctrl+Q)",
    "posenc.quiz.quit": "ends the app",
    "posenc.summary.quit": "ends the app",
    "posenc.open_drill": "no fixture question links a drill (test_drills_tui covers `c`)",
    "posenc.read": "only in a single 'try it' question (test_tui_flows covers `o`)",
}
# sections whose screen needs more than the fixture (drills run code; search/glossary are typing screens
# with their own tests; the modal note and mock setup/report are reached through other screens)
SKIPPED_SECTIONS = {
    "Answering a question",
    "Typing an open answer",  # Enter, Ctrl+R and Esc in the box: test_open_answers presses each
    "Editing a note",
    "Drills",
    "Mock interview",
    "Mock interview setup",
    "Mock interview report",
    "Glossary",
    "Search",
}


KEY_NAMES = {
    "?": "question_mark",
    "/": "slash",
    "^z": "ctrl+z",
    "^p": "ctrl+p",
    "^r": "ctrl+r",
    "^q": "ctrl+q",
    "^s": "ctrl+s",
    "esc": "escape",
    "↑": "up",
    "↓": "down",
    "⏎": "enter",
}


def _press_key(keys: str) -> str:
    """The key to press for a Help row ("1–9" -> "1", "?" -> "question_mark")."""
    first = keys.split(",")[0].strip().split("–")[0]
    return KEY_NAMES.get(first, first)


@pytest.mark.slow
@pytest.mark.parametrize("section", [s for s in OPENERS])
@pilot_test
async def test_every_key_help_lists_has_an_effect_on_its_screen(env: Path, section: str) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await wait_for(lambda: app.bankset is not None and app.store is not None, timeout=30)
        rows = dict(help_groups(app))[section]
        if section == "Quiz":
            rows = rows + dict(help_groups(app))["Answering a question"]
        pressed = 0
        for keys, _description, binding_id in rows:
            if binding_id in NOT_PRESSED or not binding_id:
                continue
            opener, before = SETUP.get(binding_id.split("…")[0], (None, ()))
            while len(app.screen_stack) > 1:
                app.pop_screen()
                await settle(pilot)
            await (opener or OPENERS[section])(pilot)
            for key in before:
                await pilot.press(key)
                await settle(pilot)
            if binding_id in PREPARE:
                PREPARE[binding_id](app)
            state = fingerprint(app)
            await pilot.press(_press_key(keys))
            await settle(pilot)
            await wait_for(
                lambda state=state: fingerprint(app) != state,
                timeout=10,
                state=lambda section=section, keys=keys, bid=binding_id: (
                    f"{section}: {keys} ({bid}) did nothing"
                ),
            )
            pressed += 1
        assert pressed >= 1


def test_each_screen_names_its_help_section_and_help_finds_them_in_order() -> None:
    """No table to keep: a class with `HELP_SECTION` under tui/screens or tui/widgets is a section of Help, in
    its order, and each section's title is a string in both languages."""
    from textual.screen import Screen

    from tui.help_section import HelpSection
    from tui.strings import STRINGS

    sections = help_sections()
    assert sections[0] == ("help.global", None)
    classes = [cls for _title, cls in sections[1:]]
    assert all(cls is not None for cls in classes)
    orders = [cls.__dict__["HELP_SECTION"].order for cls in classes if cls is not None]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)
    titles = [title for title, _cls in sections]
    assert len(set(titles)) == len(titles) and all(title in STRINGS for title in titles)
    names = {cls.__name__ for cls in classes if cls is not None}
    assert {"HomeScreen", "QuizScreen", "StudyScreen", "DrillScreen", "MockInterviewScreen"} <= names
    assert {"QuestionView", "OpenAnswerArea", "ConfirmScreen", "StatsScreen"} <= names
    # every full screen with keys of its own says where they go
    import importlib
    import pkgutil

    import tui.screens

    for info in pkgutil.walk_packages(tui.screens.__path__, "tui.screens."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Screen)
                and value.__module__ == module.__name__
                and section_bindings(value)
                and value.__name__ != "HelpScreen"
            ):
                assert isinstance(value.__dict__.get("HELP_SECTION"), HelpSection), value
