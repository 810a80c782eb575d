"""Check boxes and radio buttons whose state shows in the glyph (✓ / blank, ● / ○), not only in colour."""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, RadioButton, SelectionList
from textual.widgets._toggle_button import ToggleButton

__all__ = ["GlyphCheckbox", "GlyphRadioButton", "GlyphSelectionList"]

CHECKED, UNCHECKED = "✓", " "


class _StartsOn:
    """A toggle built already on: Textual assigns the initial value, and the assignment's watcher
    restyles the new (not yet mounted) button at once; a form of them paid that per button."""

    def __init__(self, label: Any = "", value: bool = False, *args: Any, **kwargs: Any) -> None:
        super().__init__(label, False, *args, **kwargs)  # type: ignore[call-arg]
        if value:  # set, not assigned (no watcher: no restyle, no Changed, as Textual's own start)
            self.set_reactive(ToggleButton.value, True)  # type: ignore[attr-defined]
            self.add_class("-on", update=False)  # type: ignore[attr-defined]


class GlyphCheckbox(_StartsOn, Checkbox):
    """A Checkbox drawn ▐✓▌ when on and ▐ ▌ when off."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # (Textual's name)
        return CHECKED if self.value else UNCHECKED


class GlyphRadioButton(_StartsOn, RadioButton):
    """A RadioButton drawn ● when pressed and ○ when not."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "●" if self.value else "○"


class GlyphSelectionList(SelectionList[str]):
    """A SelectionList whose check mark is ✓ for a selected line and blank otherwise."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        _, scroll_y = self.scroll_offset
        try:
            selection = self.get_option_at_index(scroll_y + y)
        except Exception:  # noqa: BLE001 - a line past the options renders as it is
            return strip
        if len(segments) < 3:
            return strip
        inner = segments[1]
        glyph = CHECKED if selection.value in self._selected else UNCHECKED
        segments[1] = Segment(glyph, inner.style, inner.control)
        return Strip(segments, strip.cell_length)
