"""Numbered choices (mcq, multi, true/false): the list, its highlight, and what was picked."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from quizbank.quiz_session import choice_order

from ...i18n import tr
from ...richtext import render_text
from .base import AnswerWidget

__all__ = ["ChoiceAnswer", "ChoiceItem", "choice_tag"]


def choice_tag(chosen: bool, correct: bool, lang: str, *, multi: bool = True) -> str:
    """The words beside a revealed choice, so the verdict never rests on colour or glyph alone."""
    if chosen and correct:
        return tr("quiz.tag_picked_right", lang)
    if correct:
        return tr("quiz.tag_missed" if multi else "quiz.tag_answer", lang)
    return tr("quiz.tag_picked_wrong", lang) if chosen else ""


class ChoiceItem(Horizontal):
    """One choice: a number marker and the wrapped text, with its `why` shown after reveal."""

    DEFAULT_CSS = """
    ChoiceItem { height: auto; margin-bottom: 0; }
    ChoiceItem .choice-marker { width: 5; color: $text-accent; text-style: bold; }
    ChoiceItem .choice-body { height: auto; width: 1fr; }
    ChoiceItem .choice-text { width: 1fr; }
    ChoiceItem .choice-why { display: none; color: $text-muted; padding-left: 2; }
    ChoiceItem .choice-why.-has-why { display: block; }
    ChoiceItem.-highlight { background: $boost; }
    ChoiceItem.-highlight .choice-marker { background: $accent; color: $text; }
    ChoiceItem.-selected .choice-marker { background: $primary; color: $text; }
    ChoiceItem.-correct .choice-marker { background: $success-muted; color: $text-success; }
    ChoiceItem.-correct .choice-text { color: $text-success; }
    ChoiceItem.-wrong .choice-marker { background: $error-muted; color: $text-error; }
    ChoiceItem.-wrong .choice-text { color: $text-error; }
    ChoiceItem.-missed .choice-marker { background: $warning-muted; color: $text-warning; }
    ChoiceItem.-missed .choice-text { color: $text-warning; }
    """

    class Clicked(Message):
        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    def __init__(self, position: int) -> None:
        super().__init__(classes="choice")
        self.position = position

    def compose(self) -> ComposeResult:
        yield Static(f" {self.position + 1} ", classes="choice-marker", markup=False)
        with Vertical(classes="choice-body"):
            yield Static("", classes="choice-text", markup=False)
            yield Static("", classes="choice-why", markup=False)

    def set_text(self, text: Content, why: Content | None) -> None:
        self.query_one(".choice-text", Static).update(text)
        why_widget = self.query_one(".choice-why", Static)
        why_widget.update(why if why is not None else "")
        why_widget.set_class(why is not None, "-has-why")

    def set_marker(self, marker: str) -> None:
        self.query_one(".choice-marker", Static).update(marker)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.position))


class ChoiceAnswer(AnswerWidget):
    """A list of numbered choices. Subclasses say what a choice is and what picking one does."""

    HINT_KEY = "quiz.choice_hint"
    INSTANT = True  # a pick answers at once when the view is "instant" (single-answer types)
    MULTIPLE = False  # several choices may be right: picks toggle, marked [x]

    def __init__(self, question: Any, *, mode: str, seed: int | None = None) -> None:
        super().__init__(question, mode=mode, seed=seed, classes="qv-choices")

    def prepare(self) -> None:
        self.highlight = 0
        self.cursor_moved = False  # the highlight shows (and Enter picks) only after an arrow key
        self.order = self._choice_order()

    def _choice_order(self) -> list[int]:
        n = len(getattr(self.question, "choices", []) or [])
        if self.seed is None or self.mode == "reference":
            return list(range(n))
        return choice_order(self.seed, self.question.id, n)

    def build(self) -> list[Widget]:
        return [ChoiceItem(position) for position in range(len(self.order))]

    def choice_count(self) -> int:
        return len(self.order)

    def hint_key(self, instant: bool) -> str:
        if self.mode == "study":
            return self.HINT_KEY + "_study"
        return self.HINT_KEY + ("_instant" if instant and self.INSTANT else "")

    def compatible_with(self, question: Any) -> bool:
        return question.type == self.question.type and len(question.choices) == len(self.question.choices)

    def set_question(self, question: Any) -> None:
        super().set_question(question)
        if len(self.order) != len(question.choices):
            self.order = self._choice_order()

    # ------------------------------------------------------------------ per type

    def _choice(self, position: int) -> tuple[Content, Content | None, bool, bool]:
        """(text, why or None, is correct, is chosen) of the choice shown at `position`."""
        raise NotImplementedError

    def chosen_position(self) -> int | None:
        """The display position of the single chosen answer, if any."""
        return None

    # ------------------------------------------------------------------ keys

    def move(self, delta: int) -> None:
        count = self.choice_count()
        if not count:
            return
        if not self.cursor_moved:
            self.cursor_moved = True
            self.highlight = 0 if delta > 0 else count - 1
        else:
            self.highlight = (self.highlight + delta) % count
        self.render_state()
        items = list(self.query(ChoiceItem))
        if items:
            items[self.highlight].scroll_visible()

    def can_pick(self) -> bool:
        return self.cursor_moved or (self.INSTANT and self.has_input())

    def pick(self) -> bool:
        """Enter: on a single-answer question, confirm the choice (or pick the highlighted one
        first when the cursor moved elsewhere); on a multi, toggle the highlighted choice."""
        return bool(
            self.INSTANT
            and self.has_input()
            and (not self.cursor_moved or self.highlight == self.chosen_position())
        )

    def on_choice_item_clicked(self, message: ChoiceItem.Clicked) -> None:
        message.stop()
        if self.mode != "reference" and self.view is not None:
            self.view.choose(message.position)

    # ------------------------------------------------------------------ rendering

    def render_state(self) -> None:
        view = self.view
        lang = view.lang
        multi = self.MULTIPLE
        revealed = view.revealed
        reference = self.mode == "reference"
        answered = revealed and view.grade is not None and not reference
        for position, item in enumerate(self.query(ChoiceItem)):
            text, why, is_correct, chosen = self._choice(position)
            item.set_class(
                self.cursor_moved and position == self.highlight and not revealed and not reference,
                "-highlight",
            )
            missed = answered and is_correct and not chosen
            item.set_class(chosen and not revealed, "-selected")
            item.set_class(revealed and is_correct and not missed, "-correct")
            item.set_class(revealed and chosen and not is_correct, "-wrong")
            item.set_class(missed, "-missed")
            # Study picks choices with the arrows only (its number keys rate): no numbers there
            number = "   " if self.mode == "study" else f" {position + 1} "
            tag = ""
            if revealed:
                if missed:
                    marker = " ○ "
                elif is_correct:
                    marker = " ✓ "
                else:
                    marker = " ✗ " if chosen else number
                if answered and (chosen or is_correct):
                    tag = choice_tag(chosen, is_correct, lang, multi=multi)
            elif multi:
                marker = "[x]" if chosen else ("[ ]" if self.mode == "study" else f"[{position + 1}]")
            else:
                marker = "(•)" if chosen else ("( )" if self.mode == "study" else number)
            item.set_marker(marker)
            if tag:
                style = (
                    "bold $text-success"
                    if (chosen and is_correct)
                    else ("bold $text-warning" if missed else "bold $text-error")
                )
                text = Content.assemble((tag, style), "  ", text)
            item.set_text(text, why)

    def _bank_choice(self, position: int, chosen: bool) -> tuple[Content, Content | None, bool, bool]:
        choice = self.question.choices[self.order[position]]
        revealed = self.view.revealed
        text = render_text(choice.text.get(self.view.lang))
        why = render_text(choice.why.get(self.view.lang)) if (choice.why is not None and revealed) else None
        return text, why, bool(choice.correct), chosen
