"""Shared screen behaviour: footer descriptions and texts that follow the app language and banks."""

from __future__ import annotations

from textual.screen import Screen

from ..appref import posenc_app
from ..keys import localize_bindings

__all__ = ["LocalizedScreen"]


class LocalizedScreen(Screen):
    """A screen whose footer follows the app language and that re-renders on language change."""

    def on_mount(self) -> None:
        localize_bindings(self, posenc_app(self).language)
        self.watch(self.app, "language", self._on_language, init=False)
        self.watch(self.app, "banks_version", self._on_banks, init=False)

    def _on_language(self) -> None:
        localize_bindings(self, posenc_app(self).language)
        self.relabel()
        # a button's auto width was measured for the old label (a label change only repaints it):
        # measure again, or "Start quiz" shows as "Start" in a button sized for 开始测验
        for button in self.query("Button, ToggleButton"):
            button.clear_cached_dimensions()
            button.refresh(layout=True)

    def _on_banks(self) -> None:
        self.banks_reloaded()

    def relabel(self) -> None:
        """Re-render UI strings in the current language."""

    def banks_reloaded(self) -> None:
        """React to `app.bankset` being replaced."""
