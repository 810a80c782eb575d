"""The code editors (the drill screen's, the mock interview's code box: `tui.widgets.text_area.SafeTextArea`):
Enter keeps the indentation of the line above and opens a level after a `:`, Ctrl+End and Ctrl+Home go to
the end and the start of the file. Prose boxes (open answers) keep Enter as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import make_app
from support.pilot import pilot_test, settle
from textual.app import App, ComposeResult
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from tui.screens.drill import DrillScreen
from tui.widgets.text_area import SafeTextArea, next_line_indent

SIZE = (120, 40)


@pytest.mark.parametrize(
    ("before", "indent"),
    [
        ("def f(x):", "    "),
        ("    if x:", "        "),
        ("    if x:   ", "        "),  # spaces after the colon
        ("    y = 1", "    "),
        ("\ty = 1", "\t"),
        ("", ""),
        ("    ", "    "),  # Enter inside the indentation keeps what is left of the cursor
        ("x = {'a':", "    "),
    ],
)
def test_next_line_indent(before: str, indent: str) -> None:
    assert next_line_indent(before, "    ") == indent


async def open_editor(pilot, env: Path) -> tuple[DrillScreen, TextArea]:
    app = pilot.app
    await settle(pilot)
    await pilot.press("c")  # Home: coding drills
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, DrillScreen)
    editor = screen.query_one("#drill-code", TextArea)
    editor.text = "import torch\n\n\ndef f(x):\n    y = x + 1"
    await pilot.press("i")  # into the editor
    await settle(pilot)
    assert app.focused is editor
    return screen, editor


@pilot_test
async def test_enter_in_the_drill_editor_keeps_the_indentation_and_opens_a_block_after_a_colon(
    env: Path,
) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        _screen, editor = await open_editor(pilot, env)
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert editor.cursor_location == (4, 13)  # the end of the file
        await pilot.press("enter", *"if y", "colon", "enter", *"return", "space", "y")
        await settle(pilot)
        assert editor.text.splitlines()[4:] == ["    y = x + 1", "    if y:", "        return y"]
        await pilot.press("ctrl+home")
        await settle(pilot)
        assert editor.cursor_location == (0, 0)
        await pilot.press("ctrl+end", "enter", "enter")  # an empty line keeps the level too
        await settle(pilot)
        assert editor.text.endswith("        return y\n        \n        ")
        assert editor.cursor_location == (8, 8)


@pilot_test
async def test_enter_over_a_selection_replaces_it_with_the_indented_line(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        _screen, editor = await open_editor(pilot, env)
        editor.selection = Selection((4, 4), (4, 9))  # "y = x" of "    y = x + 1"
        await pilot.press("enter")
        await settle(pilot)
        assert editor.text.splitlines()[4:] == ["    ", "     + 1"]
        assert editor.cursor_location == (5, 4)


@pilot_test
async def test_ctrl_shift_end_selects_to_the_end_of_the_file(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        _screen, editor = await open_editor(pilot, env)
        editor.move_cursor((3, 0))
        await pilot.press("ctrl+shift+end")
        await settle(pilot)
        assert editor.selected_text == "def f(x):\n    y = x + 1"
        await pilot.press("ctrl+shift+home")
        await settle(pilot)
        assert editor.selected_text == "import torch\n\n\n"


class Boxes(App[None]):
    def compose(self) -> ComposeResult:
        yield SafeTextArea("if x:", id="prose", soft_wrap=True, tab_behavior="focus")
        yield SafeTextArea("if x:", id="code", tab_behavior="indent", auto_indent=True)


@pilot_test
async def test_only_code_editors_indent_on_enter() -> None:
    app = Boxes()
    async with app.run_test() as pilot:
        for box, expected in (("prose", "if x:\n"), ("code", "if x:\n    ")):
            area = app.query_one(f"#{box}", SafeTextArea)
            area.focus()
            area.move_cursor(area.document.end)
            await pilot.press("enter")
            await pilot.pause()
            assert area.text == expected, box
