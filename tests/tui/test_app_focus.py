"""The footer's key hints in a tab that starts without focus (posenc serve: the web driver starts the app
blurred, and a key or a click gives it focus without a focus event): they show at once, focus or not."""

from __future__ import annotations

from pathlib import Path

from support.apps import make_app
from support.pilot import pilot_test, settle
from textual.app import App
from textual.widgets import Footer


def footer_text(app) -> str:
    footer = app.screen.query_one(Footer)
    return " ".join(str(key.render()) for key in footer.children)


@pilot_test
async def test_home_footer_shows_its_keys_in_a_blurred_tab_and_after_the_first_key(env: Path) -> None:
    app = make_app(env, open_store=False)
    app.set_reactive(App.app_focus, False)  # as the web driver leaves it (an AppBlur at start)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.app_focus
        text = footer_text(app)
        assert "Search" in text and "Help" in text, text  # the served tab showed nothing until a key
        await pilot.press("down")  # a key: Textual gives the app focus, with no focus event
        await settle(pilot)
        assert app.app_focus
        text = footer_text(app)
        assert "Search" in text and "Help" in text, text


@pilot_test
async def test_a_tab_that_gets_focus_follows_the_language_another_tab_chose(env: Path) -> None:
    """posenc serve: a tab (or the spare, started ahead) read the language when it started; the user then
    switched it in another tab. When this tab gets focus it follows the saved choice."""
    from textual import events

    from quizbank.progress.store import open_store

    app = make_app(env, language=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.language == "en" and app.store is not None
        app.post_message(events.AppBlur())
        await settle(pilot)
        other = open_store(env / "data")  # another tab's app
        other.set_setting("language", "zh")
        other.close()
        app.post_message(events.AppFocus())
        await settle(pilot)
        assert app.language == "zh"
        assert "帮助" in footer_text(app)
