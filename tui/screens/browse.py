"""Browse: a topic read as reference notes (question, answer, explanation), one note at a time,
with the live demo panel beside it. n / p move through the topic; i shows the index. Under a note, the
question's history: the answers the candidate typed to it (Quiz, Study, Mock), oldest first, with the key
points each covered (`tui.typed_answers`), read from the store in a worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from quizbank.question_status import MARK_GLYPHS

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import tr
from ..keys import bind
from ..richtext import plain
from ..typed_answers import typed_history
from ..widgets.demo_panel import DemoPanel
from ..widgets.key_footer import KeyFooter
from ..widgets.question_view import QuestionView
from ..widgets.title_bar import TitleBar
from .base import LocalizedScreen
from .marks import QuestionMarks

__all__ = ["BrowseScreen"]

WIDE = 120  # columns from which the index is shown beside the note by default


def _short(text: str, limit: int) -> str:
    flat = plain(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


class BrowseScreen(QuestionMarks, LocalizedScreen):
    """Reference notes for one topic. `select_question(id)` jumps to a question."""

    HELP_SECTION = HelpSection("help.browse", 70)

    CSS_PATH = Path(__file__).with_name("browse.tcss")
    BINDINGS = [
        bind("n", "move(1)", "browse.next", "key.next"),
        bind("p", "move(-1)", "browse.prev", "key.prev"),
        bind("d", "demo", "demo", "key.demo"),
        bind("i", "toggle_index", "browse.index", "key.index"),
        bind("m", "flag", "browse.flag", "key.flag", show=False),
        bind("N", "note", "browse.note", "key.note", show=False),
        bind("g", "glossary", "browse.glossary", "key.glossary"),
    ]

    class TypedLoaded(Message):
        """A question's typed answers were read from the store (posted by the history worker)."""

        def __init__(self, question_id: str, rows: list[Any]) -> None:
            super().__init__()
            self.question_id = question_id
            self.rows = rows

    def __init__(self, topic_id: str, question_id: str | None = None) -> None:
        super().__init__()
        self.topic_id = topic_id
        self.question_id = question_id
        self.index_forced: bool | None = None
        self.view: QuestionView | None = None
        self.history: Static | None = None  # under the note: the question's typed answers
        self.typed_rows: list[Any] = []  # its typed answers (quizbank TypedAnswer), oldest first

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static("", id="browse-bar", markup=False)
        with Horizontal(id="browse-body"):
            yield OptionList(id="browse-index")
            yield VerticalScroll(id="browse-note", can_focus=True)
            yield DemoPanel(id="browse-demo", autorun=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self._fill_index()
        ids = self._ids()
        if self.question_id not in ids:
            self.question_id = ids[0] if ids else None
        self._show()
        self._layout_index(self.size.width)
        self.load_question_status()

    def marked_question_id(self) -> str | None:
        return self.question_id

    def question_status_changed(self) -> None:
        highlighted = self.query_one("#browse-index", OptionList).highlighted
        self._fill_index()
        self.query_one("#browse-index", OptionList).highlighted = highlighted
        self._update_bar()
        if self.view is not None and self.view.is_attached:
            self.view.set_mark(*self.mark_of(self.view.question_id))

    def _status_glyphs(self, question_id: str) -> tuple[str, str]:
        """(status glyph, flag glyph) for a question; blanks while the status is unknown."""
        status = self.question_status
        if status is None:
            return " ", " "
        return MARK_GLYPHS[status.mark(question_id)], "⚑" if question_id in status.flagged else " "

    # ------------------------------------------------------------------ data

    def _topic(self) -> Any:
        bankset = posenc_app(self).bankset
        return bankset.topic(self.topic_id) if bankset is not None else None

    def _ids(self) -> list[str]:
        topic = self._topic()
        if topic is None:
            return []
        return [qid for qid in topic.question_ids if qid in posenc_app(self).bankset.questions]

    def _fill_index(self) -> None:
        lang = posenc_app(self).language
        index = self.query_one("#browse-index", OptionList)
        index.clear_options()
        for number, qid in enumerate(self._ids(), start=1):
            question = posenc_app(self).bankset.questions[qid]
            mark, flag = self._status_glyphs(qid)
            index.add_option(
                Option(
                    Content.assemble(
                        (f"{number:>2} ", "dim"),
                        (mark, "bold $text-warning" if mark in ("✗", "↻") else "dim"),
                        (flag + " ", "bold $text-warning"),
                        _short(question.prompt.get(lang), 60),
                    ),
                    id=qid,
                )
            )

    def _show(self) -> None:
        note = self.query_one("#browse-note", VerticalScroll)
        panel = self.query_one("#browse-demo", DemoPanel)
        self._update_bar()
        if self.question_id is None:
            note.remove_children()
            self.view = self.history = None
            note.mount(Static(tr("browse.empty", posenc_app(self).language), classes="hint"))
            self._place_demo()
            return
        question = posenc_app(self).bankset.questions[self.question_id]
        flagged, text = self.mark_of(question.id)
        view = self.view
        if view is not None and view.parent is note and view.is_mounted and view.show_ready():
            # n / p: the shown view takes the next question in place, so the next repaint has its text
            view.show_question(question, flagged=flagged, note=text)
            mounting: Any = None
        else:
            note.remove_children()
            self.view = QuestionView(question, mode="reference", classes="browse-question")
            self.view.flagged, self.view.note = flagged, text
            self.history = Static("", classes="browse-typed", markup=False)
            mounting = note.mount(self.view, self.history)
        self._show_history()
        note.scroll_home(animate=False)
        index = self.query_one("#browse-index", OptionList)
        ids = self._ids()
        if self.question_id in ids:
            index.highlighted = ids.index(self.question_id)
        self._place_demo()
        if question.demo is None:
            panel.set_demo(None, run=False)
        else:
            # the question's text first: the demo runs once the note has been painted, so its
            # run (a thread that competes for the interpreter) never delays the text
            if (panel.demo_name, panel.params) != (question.demo.name, dict(question.demo.params)):
                panel.set_demo(question.demo.name, dict(question.demo.params), run=False)
                self.call_later(self._demo_after_paint, mounting, question)

    def _show_history(self) -> None:
        """The question's typed answers under its note: hidden until the worker has read them."""
        self.typed_rows = []
        self._render_history()
        if self.question_id is not None and posenc_app(self).store is not None:
            self._load_typed(self.question_id)

    @work(thread=True, group="browse-typed", exclusive=True, exit_on_error=False, name="browse-typed")
    def _load_typed(self, question_id: str) -> None:
        """Thread worker: read the question's typed answers, then post them (never touch widgets)."""
        self.post_message(self.TypedLoaded(question_id, posenc_app(self).store.typed_answers(question_id)))

    def on_browse_screen_typed_loaded(self, message: TypedLoaded) -> None:
        if message.question_id != self.question_id:
            return  # moved on meanwhile
        self.typed_rows = message.rows
        self._render_history()

    def _render_history(self) -> None:
        history = self.history
        if history is None:
            return
        history.display = bool(self.typed_rows)
        if self.typed_rows:
            history.update(typed_history(self.typed_rows, posenc_app(self).language))

    async def _demo_after_paint(self, mounting: Any, question: Any) -> None:
        if mounting is not None:
            await mounting
        self.call_after_refresh(self._start_demo, question)

    def _start_demo(self, question: Any) -> None:
        if self.question_id != question.id or question.demo is None:
            return  # moved on meanwhile
        panel = self.query_one("#browse-demo", DemoPanel)
        if panel.demo_name == question.demo.name and panel.result is None and not panel.running:
            panel.run()

    def _update_bar(self) -> None:
        lang = posenc_app(self).language
        topic = self._topic()
        ids = self._ids()
        position = ids.index(self.question_id) + 1 if self.question_id in ids else 0
        title = _short(topic.title.get(lang), 60) if topic is not None else self.topic_id
        self.query_one("#browse-bar", Static).update(
            Content.assemble(
                (f" {tr('browse.title', lang, topic=title)} ", "bold"),
                (f" ‹ {tr('browse.position', lang, n=position, total=len(ids))} › ", "$text-accent"),
                (f" {self.question_id or ''}", "dim"),
                (self._status_word(), "bold $text-warning"),
            )
        )

    def _status_word(self) -> str:
        status = self.question_status
        if status is None or self.question_id is None:
            return ""
        mark = status.mark(self.question_id)
        return f"  {MARK_GLYPHS[mark]} {tr(f'status.{mark}', posenc_app(self).language)}"

    def select_question(self, question_id: str) -> None:
        """Show `question_id` (it must be in this topic)."""
        if question_id == self.question_id:
            return
        self.question_id = question_id
        self._show()

    def relabel(self) -> None:
        highlighted = self.query_one("#browse-index", OptionList).highlighted
        self._fill_index()
        self.query_one("#browse-index", OptionList).highlighted = highlighted
        self._update_bar()
        self._render_history()

    def banks_reloaded(self) -> None:
        if posenc_app(self).bankset is None:
            return
        if self._topic() is None:
            posenc_app(self).notify(
                tr("browse.gone", posenc_app(self).language, id=self.topic_id), severity="warning"
            )
            posenc_app(self).pop_screen()
            return
        ids = self._ids()
        if self.question_id not in ids:
            self.question_id = ids[0] if ids else None
        self._fill_index()
        self._show()

    # ------------------------------------------------------------------ layout

    def on_resize(self, event: Resize) -> None:
        self._layout_index(event.size.width)

    def _layout_index(self, width: int) -> None:
        """The index beside the note from WIDE columns; narrower, only on `i`, and then in the demo's
        place (and narrower): beside both, the question had 22 columns at 80."""
        show = self.index_forced if self.index_forced is not None else width >= WIDE
        self.query_one("#browse-index", OptionList).display = show
        self.set_class(show and width < WIDE, "-index-narrow")
        self._place_demo()

    def _place_demo(self) -> None:
        """The demo panel shows when the question has a demo and the index does not take its place."""
        bankset = posenc_app(self).bankset
        if bankset is None:
            return  # (banks reloading: the panel stays as it is)
        question = bankset.questions.get(self.question_id) if self.question_id else None
        has_demo = question is not None and question.demo is not None
        self.query_one("#browse-demo", DemoPanel).display = has_demo and not self.has_class("-index-narrow")

    # ------------------------------------------------------------------ actions

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.select_question(event.option.id)
            self.query_one("#browse-note", VerticalScroll).focus()

    def action_move(self, delta: int) -> None:
        ids = self._ids()
        if not ids:
            return
        position = ids.index(self.question_id) if self.question_id in ids else 0
        self.select_question(ids[(position + delta) % len(ids)])

    def action_demo(self) -> None:
        panel = self.query_one("#browse-demo", DemoPanel)
        if panel.demo_name:
            if self.has_class("-index-narrow"):  # the index in the demo's place: the demo comes back
                self.index_forced = False
                self._layout_index(self.size.width)
            panel.run()
        else:
            posenc_app(self).notify(tr("quiz.no_demo", posenc_app(self).language), timeout=2)

    def action_glossary(self) -> None:
        from .glossary import GlossaryScreen

        posenc_app(self).push_screen(GlossaryScreen())

    def action_toggle_index(self) -> None:
        index = self.query_one("#browse-index", OptionList)
        self.index_forced = not index.display
        self._layout_index(self.size.width)
        if self.index_forced:
            index.focus()
