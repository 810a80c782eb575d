"""Flags and personal notes on questions (`m`, `N`), and the per-question status that screens show.

`QuestionMarks` is a mixin for screens showing questions: it loads a `QuestionStatus` in a thread
worker (`load_question_status()`), toggles the flag and edits the note of `marked_question_id()`,
writing to the store in a worker. Screens override `question_status_changed()` to re-render.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label, Static

from quizbank.question_status import QuestionStatus, load_status

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import tr
from ..keys import bind, localize_bindings

# The mixin is only ever mixed into a Screen: to mypy it is one (self.app, self.post_message), at run time a
# plain class first in the screen's bases.
if TYPE_CHECKING:
    _ScreenMixin = Screen
else:
    _ScreenMixin = object

__all__ = ["NoteScreen", "QuestionMarks", "StatusReady"]

NOTE_MAX = 500


class StatusReady(Message):
    """The question status was read from the store (posted by the status worker)."""

    def __init__(self, status: QuestionStatus) -> None:
        super().__init__()
        self.status = status


class NoteScreen(ModalScreen[str | None]):
    """Edit the personal note of one question: Enter saves (empty deletes), Esc cancels."""

    HELP_SECTION = HelpSection("help.note", 80)

    DEFAULT_CSS = """
    NoteScreen { align: center middle; }
    NoteScreen > Vertical {
        width: 70; max-width: 95%; height: auto; padding: 1 2;
        border: thick $accent; background: $surface;
    }
    NoteScreen Input { margin-top: 1; }
    NoteScreen Input:focus { border: tall $accent; }
    """
    BINDINGS = [bind("escape", "cancel", "note.cancel", "key.cancel")]

    def __init__(self, question_id: str, note: str) -> None:
        super().__init__()
        self.question_id = question_id
        self.note = note

    def compose(self) -> ComposeResult:
        lang = posenc_app(self).language
        with Vertical():
            yield Label(tr("note.title", lang, id=self.question_id), classes="section-title", markup=False)
            yield Static(tr("note.help", lang), classes="hint", markup=False)
            yield Input(self.note, max_length=NOTE_MAX, id="note-input")

    def on_mount(self) -> None:
        localize_bindings(self, posenc_app(self).language)
        self.query_one("#note-input", Input).focus()

    @on(Input.Submitted, "#note-input")
    def _save(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class QuestionMarks(_ScreenMixin):
    """Mixin for a Screen: question status, `m` flag (mark) and `N` note (see the module docstring)."""

    question_status: QuestionStatus | None = None

    def marked_question_id(self) -> str | None:
        """The question `f` and `N` act on (None: none)."""
        return None

    def question_status_changed(self) -> None:
        """Re-render what depends on the status (flags, notes, marks)."""

    def load_question_status(self) -> None:
        store = posenc_app(self).store
        if store is not None:
            self._question_status_worker(store)

    @work(thread=True, name="question-status", group="question-status", exclusive=True, exit_on_error=False)
    def _question_status_worker(self, store: Any) -> None:
        try:
            status = load_status(store)
        except Exception:  # noqa: BLE001 - marks are a convenience: without them the screen still works
            return  # marks are a convenience: without them the screen still works
        self.post_message(StatusReady(status))

    def on_status_ready(self, message: StatusReady) -> None:
        self.question_status = message.status
        self.question_status_changed()

    def mark_of(self, question_id: str) -> tuple[bool, str]:
        status = self.question_status
        if status is None:
            return False, ""
        return question_id in status.flagged, status.notes.get(question_id, "")

    def _set_mark(self, question_id: str, flagged: bool, note: str) -> None:
        status = self.question_status or QuestionStatus()
        flags = status.flagged | {question_id} if flagged else status.flagged - {question_id}
        notes = dict(status.notes)
        if note:
            notes[question_id] = note
        else:
            notes.pop(question_id, None)
        self.question_status = dataclasses.replace(status, flagged=frozenset(flags), notes=notes)
        self.question_status_changed()
        store = posenc_app(self).store
        if store is not None:
            self._mark_worker(store, question_id, flagged, note)

    @work(thread=True, name="question-mark", group="question-mark", exit_on_error=False)
    def _mark_worker(self, store: Any, question_id: str, flagged: bool, note: str) -> None:
        app = posenc_app(self)
        try:
            store.set_question_mark(question_id, flagged=flagged, note=note)
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            app.call_from_thread(
                app.notify, tr("store.setting_failed", app.language, error=str(exc)), severity="error"
            )

    def action_flag(self) -> None:
        question_id = self.marked_question_id()
        if question_id is None:
            return
        flagged, note = self.mark_of(question_id)
        self._set_mark(question_id, not flagged, note)
        lang = posenc_app(self).language
        posenc_app(self).notify(
            tr("note.flagged" if not flagged else "note.unflagged", lang, id=question_id), timeout=2
        )

    def action_note(self) -> None:
        question_id = self.marked_question_id()
        if question_id is None:
            return
        flagged, note = self.mark_of(question_id)

        def saved(text: str | None) -> None:
            if text is None or text == note:
                return
            self._set_mark(question_id, flagged, text)
            lang = posenc_app(self).language
            posenc_app(self).notify(tr("note.saved" if text else "note.deleted", lang), timeout=2)

        posenc_app(self).push_screen(NoteScreen(question_id, note), callback=saved)
