"""The Demo lab's keys and its Predict screen: `p` predicts with the demo picker focused; letters typed
in the picker's open list search it and never act as keys; Predict is a modal as large as its text,
under the lab's demo, and the lab hides its result meanwhile."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import make_app
from support.pilot import pilot_test, settle, wait_for

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
async def test_letters_typed_in_the_open_demo_list_jump_to_the_demo_named_so(env: Path) -> None:
    """Typing `rope-dec` in the open list opened Predict at `p` and typed `e-dec` into its box; the
    letters now search the list (type-ahead) and reach none of the lab's or the app's keys."""
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lab = DemoLabScreen("alibi-slopes")
        await app.push_screen(lab)
        await settle(pilot)
        await pilot.press("enter", *"rope-dec")
        await settle(pilot)
        assert app.screen is lab  # `p` predicted, `q` would go back, `r` reload, `l` switch language
        overlay = app.focused
        assert type(overlay).__name__ == "SelectOverlay"
        names = list(lab.demos)
        assert names[overlay.highlighted] == "rope-decay"
        assert "p" not in lab.active_bindings and "d" not in lab.active_bindings  # the footer offers neither
        await pilot.press("enter")
        await settle(pilot)
        assert lab.demo_name == "rope-decay" and lab.query_one("#lab-demo").value == "rope-decay"


@pilot_test
async def test_no_letter_typed_in_the_open_demo_list_acts_as_a_key(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lab = DemoLabScreen("alibi-slopes")
        await app.push_screen(lab)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        for letter in "pdlqr":  # predict, run, language, back, reload
            await pilot.press(letter)
            await settle(pilot)
            assert app.screen is lab and app.language == "en", letter
            assert lab.query_one("#lab-demo").expanded, letter
        names = list(lab.demos)
        assert names[app.focused.highlighted] == "packing-positions"  # `p`; no name starts with `pd`
        await pilot.press("escape", "p")  # closed again, `p` predicts as before
        await settle(pilot)
        assert isinstance(app.screen, PredictScreen) and app.screen.demo.name == "alibi-slopes"


@pilot_test
async def test_the_open_demo_list_says_its_escape_key_in_chinese(env: Path) -> None:
    """Textual's own "Dismiss menu" (the open Select's Esc) showed in English in a Chinese footer."""
    from textual.widgets._footer import FooterKey

    from tui.widgets.key_footer import KeyFooter

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.language = "zh"
        lab = DemoLabScreen("alibi-slopes")
        await app.push_screen(lab)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert lab.query_one("#lab-demo").expanded

        def shown() -> list[str]:
            return [key.description for key in lab.query_one(KeyFooter).query(FooterKey)]

        await wait_for(lambda: "关闭菜单" in shown(), timeout=30, state=shown)
        assert "Dismiss menu" not in shown()


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


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pilot_test
async def test_predict_is_a_modal_as_large_as_its_text_under_the_labs_demo(env: Path, size) -> None:
    """Predict covered the whole lab; it is now as large as its text, at the bottom, so the demo, its
    claim and the picker stay in view above it. The lab's result (the answer) is hidden meanwhile."""
    app = make_app(env)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        lab = DemoLabScreen("alibi-slopes")
        await app.push_screen(lab)
        await settle(pilot)
        results = lab.query_one("#lab-panel").query_one("#demo-results")
        assert results.display and results.children  # the lab shows its run
        await pilot.press("p")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PredictScreen)
        box = screen.query_one("PredictScreen > Vertical").region
        assert box.width <= min(90, size[0]) and box.height <= 10, box
        assert box.bottom == size[1] - 1  # on the screen's own key footer
        picker, claim = lab.query_one("#lab-demo").region, lab.query_one("#lab-claim").region
        assert picker.height and not picker.overlaps(box), (picker, box)
        assert claim.y + 3 <= box.y, (claim, box)  # the demo's title and its claim's first lines at least
        assert not results.display  # the answer stays hidden under the modal
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is lab and results.display


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pilot_test
async def test_the_added_toast_leaves_the_predict_title_in_view(env: Path, size) -> None:
    app = make_app(env)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        await app.push_screen(DemoLabScreen("alibi-slopes"))
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PredictScreen)
        await pilot.press(*"0.5", "enter", "a")
        await settle(pilot)
        (card,) = app.store.own_card_ids()  # a Study card in the progress store, no bank file
        assert card.startswith("predict.alibi-slopes.") and not list((env / "user-banks").iterdir())
        assert [n.message for n in app._notifications] == ["Added to Study as a card."]
        toasts = list(screen.query("Toast"))
        title = screen.query_one("#predict-title").region
        assert toasts and title.height
        for toast in toasts:
            assert not toast.region.overlaps(title), (toast.region, title)
