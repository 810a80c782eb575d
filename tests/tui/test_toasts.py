"""Notifications sit at the top right, under the header: they never cover a screen's controls at the bottom
(the Start button, an answer box, the footer's key hints), at 80x24 or 120x40."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.apps import make_app
from support.pilot import pilot_test, settle
from textual.widgets import Button, Footer
from textual.widgets._toast import Toast

from tui.screens.mock import MockSetupScreen
from tui.widgets.title_bar import TitleBar


def overlaps(a, b) -> bool:
    return bool(a.intersection(b).area)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pilot_test
async def test_a_warning_leaves_the_setup_controls_and_the_footer_visible(env: Path, size) -> None:
    app = make_app(env, open_store=False)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MockSetupScreen)
        await pilot.press("backspace", "backspace", "4", "enter")  # refused: a warning toast
        await pilot.press("backspace", "9", "9", "9", "enter")  # and another
        await settle(pilot)
        toasts = list(app.screen.query(Toast))
        assert len(toasts) == 2
        start = app.screen.query_one("#mock-start", Button).region
        topics = app.screen.query_one("#mock-topics").region
        footer = app.screen.query_one(Footer).region
        header = app.screen.query_one(TitleBar).region
        for toast in toasts:
            region = toast.region
            assert region.height <= 4 and region.right >= size[0] - 3, region  # right-aligned
            assert (
                not overlaps(region, start) and not overlaps(region, footer) and not overlaps(region, header)
            )
            assert not overlaps(region, topics), (region, topics)  # the list the user may be changing
