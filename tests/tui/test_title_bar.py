"""`TitleBar` draws the cells Textual's `Header` draws (tui/widgets/title_bar.py)."""

from __future__ import annotations

import pytest
from support.pilot import pilot_test, settle
from support.screen_cells import screen_cells
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Header, Static

from tui.widgets.title_bar import TitleBar

TITLES = [
    ("posenc", "position encoding, computed live"),
    ("posenc", "位置编码 · 实时计算"),
    ("posenc", ""),
    ("a rather long title for a narrow terminal", "and a sub-title that cannot fit beside it at all"),
]


class _Bar(App[None]):
    def __init__(self, bar: type, title: str, sub_title: str, screen_sub_title: str | None) -> None:
        super().__init__()
        self._bar, self._titles, self._screen_sub_title = bar, (title, sub_title), screen_sub_title

    def compose(self) -> ComposeResult:
        yield self._bar()
        yield Static("body")

    def on_mount(self) -> None:
        self.title, self.sub_title = self._titles
        if self._screen_sub_title is not None:
            self.screen.sub_title = self._screen_sub_title


def _row(app: App[None], row: int = 0) -> dict:
    return {key: cell for key, cell in screen_cells(app.export_screenshot()).items() if key[0] == row}


async def _first_rows(bar: type, width: int) -> list[dict]:
    """The top row under each of TITLES, in one app."""
    app = _Bar(bar, *TITLES[0], None)
    rows = []
    async with app.run_test(size=(width, 5)) as pilot:
        for title, sub_title in TITLES:
            app.title, app.sub_title = title, sub_title
            await settle(pilot)
            rows.append(_row(app))
    return rows


async def _first_row(
    bar: type, size: tuple[int, int], title: str, sub_title: str, screen_sub: str | None
) -> dict:
    app = _Bar(bar, title, sub_title, screen_sub)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        return _row(app)


@pilot_test
@pytest.mark.parametrize("width", [120, 80, 40, 19])
async def test_the_title_bar_draws_what_the_header_draws(width: int) -> None:
    header = await _first_rows(Header, width)
    bar = await _first_rows(TitleBar, width)
    assert bar == header
    assert all(any(char == "⭘" for char, _style, _bg in row.values()) for row in bar)
    if width >= 40:  # (at 19 columns one cell is left for the title)
        assert len({str(sorted(row.items())) for row in bar}) == len(TITLES)  # each title drew its own row


@pilot_test
async def test_a_screen_sub_title_replaces_the_apps_and_a_change_shows() -> None:
    header = await _first_row(Header, (100, 5), "posenc", "app", "drill: sinusoidal-pe")
    bar = await _first_row(TitleBar, (100, 5), "posenc", "app", "drill: sinusoidal-pe")
    assert bar == header
    text = "".join(char for (_row, _col), (char, _s, _b) in sorted(bar.items()))
    assert "drill:sinusoidal-pe" in text.replace(" ", "")

    app = _Bar(TitleBar, "posenc", "before", None)
    async with app.run_test(size=(80, 5)) as pilot:
        await settle(pilot)
        app.sub_title = "after"
        await settle(pilot)
        assert "after" in "".join(char for _key, (char, _s, _b) in sorted(_row(app).items()))


@pilot_test
async def test_a_click_on_the_icon_opens_the_command_palette() -> None:
    from textual.command import CommandPalette

    app = _Bar(TitleBar, "posenc", "x", None)
    async with app.run_test(size=(80, 5)) as pilot:
        await settle(pilot)
        await pilot.click(TitleBar, offset=(1, 0))
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)
        assert isinstance(app.screen_stack[0], Screen)
