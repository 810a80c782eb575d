"""`SafeTextArea`: Textual's TextArea, except that it never renders without its component styles.

Textual clears a widget's component styles when the widget is removed (`Widget._message_loop_exit`), but
the screen's compositor can still hold the removed widget until its next layout, and a repaint in that
window calls `TextArea.render_lines`, whose theme reads `text-area--gutter` and raises `KeyError` (Textual
issues #6208, #6528). In posenc that window opens whenever a card is replaced while its answer box is on
screen: a Study rating, a quiz's next question. Until the styles exist again this renders blank lines of
the widget's own style, which the next layout replaces anyway.

Every TextArea in the app is a SafeTextArea. `tests/tui/test_library_hooks.py` guards the private
`_component_styles` this reads (Textual is pinned to the minor version it was checked on).
"""

from __future__ import annotations

from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import TextArea

__all__ = ["SafeTextArea"]


class SafeTextArea(TextArea):
    def render_lines(self, crop: Region) -> list[Strip]:
        if not self._component_styles:  # removed (styles cleared) or not styled yet: nothing to draw
            blank = Strip.blank(crop.width, self.rich_style)
            return [blank] * crop.height
        return super().render_lines(crop)
