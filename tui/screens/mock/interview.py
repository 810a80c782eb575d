"""The timed mock interview, `MockInterviewScreen` (set up in `setup`; item widgets in `items`, its status
lines in `status`, the report in `report`).

One item at a time under a whole-interview clock and a per-item clock (over budget is shown, never enforced).
Choice, numeric and cloze questions use the quiz's `QuestionView`; an open question takes a typed answer (a
TextArea), then Ctrl+R reveals its key points as checkboxes marked by the judge (`quizbank.judge`): ✓ covered
(ticked), ✗ contradicted with its correction (counts as wrong), · not found; a drill shows its statement and an
editor, and Ctrl+R grades it with `quizbank.drills.grade_source` in a thread worker ("mock-grade-drill"); where
running code is off (`posenc serve --public`) the grader refuses and the item says why, as the Drill screen
does, and nothing is recorded. A follow-up comes only after its parent was answered. `n` moves on (an
unanswered item counts as skipped); `q` asks "End the interview?" and `y` ends early. The report is built by
`quizbank.mock.report` and saved in a thread worker ("mock-save"). Ctrl+Q asks "End the interview and quit?"
(`confirm_quit`, called by the app's quit action); `y` quits. However the app ends (Ctrl+Q, a closed `posenc
serve` tab, SIGTERM), an interview not yet finished is saved as ended early when the screen unmounts, before
the app closes the store.

Bank text and candidate text are data: rendered through `tui.richtext` or escaped, never parsed as markup.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static, TextArea

from quizbank.question_types import question_type

from ...appref import posenc_app
from ...help_section import HelpSection
from ...i18n import tr
from ...keyorder import HeldKeys
from ...keys import bind
from ...live import is_generated
from ...richtext import plain
from ...typed_answers import keep_typed_answer
from ...widgets.key_footer import KeyFooter
from ...widgets.question_view import QuestionView
from ...widgets.title_bar import TitleBar
from ..base import LocalizedScreen
from ..confirm import ConfirmScreen
from .items import DrillItem, ItemShown, OpenItem, drills_by_name
from .report import MockReportScreen
from .status import clock_line, item_bar

__all__ = ["MockInterviewScreen"]


class MockInterviewScreen(HeldKeys, LocalizedScreen):
    """The timed interview (see the module docstring)."""

    HELP_SECTION = HelpSection("key.mock", 140)

    CSS_PATH = Path(__file__).with_name("mock.tcss")
    BINDINGS = [
        bind("ctrl+r", "submit", "mock.submit", "mock.key_submit", priority=True),
        bind("space", "submit", "mock.check", "key.check", show=False),
        bind("n", "next", "mock.next", "mock.key_next"),
        bind("q", "end", "mock.end", "mock.key_end"),
        bind("escape", "leave_editor", "mock.leave", "mock.key_leave", show=False),
    ]

    class DrillGraded(Message):
        def __init__(
            self, item_id: str, report: Any = None, error: str | None = None, refused: bool = False
        ) -> None:
            super().__init__()
            self.item_id = item_id
            self.report = report
            self.error = error
            self.refused = refused  # running code is off: nothing ran

    class Saved(Message):
        def __init__(self, session_id: str, error: str | None = None) -> None:
            super().__init__()
            self.session_id = session_id
            self.error = error

    def __init__(
        self,
        plan: Any,
        *,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] | None = None,
        session_id: str | None = None,
        live: dict[str, Any] | None = None,
    ) -> None:
        """`clock` gives seconds (monotonic) and `now` the wall time: tests and snapshots fix both."""
        from quizbank.mock.report import ItemResult

        super().__init__()
        self.plan = plan
        self.live = dict(live or {})  # item id -> showing of a generated question (tui.live.LiveShowing)
        self.clock = clock
        self.now = now or (lambda: datetime.now(UTC))
        self.started_at = self.now()
        self.session_id = session_id or f"{self.started_at:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
        self.results: dict[str, ItemResult] = {}
        self.index = -1
        self.started = self.clock()
        self.item_started = self.started
        self.finished = False
        self.drills = drills_by_name()
        self._widget: Any = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static("", id="mock-bar", markup=False)
        yield Static("", id="mock-clock", markup=False)
        yield VerticalScroll(id="mock-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.started = self.clock()
        self._advance()
        self.set_interval(1.0, self._tick, name="mock-clock")

    # ------------------------------------------------------------------ state

    @property
    def item(self) -> Any:
        return self.plan.items[self.index] if 0 <= self.index < len(self.plan.items) else None

    @property
    def current(self) -> Any:
        """The widget of the current item (QuestionView, OpenItem or DrillItem)."""
        return self._widget

    def _result(self, item_id: str) -> Any:
        from quizbank.mock.report import ItemResult

        return self.results.setdefault(item_id, ItemResult(item_id))

    def _answered(self) -> bool:
        item = self.item
        return item is not None and self._result(item.id).status == "answered"

    def _advance(self) -> None:
        """Show the next item; a follow-up whose parent was not answered is passed over."""
        while True:
            self.index += 1
            item = self.item
            if item is None:
                self._finish(ended_early=False)
                return
            if item.follow_up_of is not None:
                parent = self.results.get(item.follow_up_of)
                if parent is None or parent.status != "answered":
                    continue
            break
        self.item_started = self.clock()
        # keys typed from now on wait until the item is mounted and focused (ItemShown, QuestionView.Ready)
        self.hold_keys()
        body = self.query_one("#mock-body", VerticalScroll)
        body.remove_children()
        widget = self._make_widget(item)
        self._widget = widget
        if item.follow_up_of is not None:
            body.mount(
                Static(
                    tr("mock.follow_up", posenc_app(self).language), classes="mock-follow-up", markup=False
                )
            )
        body.mount(widget)
        body.scroll_home(animate=False)
        self._result(item.id).status = "skipped"  # shown; becomes "answered" once graded
        self._tick()
        self.refresh_bindings()
        if isinstance(widget, QuestionView):
            widget.focus_input()  # once it is mounted: then it posts Ready
        elif not isinstance(widget, OpenItem | DrillItem):  # a "not available" line: nothing to wait for
            self.call_after_refresh(self.release_keys)

    def _make_widget(self, item: Any) -> Any:
        if item.kind == "drill":
            drill = self.drills.get(item.id)
            if drill is not None:
                return DrillItem(drill)
            return Static(f"drill {item.id} is not available", markup=False)
        question = (
            posenc_app(self).bankset.questions.get(item.id) if posenc_app(self).bankset is not None else None
        )
        if question is None:
            return Static(tr("question.missing", posenc_app(self).language, id=item.id), markup=False)
        if question_type(question.type).judged:  # typed, then judged against its key points
            return OpenItem(question)
        if is_generated(question):
            showing = self.live.get(item.id)
            if showing is None:
                return Static(tr("question.missing", posenc_app(self).language, id=item.id), markup=False)
            question = showing.question
        return QuestionView(question, seed=self.plan.seed, mode="quiz", classes="mock-item")

    def on_item_shown(self, message: ItemShown) -> None:
        if message.item is self._widget:
            self._focus_item()
            posenc_app(self).call_later(
                self.release_keys
            )  # after focus() has landed (it is queued on the app too)

    def on_question_view_ready(self, message: QuestionView.Ready) -> None:
        if message.view is self._widget:
            self.release_keys()

    def _focus_item(self) -> None:
        """Focus the current item's text box; nothing before the item is mounted (its children do not exist
        yet: querying them then raised NoMatches and ended the app, seen under load in `posenc serve`)."""
        widget = self._widget
        if not isinstance(widget, QuestionView) and (widget is None or not widget.is_mounted):
            return
        if isinstance(widget, QuestionView):
            widget.focus_input()
        elif isinstance(widget, OpenItem):
            widget.query_one("#mock-answer", TextArea).focus()
        elif isinstance(widget, DrillItem):
            widget.query_one("#mock-code", TextArea).focus()

    def _elapsed_item(self) -> float:
        return self.clock() - self.item_started

    def _tick(self) -> None:
        if self.finished or self.item is None:
            return
        lang = posenc_app(self).language
        item = self.item
        topic = item.topic
        if (
            posenc_app(self).bankset is not None
            and (entry := posenc_app(self).bankset.topic(item.topic)) is not None
        ):
            topic = plain(entry.title.get(lang))
        skill = tr(f"mock.skill.{item.skill}", lang)
        bar = item_bar(self.index + 1, len(self.plan.items), skill, topic, lang)
        self.query_one("#mock-bar", Static).update(bar)
        clocks = clock_line(
            self.clock() - self.started, self.plan.minutes * 60, self._elapsed_item(), item.minutes * 60, lang
        )
        self.query_one("#mock-clock", Static).update(clocks)

    def relabel(self) -> None:
        widget = self._widget
        if isinstance(widget, OpenItem | DrillItem):
            widget.render_texts()
        for label in self.query(".mock-follow-up").results(Static):
            label.update(tr("mock.follow_up", posenc_app(self).language))
        self._tick()

    # ------------------------------------------------------------------ answering

    def _record(self, score: float | None, response: str, detail: dict[str, Any] | None = None) -> None:
        item = self.item
        if item is None:
            return
        result = self._result(item.id)
        result.status = "answered" if score is not None else "skipped"
        result.score = score
        result.seconds = self._elapsed_item()
        result.response = response
        result.detail = dict(detail or {})
        self._tick()
        self.refresh_bindings()

    def on_question_view_answered(self, message: QuestionView.Answered) -> None:
        message.stop()
        grade = message.grade
        detail: dict[str, Any] = {"correct": bool(grade.correct)}
        item = self.item
        if item is not None and item.id in self.live:
            detail["instance"] = self.live[item.id].record()
        score = 1.0 if grade.correct else float(grade.details.get("credit", 0.0))  # multi: partial credit
        self._record(score, grade.response, detail)

    def on_question_view_revealed(self, message: QuestionView.Revealed) -> None:
        message.stop()
        view = message.view
        if view.grade is None:  # shown without an answer
            self._record(None, "")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        widget = self._widget
        if action == "submit":
            if isinstance(widget, QuestionView):
                return not widget.revealed
            if isinstance(widget, OpenItem):
                return not widget.revealed
            return isinstance(widget, DrillItem) and not widget.grading
        if action == "leave_editor":
            return isinstance(self.focused, TextArea)
        return True

    def action_submit(self) -> None:
        widget = self._widget
        if isinstance(widget, QuestionView):
            widget.check()
        elif isinstance(widget, OpenItem):
            widget.reveal()
            self._record(widget.score(), widget.answer, widget.detail())
            # kept at the reveal, with the judge's marks (later ticks go into the interview's report)
            keep_typed_answer(self.app, widget.question.id, "mock", widget, self.now())
        elif isinstance(widget, DrillItem) and not widget.grading:
            widget.grading = True
            widget.error = None
            widget.render_texts()
            self._grade_drill(self.item.id, widget.source)
            self.refresh_bindings()

    @work(thread=True, name="mock-grade-drill", group="mock-grade", exclusive=True, exit_on_error=False)
    def _grade_drill(self, name: str, source: str) -> None:
        from quizbank.drills import CodeOff

        try:
            from quizbank.drills import grade_source

            report = grade_source(name, source)
        except CodeOff:  # posenc serve --public without --allow-code: nothing was written or run
            self.post_message(self.DrillGraded(name, refused=True))
            return
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            text = str(exc).strip().splitlines()
            self.post_message(self.DrillGraded(name, error=text[0] if text else type(exc).__name__))
            return
        store = posenc_app(self).store
        if store is not None and hasattr(store, "record_drill_attempt"):
            try:  # the drills' own history (and its Study card once solved)
                passed = sum(case.passed for case in report.cases)
                store.record_drill_attempt(name, report.passed, passed, len(report.cases), report.elapsed_ms)
            except Exception:  # noqa: BLE001 - the interview's own record is saved with its report
                pass  # the interview's own record is saved with its report
        self.post_message(self.DrillGraded(name, report))

    def on_mock_interview_screen_drill_graded(self, message: DrillGraded) -> None:
        widget = self._widget
        if not isinstance(widget, DrillItem) or self.item is None or self.item.id != message.item_id:
            return  # moved on meanwhile
        widget.grading = False
        widget.report = message.report
        widget.error = message.error
        widget.refused = message.refused
        widget.render_texts()
        result = widget.query_one(".mock-drill-result")
        self.call_after_refresh(result.scroll_visible, animate=False)
        if message.report is not None and message.report.passed:
            self.set_focus(None)  # solved: `n` moves on at once
        if message.report is not None:
            report = message.report
            passed = sum(c.passed for c in report.cases)
            self._record(
                widget.score(),
                f"{passed}/{len(report.cases)} cases passed",
                {"source": widget.source, "report": report.to_json()},
            )
        self.refresh_bindings()

    def action_leave_editor(self) -> None:
        self.set_focus(None)

    def action_next(self) -> None:
        widget = self._widget
        item = self.item
        if item is None:
            return
        result = self._result(item.id)
        if isinstance(widget, OpenItem) and widget.revealed:
            # ticks may have changed since the reveal; the time stays the time to the reveal
            result.score = widget.score()
            result.detail = widget.detail()
        elif result.status != "answered":
            result.seconds = self._elapsed_item()
            if isinstance(widget, OpenItem):
                result.response = widget.answer
            elif isinstance(widget, DrillItem):
                result.detail = {"source": widget.source}
        self._advance()

    def action_end(self) -> None:
        def answered(end: bool | None) -> None:
            if end:
                self._finish(ended_early=True)

        posenc_app(self).push_screen(self._confirm_end(quitting=False), callback=answered)

    def confirm_quit(self) -> bool:
        """Ctrl+Q (the app's quit action asks first): "End the interview and quit?"; `y` quits, and the
        interview is saved as ended early on unmount. True when the question was asked (the app waits)."""
        if self.finished:
            return False

        def answered(end: bool | None) -> None:
            if end:
                posenc_app(self).exit()

        posenc_app(self).push_screen(self._confirm_end(quitting=True), callback=answered)
        return True

    def _confirm_end(self, *, quitting: bool) -> ConfirmScreen:
        """ "End the interview?" (`q`), or "End the interview and quit?" (Ctrl+Q): `y` ends, `n` or Esc goes on."""
        lang = posenc_app(self).language
        if quitting:
            return ConfirmScreen(
                tr("mock.quit_question", lang),
                tr("mock.quit_detail", lang),
                yes=tr("mock.yes_quit", lang),
                no=tr("mock.no", lang),
            )
        return ConfirmScreen(
            tr("mock.end_question", lang),
            tr("mock.end_detail", lang),
            yes=tr("mock.yes", lang),
            no=tr("mock.no", lang),
        )

    def on_unmount(self) -> None:
        """The app is ending (Ctrl+Q, a closed served tab, SIGTERM) mid-interview: save it as ended early.
        Synchronous on purpose: the app closes the store once every screen has unmounted."""
        if self.finished or self.index < 0:
            return
        self.finished = True
        store = posenc_app(self).store
        if store is None:
            return
        try:
            store.save_mock_report(self._report(ended_early=True))
        except Exception:  # noqa: BLE001 - the app is closing: nowhere to show it; the store keeps what it had
            return

    def _finish(self, *, ended_early: bool) -> None:
        if self.finished:
            return
        self.finished = True
        posenc_app(self).switch_screen(MockReportScreen(self._report(ended_early=ended_early), save=True))

    def _report(self, *, ended_early: bool) -> dict[str, Any]:
        from quizbank.mock.report import build_report

        item = self.item
        if item is not None:
            result = self._result(item.id)
            widget = self._widget
            if isinstance(widget, OpenItem) and widget.revealed:
                result.score = widget.score()
                result.detail = widget.detail()
            elif result.status != "answered":
                result.seconds = self._elapsed_item()
        report = build_report(
            self.plan,
            self.results,
            session_id=self.session_id,
            started_at=self.started_at,
            language=posenc_app(self).language,
            ended_early=ended_early,
            bankset=posenc_app(self).bankset,
            drills=self.drills,
            elapsed_seconds=self.clock() - self.started,
        )
        return report
