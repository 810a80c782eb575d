"""The protocol every per-type answer widget follows, and `AnswerInput`, the text field they share.

A `QuestionView` composes one `AnswerWidget` right under the prompt (see `answer_widget_for`). The
view owns what every type has (prompt, hints, verdict, model answer, explanation, keys); the
answer widget owns what its type adds: its controls, their state, grading them, and its share of
the revealed answer. The widget reads the view's state (`revealed`, `grade`, `mode`, `lang`)
through `self.view`, its parent.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input

from quizbank.grading import Grade
from quizbank.question_types import QuestionType, format_number, question_type

from ...appref import posenc_app

__all__ = ["WIDGETS", "AnswerInput", "AnswerWidget", "answer_widget", "fmt_number"]

fmt_number = format_number  # six significant digits, as the right answer shows its numbers

# question type name -> its answer widget, filled by `@answer_widget(name)` as the modules here are imported
WIDGETS: dict[str, type[AnswerWidget]] = {}


def answer_widget(name: str) -> Any:
    """Class decorator: the answer widget of question type `name` (a name `quizbank.question_types` lists)."""
    question_type(name)  # KeyError for a type the registry does not know

    def register(cls: type[AnswerWidget]) -> type[AnswerWidget]:
        if name in WIDGETS:
            raise ValueError(f"{name!r} already has its answer widget, {WIDGETS[name].__name__}")
        WIDGETS[name] = cls
        return cls

    return register


class AnswerWidget(Vertical):
    """What a question type adds to a `QuestionView` (the defaults suit a type with no controls)."""

    DEFAULT_CSS = "AnswerWidget { height: auto; }"

    HINT_KEY = "quiz.open_hint"  # the i18n key of the line under the controls before reveal
    TRUE_FALSE_KEYS = False  # t and f answer (true/false)

    def __init__(self, question: Any, *, mode: str, seed: int | None = None, classes: str | None = None):
        self.question = question
        self.mode = mode
        self.seed = seed
        self.prepare()
        # built now, not in compose(): they exist as soon as the view is mounted, so the view can
        # focus a field and render the choices in its own on_mount
        super().__init__(*self.build(), classes=classes)

    def prepare(self) -> None:
        """Set up the type's state (runs before `build`)."""

    def build(self) -> list[Widget]:
        """The type's controls, as child widgets."""
        return []

    @property
    def kind(self) -> QuestionType:
        """The question's type (`quizbank.question_types`)."""
        return question_type(self.question.type)

    def grade_entered(self, entered: Any) -> Grade:
        """Grade what was entered with the type's grader (`QuestionType.grader`)."""
        grader = self.kind.grader
        if grader is None:
            raise TypeError(f"a {self.question.type} question is graded by the candidate")
        return grader(self.question, entered)

    @property
    def view(self) -> Any:
        """The `QuestionView` this widget belongs to (its parent)."""
        return self.parent

    def on_mount(self) -> None:
        # a widget swapped into a view that is already showing (`QuestionView.show_question`)
        # renders its controls now that they exist
        answer_mounted = getattr(self.view, "answer_mounted", None)
        if answer_mounted is not None:
            answer_mounted(self)

    # ------------------------------------------------------------------ the protocol

    def choice_count(self) -> int:
        """How many numbered choices the keys 1-9 and the arrows work on (0: none)."""
        return 0

    def has_input(self) -> bool:
        """True once the user entered something that can be graded."""
        return False

    def grade_input(self) -> Grade | None:
        """Grade what was entered, or None (and show why) when it cannot be graded."""
        return None

    def hint_key(self, instant: bool) -> str:
        return self.HINT_KEY

    def render_state(self) -> None:
        """Re-render the controls from the question and the view's state (language included)."""

    def answer_parts(self, text: Content | None) -> list[Content]:
        """The revealed answer box's lines; `text` is the bank's `answer` rendered (or None)."""
        return [text] if text is not None else []

    def feedback_parts(self, grade: Grade) -> list[Any]:
        """Extra (text, style) parts after the verdict (e.g. the number as read)."""
        return []

    def prompt_blank(self) -> Any:
        """A callable rendering `{{n}}` in the prompt (cloze), else None."""
        return None

    def focus_input(self, soft: bool) -> bool:
        """Focus the first text field, if the type has one; True if it did."""
        fields = list(self.query(Input))
        if not fields:
            return False
        if isinstance(fields[0], AnswerInput):
            fields[0].soft = soft
        self.screen.set_focus(fields[0])  # at once (focus() waits a turn): held keys follow it
        return True

    def next_field(self, field: Input) -> Input | None:
        """Where Enter in `field` moves instead of checking (a cloze's next blank), or None."""
        return None

    @property
    def typed(self) -> str:
        """A typed free-text answer kept with a self-graded attempt ("" for types without one)."""
        return ""

    def shows_key_points(self) -> bool:
        """True when the widget shows the key points itself (the view then leaves them out)."""
        return False

    def response_details(self) -> dict[str, Any]:
        """Extra details of a self-graded attempt (an open answer's key-point ticks)."""
        return {}

    def compatible_with(self, question: Any) -> bool:
        """True if `question` (an edited version) can replace the current one in place."""
        return question.type == self.question.type

    def set_question(self, question: Any) -> None:
        self.question = question

    # choice types override these three
    def choose(self, position: int) -> bool:
        """Pick the choice at display `position`; True when that answers (single choice)."""
        return False

    def move(self, delta: int) -> None:
        """Move the highlight (arrow keys)."""

    def pick(self) -> bool:
        """Enter on a choice list: True if it should check now, else it toggled or chose."""
        return False


class AnswerInput(Input):
    """A text answer (a cloze blank or the numeric field) whose Enter acts at once.

    Enter is handled synchronously (the view moves focus to the next blank or grades right away)
    rather than through `Submitted`, which takes effect a turn later; the app's key queue
    (`tui.keyorder`) hands the next key on only once this one is handled, so the key after
    Enter goes to the blank that has focus now.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Focused by the app (a new card), not by the user: while it is empty, a key bound to a
        # command runs the command instead of landing here. Tab, a click or typing make it a field.
        self.soft = False

    @property
    def takes_text(self) -> bool:
        """True when printable keys go into the field (the footer hides commands they would run)."""
        return not (self.soft and not self.value)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """While soft and empty, letters stay bound to their commands (and in the footer)."""
        return self.takes_text and super().check_consume_key(key, character)

    # Textual calls each class's `_on_<event>` along the MRO (until prevent_default), so these
    # handlers do not call super(): Input's own run after them.
    def _on_blur(self, event: events.Blur) -> None:
        self.soft = False

    def _on_mouse_down(self, event: events.MouseDown) -> None:  # type: ignore[override]  # Textual takes sync or async
        if self.soft:
            self.soft = False
            self.screen.refresh_bindings()

    def _command_for(self, key: str) -> Any:
        """The enabled binding (outside this field) that `key` runs, if any."""
        active = self.screen.active_bindings.get(key) if self.is_attached else None
        if active is None or not active.enabled or active.node is self:
            return None
        return active

    async def _on_key(self, event: events.Key) -> None:
        if self.soft and not self.value and event.is_printable:
            command = self._command_for(event.key)
            if command is not None:
                event.stop()
                event.prevent_default()
                await posenc_app(self).run_action(command.binding.action, command.node)
                return
            self.soft = False  # typing: from here on keys are text
            self.screen.refresh_bindings()
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            owner = next((a for a in self.ancestors if isinstance(a, AnswerWidget)), None)
            if owner is None or owner.view is None:
                await self.action_submit()
                return
            owner.view.submit_from(self)
