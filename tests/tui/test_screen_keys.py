"""Keys typed across a screen change (tui/keyorder.py): posted to the app all at once, as a browser tab's
keys arrive, the keys after the one that opens a screen reach the new screen, in order; none is lost and
none runs on the screen that was left."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import make_app
from support.pilot import pilot_test, post_keys, settle
from textual.widgets import TextArea

from quizbank.drills import DRILL_NAMES, get_drill
from tui.screens.drill import DrillScreen
from tui.screens.home import HomeScreen

SIZE = (120, 40)


def editor_text(app) -> str:
    return app.screen.query_one("#drill-code", TextArea).text


@pilot_test
async def test_text_typed_with_the_key_that_opens_the_drill_screen_goes_into_the_file(env: Path) -> None:
    starter = get_drill(DRILL_NAMES[0]).starter
    for edit_key in ("i", "\r"):
        app = make_app(env / edit_key.strip())
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, HomeScreen)
            await post_keys(app, list(f"c{edit_key}# typed at once"))  # one read
            await settle(pilot)
            assert isinstance(app.screen, DrillScreen)
            assert isinstance(app.focused, TextArea)
            assert editor_text(app) == "# typed at once" + starter, edit_key


@pilot_test
async def test_keys_after_a_screen_change_run_on_the_new_screen_in_order(env: Path) -> None:
    """`c` opens the Drill screen, `i` and `ab` edit, Esc leaves the editor, `h` shows a hint (a Drill key,
    nothing on Home); then `q` goes back Home, and the file holds the text."""
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await post_keys(app, list("ciab\x1bh"))
        await settle(pilot)
        drill = app.screen
        assert isinstance(drill, DrillScreen)
        assert drill.hints_shown == 1 and not isinstance(app.focused, TextArea)
        assert editor_text(app) == "ab" + get_drill(DRILL_NAMES[0]).starter
        await post_keys(app, ["q"])
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert drill.path.read_text(encoding="utf-8") == "ab" + get_drill(DRILL_NAMES[0]).starter


@pytest.mark.slow
@pilot_test
async def test_keys_arriving_while_a_screen_mounts_are_held_then_typed_there(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(DrillScreen())
        assert not app.screen.is_mounted  # its compose has not run yet
        await post_keys(app, list("ixy"))
        await settle(pilot)
        assert isinstance(app.focused, TextArea)
        assert editor_text(app).startswith("xy")
