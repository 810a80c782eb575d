"""The command palette (tui/commands.py): the app's actions first, with their keys, above Textual's own
commands; opening a question from it."""

from __future__ import annotations

from pathlib import Path

from support.apps import make_app, palette_highlight
from support.pilot import pilot_test, settle, wait_for

from tui.screens.browse import BrowseScreen

SIZE = (100, 30)


def test_palette_lists_the_apps_actions_first_with_their_keys() -> None:
    from types import SimpleNamespace

    from tui.commands import command_targets

    calls: list[str] = []
    app = SimpleNamespace(
        language="en",
        open_quiz_setup=lambda: calls.append("quiz"),
        open_study=lambda: calls.append("study"),
        action_toggle_language=lambda: calls.append("lang"),
        open_demo=lambda: calls.append("demo"),
        open_stats=lambda: calls.append("stats"),
        action_search=lambda: calls.append("search"),
        action_reload=lambda: calls.append("reload"),
        action_help=lambda: calls.append("help"),
        require_banks=lambda: False,
        push_screen=lambda screen: calls.append(type(screen).__name__),
    )
    targets = list(command_targets(app))
    labels = [label for _kind, label, _help, _callback in targets]
    assert labels[:2] == ["Quiz  [z]", "Study  [s]"]
    assert "Switch language  [l]" in labels and "Mock interview  [m]" in labels
    assert "Glossary" in labels  # it had no entry: only Browse's `g` or a search hit reached it
    for _kind, _label, _help, callback in targets:
        callback()
    assert calls == ["quiz", "study", "lang", "demo", "stats", "GlossaryScreen", "search", "reload", "help"]


@pilot_test
async def test_palette_shows_app_actions_above_textual_commands(env: Path) -> None:
    from textual.command import CommandList, CommandPalette

    app = make_app(env, open_store=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.action_command_palette()
        await settle(pilot)
        await wait_for(
            lambda: (
                isinstance(app.screen, CommandPalette) and app.screen.query_one(CommandList).option_count >= 3
            ),
            timeout=30,
            state=lambda: f"screen {app.screen}",
        )
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        options = palette.query_one(CommandList)
        first = [str(options.get_option_at_index(i).prompt) for i in range(3)]
        assert all("command:" in text or "命令" in text for text in first), first
        assert "Quiz  [z]" in first[0]


@pilot_test
async def test_command_palette_opens_a_question(env: Path) -> None:
    from textual.command import CommandPalette

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await wait_for(lambda: isinstance(app.screen, CommandPalette), timeout=30)
        await pilot.press(*"fx.cloze")

        await wait_for(
            lambda: "fx.cloze" in palette_highlight(app), timeout=30, state=lambda: palette_highlight(app)
        )
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)
        assert app.screen.question_id == "fx.cloze"
