"""The quiz itself: one question at a time, the live demo beside the explanation once it is answered; at the
end the summary (`summary.py`), or back where a single "try it" question came from."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from quizbank.grading import Grade
from quizbank.quiz_session import QuizSession

from ...appref import posenc_app
from ...cells import fit_cells
from ...help_section import HelpSection
from ...i18n import tr
from ...keyorder import HeldKeys
from ...keys import bind, focused_takes_text
from ...live import draw_showing, is_generated
from ...richtext import plain
from ...typed_answers import keep_typed_answer
from ...widgets.demo_panel import DemoPanel
from ...widgets.key_footer import KeyFooter
from ...widgets.question_view import QuestionView
from ...widgets.title_bar import TitleBar
from ..base import LocalizedScreen
from ..marks import QuestionMarks

if TYPE_CHECKING:
    from .summary import QuizSummaryScreen

__all__ = ["QuizScreen"]


class QuizScreen(HeldKeys, QuestionMarks, LocalizedScreen):
    """One question at a time; after answering, the explanation beside the live demo panel.

    `try_it=True`: a single question opened from Search or Home ("try it"); the end returns to
    where it came from instead of a summary, and `o` reads it in Browse instead."""

    HELP_SECTION = HelpSection("help.quiz", 30)

    CSS_PATH = Path(__file__).with_name("quiz.tcss")
    BINDINGS = [
        bind("space", "check", "check", "key.check"),
        bind("n", "next", "next", "key.next"),
        bind("d", "demo", "demo", "key.demo"),
        bind("m", "flag", "flag", "key.flag", show=False),
        bind("N", "note", "note", "key.note", show=False),
        bind("o", "read", "read", "key.read", show=False),
        bind("q", "end", "quiz.end", "key.end_quiz"),
        # repeated from the app's keys so a narrow (80-column) footer still shows them
        bind("r", "app.reload", "quiz.reload", "key.reload"),
        bind("ctrl+q", "app.quit", "quiz.quit", "key.quit"),
    ]
    # what the end opens: the package's __init__ sets it (the summary imports this module)
    summary_screen: ClassVar[type[QuizSummaryScreen]]

    class LiveDrawn(Message):
        """A generated question's showing is ready (or could not be drawn: `error`)."""

        def __init__(self, question_id: str, showing: Any = None, error: str | None = None) -> None:
            super().__init__()
            self.question_id = question_id
            self.showing = showing
            self.error = error

    def __init__(self, session: QuizSession, *, try_it: bool = False) -> None:
        super().__init__()
        self.session = session
        self.try_it = try_it
        self._view: QuestionView | None = None
        self._draw_errors: dict[str, str] = {}  # generated questions no draw gave an answer for: skipped
        self.hold_keys()  # from the start: keys typed while it opens wait for the first question

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static("", id="quiz-bar", markup=False)
        with Horizontal(id="quiz-body"):
            yield VerticalScroll(id="quiz-qa")
            yield DemoPanel(id="quiz-demo", autorun=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#quiz-demo", DemoPanel).display = False
        self.load_question_status()
        self._show_current()
        bankset = posenc_app(self).bankset
        upcoming = self.session.question_ids[self.session.index :]
        if bankset is not None and any(is_generated(bankset.questions.get(qid)) for qid in upcoming):
            self._draw_live(list(upcoming))  # only sessions with generated questions start a worker

    # ------------------------------------------------------------------ state

    @property
    def view(self) -> QuestionView | None:
        """The question on screen (None once the quiz is over)."""
        return self._view

    def marked_question_id(self) -> str | None:
        return self.view.question_id if self.view is not None else None

    def question_status_changed(self) -> None:
        view = self.view
        if view is not None and view.is_attached:
            view.set_mark(*self.mark_of(view.question_id))

    def _question(self, question_id: str | None) -> Any:
        if question_id is None or posenc_app(self).bankset is None:
            return None
        return posenc_app(self).bankset.questions.get(question_id)

    def _show_current(self) -> None:
        qa = self.query_one("#quiz-qa", VerticalScroll)
        question = self._question(self.session.current_id)
        while not self.session.finished:
            if question is not None and not self._skip_undrawable(question):
                break
            question = self._question(self.session.advance())
        if self.session.finished:
            self._view = None
            self._finish()
            return
        self.hold_keys()  # until the new question is mounted and focused (QuestionView.Ready)
        old = list(qa.children)
        for widget in old:  # hidden now, removed after the new question is on screen
            widget.display = False
        if old:
            self.call_after_refresh(self._remove_widgets, old)
        if is_generated(question):
            showing = self.session.live.get(question.id)
            if showing is None:  # the worker is drawing it: LiveDrawn shows it
                self._view = None
                note = tr("quiz.drawing", posenc_app(self).language, id=question.id)
                qa.mount(Static(note, classes="hint quiz-drawing", markup=False))
                self._update_bar()
                self.refresh_bindings()
                return
            question = showing.question
        view = QuestionView(question, seed=self.session.config.seed, mode="quiz", classes="quiz-question")
        view.flagged, view.note = self.mark_of(question.id)
        self._view = view
        qa.mount(view)
        qa.scroll_home(animate=False)
        panel = self.query_one("#quiz-demo", DemoPanel)
        panel.set_demo(None, run=False)
        panel.display = False
        self._update_bar()
        self.refresh_bindings()
        view.focus_input()  # once it is mounted; then it posts Ready

    def _skip_undrawable(self, question: Any) -> bool:
        """True (and a notice) for a generated question none of whose draws gave an answer: the quiz goes
        on without it."""
        if question.id in self.session.live or question.id not in self._draw_errors:
            return False
        why = self._draw_errors.pop(question.id)
        posenc_app(self).notify(
            tr("live.skipped", posenc_app(self).language, id=question.id, error=why),
            severity="warning",
            timeout=6,
        )
        return True

    @staticmethod
    def _remove_widgets(widgets: list[Any]) -> None:
        for widget in widgets:
            if widget.is_attached:
                widget.remove()

    def _update_bar(self) -> None:
        lang = posenc_app(self).language
        session = self.session
        n = min(session.index + 1, session.total)
        counts = session.counts()
        done = session.index + (1 if session.current_id in session.grades else 0)
        narrow = posenc_app(self).size.width < 90
        width = 10 if narrow else 20
        filled = round(width * done / max(1, session.total))
        question = self._question(session.current_id)
        head = tr("quiz.try_it", lang) if self.try_it else tr("quiz.progress", lang, n=n, total=session.total)
        start = Content.assemble(
            (f" {head} ", "bold"), ("▰" * filled, "$text-accent"), ("▱" * (width - filled), "dim"), "  "
        )
        end = Content.assemble(
            "   ",
            (f"✓ {counts.correct}", "bold $text-success"),
            "  ",
            (f"✗ {counts.wrong}", "bold $text-error"),
        )
        topic = ""
        if question is not None and posenc_app(self).bankset is not None:
            topic_id = posenc_app(self).bankset.topic_of.get(question.id, "")
            titles = {t.id: t.title.get(lang) for t in posenc_app(self).bankset.topics}
            # the title takes the room the line has (CJK counts double), up to 60 cells
            room = min(60, posenc_app(self).size.width - start.cell_length - end.cell_length - 1)
            topic = fit_cells(plain(titles.get(topic_id, topic_id)), room)
        bar = Content.assemble(start, (topic, "$text-secondary"), end)
        self.query_one("#quiz-bar", Static).update(bar)

    def on_resize(self) -> None:
        self._update_bar()

    def relabel(self) -> None:
        self._update_bar()

    @work(thread=True, name="live-draw", group="live-draw", exclusive=True, exit_on_error=False)
    def _draw_live(self, question_ids: list[str]) -> None:
        """Draw this session's generated questions in order (the demo host computes each answer);
        posts LiveDrawn per question and never touches widgets."""
        for qid in question_ids:
            question = (
                posenc_app(self).bankset.questions.get(qid) if posenc_app(self).bankset is not None else None
            )
            if question is None or not is_generated(question) or qid in self.session.live:
                continue
            try:
                showing = draw_showing(question, posenc_app(self).demo_runner)
            except Exception as exc:  # noqa: BLE001 - a worker reports any failure
                self.post_message(self.LiveDrawn(qid, error=" ".join(str(exc).split())))
                continue
            self.post_message(self.LiveDrawn(qid, showing))

    def on_quiz_screen_live_drawn(self, message: LiveDrawn) -> None:
        if message.showing is not None:
            self.session.live[message.question_id] = message.showing
        elif message.error is not None:  # said and skipped when the quiz reaches it (maybe now)
            self._draw_errors[message.question_id] = message.error
        if self.session.current_id != message.question_id or self.view is not None:
            return
        self._show_current()
        view = self.view
        if view is not None:  # mounted from a message: focus once the view itself has composed
            view.call_after_refresh(view.focus_input)

    def banks_reloaded(self) -> None:
        view = self.view
        if view is None or posenc_app(self).bankset is None:
            return
        fresh = posenc_app(self).bankset.questions.get(view.question_id)
        if fresh is not None and is_generated(fresh):
            return  # the instance on screen stays: its numbers were drawn for this showing
        if fresh is None:
            return
        if view.compatible_with(fresh):
            view.set_question(fresh)
        elif not view.revealed:
            self._show_current()
        panel = self.query_one("#quiz-demo", DemoPanel)
        if (
            view.revealed
            and fresh.demo is not None
            and (panel.demo_name, panel.params) != (fresh.demo.name, dict(fresh.demo.params))
        ):
            panel.set_demo(fresh.demo.name, dict(fresh.demo.params))
        self._update_bar()

    # ------------------------------------------------------------------ events

    def restore_focus(self) -> None:
        view = self.view
        if isinstance(view, QuestionView) and view.is_attached:
            view.focus_input()

    def on_question_view_ready(self, message: QuestionView.Ready) -> None:
        if message.view is self.view:
            self.release_keys()

    def on_question_view_answered(self, message: QuestionView.Answered) -> None:
        duration = self.session.record(message.question_id, message.grade)
        showing = self.session.live.get(message.question_id)
        instance = showing.record() if showing is not None else None
        posenc_app(self).record_attempt(
            message.question_id, message.grade, duration, schedule=True, instance=instance
        )
        if message.grade.details.get(
            "self_graded"
        ):  # an open answer typed and judged: kept with its verdicts
            keep_typed_answer(self.app, message.question_id, "quiz", getattr(message.view, "answer", None))
        self._update_bar()

    def on_question_view_revealed(self, message: QuestionView.Revealed) -> None:
        view = message.view
        if view.grade is None and not view.awaiting_self_grade:
            # shown without an answer: on the revisit list, but no attempt is recorded
            self.session.record(message.question_id, Grade(None, ""))
        # (no "-answered" class on the screen: nothing styles by it, and a class on the screen
        # restyles every widget on it, twice per question)
        self._show_demo()
        self.refresh_bindings()
        self.call_after_refresh(self._show_verdict)

    def _show_verdict(self) -> None:
        """Scroll so the verdict (or the self-grade prompt) is on screen, whatever the terminal size."""
        view = self.view
        if view is None or not view.is_attached:
            return
        for selector in (".qv-self-grade", ".qv-feedback"):
            widgets = [w for w in view.query(selector) if w.display]
            if widgets:
                qa = self.query_one("#quiz-qa", VerticalScroll)
                target = widgets[0]
                # the verdict on the first line when it would be below the fold, else leave it
                if target.region.bottom > qa.region.bottom or target.region.y < qa.region.y:
                    qa.scroll_to_widget(target, animate=False, top=True)
                return

    def _show_demo(self) -> None:
        if self.view is not None:
            self.query_one("#quiz-demo", DemoPanel).show_for(self.view.question)

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if action in ("check", "next", "demo", "end", "flag", "note", "read") and focused_takes_text(
            self.app
        ):
            return False  # the focused field would type the key: not offered
        if action == "check":
            return view is not None and not view.revealed
        if action == "demo":
            return view is not None and view.question.demo is not None
        if action == "read":
            return self.try_it
        return True

    def action_check(self) -> None:
        view = self.view
        if view is not None:
            view.check()

    def action_next(self) -> None:
        view = self.view
        if view is not None and view.awaiting_self_grade:
            # moving on without a verdict: shown, not graded (never a silent "missed")
            self.session.record(view.question_id, Grade(None, ""))
        self.session.advance()
        self._show_current()

    def action_demo(self) -> None:
        view = self.view
        if view is None or view.question.demo is None:
            posenc_app(self).notify(tr("quiz.no_demo", posenc_app(self).language), timeout=2)
            return
        panel = self.query_one("#quiz-demo", DemoPanel)
        if not panel.display:
            self._show_demo()
        else:
            panel.run()

    def action_read(self) -> None:
        view = self.view
        if view is not None:
            question_id = view.question_id
            self.session.end()
            posenc_app(self).pop_screen()
            posenc_app(self).open_question(question_id)

    def action_end(self) -> None:
        self._finish()

    def _finish(self) -> None:
        self.session.end()
        if self.try_it:
            posenc_app(self).pop_screen()
            return
        posenc_app(self).switch_screen(self.summary_screen(self.session))
