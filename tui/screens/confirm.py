"""A yes/no question in a modal: "End the interview?" (mock interview), "Show the model solution?" (Drill).

`ConfirmScreen` shows a question, a line that says what each answer does, and two buttons. `y` (or Enter on
the yes button, which has focus) confirms and dismisses it with True; `n` or Esc (or the no button) with
False. The caller passes every text already in the app's language (`tr(...)`), so the string scan of
tests/tui/test_i18n.py sees its keys; a language switch while it is open leaves it as it was drawn.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..appref import posenc_app
from ..help_section import HelpSection
from ..keys import bind, localize_bindings

__all__ = ["ConfirmScreen"]


class ConfirmScreen(ModalScreen[bool]):
    """`question` and `detail` above a yes and a no button; `y` answers True, `n` or Esc False."""

    HELP_SECTION = HelpSection("help.confirm", 170)

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 64; max-width: 90%; height: auto; padding: 1 2; border: thick $warning; background: $surface;
    }
    ConfirmScreen #confirm-question { text-style: bold; }
    ConfirmScreen Horizontal { height: auto; margin-top: 1; }
    ConfirmScreen Button { margin-right: 2; }
    """
    BINDINGS = [
        bind("y", "answer(True)", "confirm.yes", "confirm.key_yes"),
        bind("n,escape", "answer(False)", "confirm.no", "confirm.key_no"),
    ]

    def __init__(self, question: str, detail: str, *, yes: str, no: str) -> None:
        """Every text already localized: the question, what `y` and `n` do, the two buttons' labels."""
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="confirm-question", markup=False)
            yield Static(self.detail, id="confirm-detail", markup=False)
            with Horizontal():
                yield Button(self.yes, id="confirm-yes", variant="warning")
                yield Button(self.no, id="confirm-no")

    def on_mount(self) -> None:
        localize_bindings(self, posenc_app(self).language)

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")
