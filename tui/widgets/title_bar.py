"""`TitleBar`: the line at the top of every screen, as Textual's `Header` draws it, in one widget.

Textual's `Header` is four widgets (the bar, the icon, the title and the clock's space), each mounted,
styled and laid out on its own, with four watchers that set the title four times as it mounts: about 8 ms
of the app's start before Home's first paint, a third of what posenc adds to a bare Textual app's. This
draws the same cells from one widget: the icon in the first ICON_CELLS, the app's `format_title` of the
screen's (else the app's) title and sub-title centred between them and the clock's CLOCK_CELLS, cut with
"…" when it does not fit. A click on the icon opens the command palette, as the Header's icon does; the
Header's other click (a three-row header) is left out.
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widget import Widget

__all__ = ["CLOCK_CELLS", "ICON", "ICON_CELLS", "TitleBar"]

ICON = "⭘"
ICON_CELLS = 8  # Textual's HeaderIcon: width 8, padding 0 1
CLOCK_CELLS = 10  # Textual's HeaderClockSpace: width 10


class TitleBar(Widget):
    """One line, docked at the top: the icon, then the title and sub-title, centred."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
    }
    """

    def on_mount(self) -> None:
        for owner in (self.app, self.screen):
            self.watch(owner, "title", self._retitle, init=False)
            self.watch(owner, "sub_title", self._retitle, init=False)

    def _retitle(self) -> None:
        self.refresh()

    def title_content(self) -> Content:
        """The screen's title and sub-title (else the app's), as the app formats them."""
        screen, app = self.screen, self.app
        title = screen.title if screen.title is not None else app.title
        sub_title = screen.sub_title if screen.sub_title is not None else app.sub_title
        return app.format_title(title, sub_title)

    def render(self) -> Content:
        width = self.size.width
        middle = max(0, width - ICON_CELLS - CLOCK_CELLS)
        title = self.title_content().truncate(middle, ellipsis=True)
        left = (middle - title.cell_length) // 2  # as Textual centres a line (content-align: center)
        icon = f" {ICON}".ljust(ICON_CELLS)
        line = Content.assemble(icon, " " * left, title, " " * (middle - left - title.cell_length))
        return line.truncate(width)

    async def on_click(self, event: events.Click) -> None:
        if event.x < ICON_CELLS:
            event.stop()
            await self.run_action("app.command_palette")
