"""`SafeTextArea`: Textual's TextArea, except that it never renders without its component styles, and that
a code editor keeps its indentation and moves to either end of the file.

Textual clears a widget's component styles when the widget is removed (`Widget._message_loop_exit`), but
the screen's compositor can still hold the removed widget until its next layout, and a repaint in that
window calls `TextArea.render_lines`, whose theme reads `text-area--gutter` and raises `KeyError` (Textual
issues #6208, #6528). In posenc that window opens whenever a card is replaced while its answer box is on
screen: a Study rating, a quiz's next question. Until the styles exist again this renders blank lines of
the widget's own style, which the next layout replaces anyway.

Editing (every SafeTextArea): Ctrl+Home and Ctrl+End go to the start and the end of the text (with Shift,
selecting), as in other editors; Textual binds neither. A code editor (`SafeTextArea.code_editor`, or
`auto_indent=True`: the drill editor, the mock interview's code box) also indents on Enter: the new line
starts with the indentation of the line above, one level (`indent_width` spaces, or a tab) deeper after a
line ending in `:`.

Every TextArea in the app is a SafeTextArea. `tests/tui/test_library_hooks.py` guards the private
`_component_styles` this reads (Textual is pinned to the minor version it was checked on).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import TextArea

__all__ = ["SafeTextArea", "next_line_indent"]


def next_line_indent(before: str, indent: str) -> str:
    """The indentation Enter gives the new line, for the text `before` the cursor on its line: that line's
    own indentation, and `indent` more after a `:` (a Python block opens)."""
    own = before[: len(before) - len(before.lstrip(" \t"))]
    return own + indent if before.rstrip().endswith(":") else own


class SafeTextArea(TextArea):
    BINDINGS = [
        Binding("ctrl+home", "cursor_document_start", "Start of the text", show=False),
        Binding("ctrl+end", "cursor_document_end", "End of the text", show=False),
        Binding("ctrl+shift+home", "cursor_document_start(True)", "Select to the start", show=False),
        Binding("ctrl+shift+end", "cursor_document_end(True)", "Select to the end", show=False),
    ]

    def __init__(self, *args: Any, auto_indent: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.auto_indent = auto_indent

    @classmethod
    def code_editor(cls, *args: Any, **kwargs: Any) -> SafeTextArea:
        """Textual's code editor (line numbers, Tab indents, no soft wrap), indenting on Enter."""
        editor = super().code_editor(*args, **kwargs)
        assert isinstance(editor, SafeTextArea)
        editor.auto_indent = True
        return editor

    def render_lines(self, crop: Region) -> list[Strip]:
        if not self._component_styles:  # removed (styles cleared) or not styled yet: nothing to draw
            blank = Strip.blank(crop.width, self.rich_style)
            return [blank] * crop.height
        return super().render_lines(crop)

    async def _on_key(self, event: events.Key) -> None:
        """Enter in a code editor: a new line with the indentation `next_line_indent` gives it (runs before
        TextArea's own `_on_key`, which then inserts nothing)."""
        if event.key != "enter" or not self.auto_indent or self.read_only:
            return
        event.stop()
        event.prevent_default()
        start, end = self.selection
        row, column = min(start, end)
        indent = "\t" if self.indent_type == "tabs" else " " * self.indent_width
        text = "\n" + next_line_indent(self.document[row][:column], indent)
        self.replace(text, start, end, maintain_selection_offset=False)
        self.scroll_cursor_visible()

    def action_cursor_document_start(self, select: bool = False) -> None:
        self.move_cursor((0, 0), select=select)

    def action_cursor_document_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)
