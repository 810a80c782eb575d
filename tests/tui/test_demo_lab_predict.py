"""`p` (predict) in the Demo lab works wherever Help says it does: with the demo picker focused, and
from the picker's open list, where it predicts the highlighted demo."""

from __future__ import annotations

from pathlib import Path

from support.apps import make_app
from support.pilot import pilot_test, settle

from tui.screens.demo_lab import DemoLabScreen
from tui.screens.predict import PredictScreen

SIZE = (120, 40)


@pilot_test
async def test_p_with_the_demo_picker_focused_predicts_the_current_demo(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(DemoLabScreen("alibi-slopes"))
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "lab-demo"
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, PredictScreen)
        assert app.screen.demo.name == "alibi-slopes"


@pilot_test
async def test_p_in_the_open_demo_list_predicts_the_highlighted_demo(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lab = DemoLabScreen("alibi-slopes")
        await app.push_screen(lab)
        await settle(pilot)
        names = list(lab.demos)
        expected = names[names.index("alibi-slopes") + 1]
        await pilot.press("enter", "down")  # open the list, highlight the next demo
        await settle(pilot)
        assert type(app.focused).__name__ == "SelectOverlay"
        assert "p" in lab.active_bindings and lab.active_bindings["p"].enabled  # the footer offers it
        await pilot.press("p")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PredictScreen), type(screen).__name__
        assert screen.demo.name == expected
        assert screen.params == screen.demo.resolve_params({})  # at its defaults
        app.pop_screen()
        await settle(pilot)
        assert app.screen is lab and lab.demo_name == expected  # the lab follows the pick
        select = lab.query_one("#lab-demo")
        assert not select.expanded and select.value == expected


@pilot_test
async def test_the_predict_title_writes_parameters_as_the_demo_panel_does(env: Path) -> None:
    """The title read "causal=True" (Python's spelling) over a panel that says "causal=true"."""
    from support.apps import screen_text

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(DemoLabScreen("alibi-bias"))
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, PredictScreen)
        title = next(line for line in screen_text(app).splitlines() if "Predict, then reveal" in line)
        assert "causal=true" in title and "True" not in title, title
