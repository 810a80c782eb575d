"""Mock interview: setup and the timed interview (item widgets in `items`, the report in `report`).

* `MockSetupScreen` (`m` on Home, or the palette): minutes, topics, level and language; Enter (in the minutes
  field) or `s` plans in a thread worker ("mock-plan") and starts.
* `MockInterviewScreen`: one item at a time under a whole-interview clock and a per-item clock (over budget is
  shown, never enforced). Choice, numeric and cloze questions use the quiz's `QuestionView`; an open question
  takes a typed answer (a TextArea), then Ctrl+R reveals its key points as checkboxes marked by the judge
  (`quizbank.judge`): ✓ covered (ticked), ✗ contradicted with its correction (counts as wrong), · not found;
  a drill shows its statement and an editor, and Ctrl+R grades
  it with `quizbank.drills.grade_source` in a thread worker ("mock-grade-drill"); where running code is off
  (`posenc serve --public`) the grader refuses and the item says why, as the Drill screen does, and nothing
  is recorded. A follow-up comes only after
  its parent was answered. `n` moves on (an unanswered item counts as skipped); `q` asks "End the interview?"
  and `y` ends early. The report is built by `quizbank.mock.report` and saved in a thread worker ("mock-save").
  Ctrl+Q asks "End the interview and quit?" (`confirm_quit`, called by the app's quit action); `y` quits. However
  the app ends (Ctrl+Q, a closed `posenc serve` tab, SIGTERM), an interview not yet finished is saved as ended
  early when the screen unmounts, before the app closes the store.
* `MockReportScreen`: the report (overall, by topic, by skill, time per item, weakest topics, missed items with
  model answers); `a` adds every missed item to Study (due now), `e` exports Markdown.

Bank text and candidate text are data: rendered through `tui.richtext` or escaped, never parsed as markup.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import (
    Button,
    Header,
    Input,
    Label,
    RadioButton,
    RadioSet,
    SelectionList,
    Static,
    TextArea,
)
from textual.widgets.selection_list import Selection

from ...appref import posenc_app
from ...i18n import tr
from ...keyorder import HeldKeys
from ...keys import bind
from ...live import draw_plan_showings, is_generated
from ...richtext import plain
from ...typed_answers import keep_typed_answer
from ...widgets.key_footer import KeyFooter
from ...widgets.question_view import QuestionView
from ...widgets.toggles import GlyphRadioButton, GlyphSelectionList
from ..base import LocalizedScreen
from ..confirm import ConfirmScreen
from ..topic_choice import topics_line
from .items import DrillItem, ItemShown, OpenItem
from .report import MockReportScreen, render_mock_scores

__all__ = [
    "MockInterviewScreen",
    "MockReportScreen",
    "MockSetupScreen",
    "render_mock_scores",
]

LEVEL_NAMES = ("basic", "standard", "deep")
DEFAULT_MINUTES = 30
PLANNING_TOAST_AFTER_S = 0.4  # a plan that takes longer than this says it is being made


def _clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _drill_map() -> dict[str, Any]:
    try:
        from quizbank.drills import drills
    except ImportError:
        return {}
    return {drill.name: drill for drill in drills()}


# ---------------------------------------------------------------------------------------------------- setup


class DigitsInput(Input):
    """A field that takes digits only: every other key (`s` to start, `l`, `?`) stays a command even while
    it has focus (a plain Input claims every printable key, so `s` did nothing there)."""

    takes_text = False  # tui.keys.focused_takes_text: the footer keeps the letter commands

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character.isdigit()


class MockSetupScreen(LocalizedScreen):
    """Minutes, topics, level and language; Enter (minutes field) or `s` starts."""

    CSS_PATH = Path(__file__).with_name("mock.tcss")
    # priority: before the focused minutes field sees the key (it takes digits only: `s` is never typed)
    BINDINGS = [bind("s,ctrl+s", "start", "mock.setup.start", "mock.start", key_display="s", priority=True)]

    class Planned(Message):
        def __init__(
            self, plan: Any = None, error: str | None = None, live: Any = None, skipped: tuple[Any, ...] = ()
        ) -> None:
            super().__init__()
            self.plan = plan
            self.error = error
            self.live = live or {}  # item id -> showing of a generated question (tui.live)
            self.skipped = skipped  # (item id, why): generated questions left out, no draw gave an answer

    def __init__(self, topics: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.initial_topics = topics
        self._planning_toast: Timer | None = None
        self._planning_shown = False

    def compose(self) -> ComposeResult:
        lang = posenc_app(self).language
        yield Header()
        with VerticalScroll(id="mock-setup"):
            yield Label(tr("mock.setup_title", lang), id="mock-setup-title", classes="screen-title")
            with Horizontal(id="mock-setup-row"):
                with Vertical(classes="mock-field"):
                    yield Label(tr("mock.minutes", lang), id="mock-minutes-label", classes="field-label")
                    yield DigitsInput(
                        str(DEFAULT_MINUTES), id="mock-minutes", restrict=r"[0-9]*", max_length=3
                    )
                with Vertical(classes="mock-field"):
                    yield Label(tr("mock.level", lang), id="mock-level-label", classes="field-label")
                    with RadioSet(id="mock-level"):
                        for name in LEVEL_NAMES:
                            yield GlyphRadioButton(tr(f"mock.level.{name}", lang), value=name == "standard")
                with Vertical(classes="mock-field"):
                    yield Label(tr("mock.language", lang), id="mock-language-label", classes="field-label")
                    with RadioSet(id="mock-language"):
                        yield GlyphRadioButton("English", value=lang == "en")
                        yield GlyphRadioButton("中文", value=lang == "zh")
            with Horizontal(id="mock-setup-go"):
                yield Button(tr("mock.start", lang), id="mock-start", variant="primary")
                yield Static(tr("mock.setup_hint", lang), id="mock-setup-hint", classes="hint", markup=False)
            yield Label(tr("mock.topics", lang), id="mock-topics-label", classes="field-label")
            yield GlyphSelectionList(*self._selections(), id="mock-topics")
        yield KeyFooter()

    def _selections(self, selected: set[str] | None = None) -> list[Selection[str]]:
        lang = posenc_app(self).language
        out = []
        for topic in posenc_app(self).bankset.topics:
            on = (topic.id in selected) if selected is not None else (not self.initial_topics or topic.id in
                                                                         self.initial_topics)  # fmt: skip
            title = plain(topic.title.get(lang))
            out.append(Selection(Content.assemble((title, "bold"), (f"  {topic.id}", "dim")), topic.id, on))
        return out

    def on_mount(self) -> None:
        super().on_mount()
        field = self.query_one("#mock-minutes", Input)
        field.cursor_blink = posenc_app(self).cursor_blink
        field.focus()
        self._show_topics()

    def leave_input_target(self) -> Any:
        return self.query_one("#mock-start", Button)

    @on(SelectionList.SelectedChanged, "#mock-topics")
    def _show_topics(self) -> None:
        chosen = self.query_one("#mock-topics", SelectionList).selected
        line = topics_line(
            posenc_app(self).bankset.topics, chosen, self.initial_topics, posenc_app(self).language
        )
        self.query_one("#mock-topics-label", Label).update(line)

    def relabel(self) -> None:
        lang = posenc_app(self).language
        self.query_one("#mock-setup-title", Label).update(tr("mock.setup_title", lang))
        for key in ("minutes", "level", "language"):
            self.query_one(f"#mock-{key}-label", Label).update(tr(f"mock.{key}", lang))
        self.query_one("#mock-setup-hint", Static).update(tr("mock.setup_hint", lang))
        self.query_one("#mock-start", Button).label = tr("mock.start", lang)
        for button, name in zip(
            self.query_one("#mock-level", RadioSet).query(RadioButton), LEVEL_NAMES, strict=True
        ):
            button.label = tr(f"mock.level.{name}", lang)
        topics = self.query_one("#mock-topics", SelectionList)
        selected = set(topics.selected)
        topics.clear_options()
        topics.add_options(self._selections(selected))
        self._show_topics()

    @on(RadioSet.Changed, "#mock-language")
    def _language_chosen(self, event: RadioSet.Changed) -> None:
        wanted = "en" if event.index == 0 else "zh"
        if wanted != posenc_app(self).language:
            posenc_app(self).action_toggle_language()

    def _request(self) -> tuple[int, tuple[str, ...], str] | str:
        from quizbank.mock.planner import MAX_MINUTES, MIN_MINUTES

        raw = self.query_one("#mock-minutes", Input).value.strip()
        minutes = int(raw) if raw.isdigit() else -1
        if not MIN_MINUTES <= minutes <= MAX_MINUTES:
            return tr("mock.minutes_bad", posenc_app(self).language, low=MIN_MINUTES, high=MAX_MINUTES)
        topics = tuple(self.query_one("#mock-topics", SelectionList).selected)
        if not topics:
            return tr("mock.no_topics", posenc_app(self).language)
        radio = self.query_one("#mock-level", RadioSet)
        level = LEVEL_NAMES[radio.pressed_index if radio.pressed_index >= 0 else 1]
        return minutes, topics, level

    @on(Input.Submitted, "#mock-minutes")
    @on(Button.Pressed, "#mock-start")
    def action_start(self) -> None:
        request = self._request()
        if isinstance(request, str):
            posenc_app(self).notify(request, severity="warning")
            return
        # say "planning" only when it takes a while, and take it back once the plan is there: a toast left
        # over the interview's first question covered its clock
        if self._planning_toast is not None:
            self._planning_toast.stop()
        self._planning_toast = self.set_timer(PLANNING_TOAST_AFTER_S, self._say_planning)
        self._plan(*request)

    def _say_planning(self) -> None:
        self._planning_shown = True
        posenc_app(self).notify(tr("mock.planning", posenc_app(self).language), timeout=5)

    @work(thread=True, name="mock-plan", group="mock-plan", exclusive=True, exit_on_error=False)
    def _plan(self, minutes: int, topics: tuple[str, ...], level: str) -> None:
        from quizbank.mock.planner import BankTooSmallError, PlanError, plan_interview, weights_from_store

        app = posenc_app(self)
        drills = list(_drill_map().values())
        seed = app.fixed_seed
        weights = None
        try:
            if seed is None and app.store is not None:
                ids = [qid for t in topics if (entry := app.bankset.topic(t)) for qid in entry.question_ids]
                weights = weights_from_store(app.store, ids, [d.name for d in drills])
            plan = plan_interview(
                app.bankset, drills, minutes=minutes, topics=topics, level=level, seed=seed, weights=weights
            )
        except BankTooSmallError as exc:
            lang = app.language
            text = (
                tr("mock.too_small", lang, minutes=minutes, most=exc.at_most)
                if exc.at_most
                else tr("mock.none_match", lang)
            )
            self.post_message(self.Planned(error=text))
            return
        except PlanError as exc:
            self.post_message(self.Planned(error=str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - the store may fail; say so in one line
            self.post_message(self.Planned(error=f"{type(exc).__name__}: {exc}"))
            return
        # every generated item gets numbers drawn for it alone; one without an answer is left out
        plan, live, skipped = draw_plan_showings(plan, app.bankset, app.demo_runner)
        if not plan.items:
            self.post_message(self.Planned(error=skipped[0][1] if skipped else "?"))
            return
        self.post_message(self.Planned(plan, live=live, skipped=skipped))

    def on_mock_setup_screen_planned(self, message: Planned) -> None:
        if self._planning_toast is not None:
            self._planning_toast.stop()
            self._planning_toast = None
        if self._planning_shown:
            self._planning_shown = False
            posenc_app(self).clear_notifications()
        if message.plan is None:
            posenc_app(self).notify(message.error or "?", severity="error")
            return
        for item_id, why in message.skipped:
            posenc_app(self).notify(
                tr("live.skipped", posenc_app(self).language, id=item_id, error=why), severity="warning"
            )
        posenc_app(self).switch_screen(MockInterviewScreen(message.plan, live=message.live))


# ---------------------------------------------------------------------------------------------------- interview


class MockInterviewScreen(HeldKeys, LocalizedScreen):
    """The timed interview (see the module docstring)."""

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
        self.drills = _drill_map()
        self._widget: Any = None

    def compose(self) -> ComposeResult:
        yield Header()
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
        if question.type == "open":
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
        total = self.plan.minutes * 60
        used = self.clock() - self.started
        item_used = self._elapsed_item()
        budget = item.minutes * 60
        skill = tr(f"mock.skill.{item.skill}", lang)
        topic = item.topic
        if (
            posenc_app(self).bankset is not None
            and (entry := posenc_app(self).bankset.topic(item.topic)) is not None
        ):
            topic = plain(entry.title.get(lang))
        self.query_one("#mock-bar", Static).update(
            Content.assemble(
                (f" {tr('mock.bar', lang, n=self.index + 1, total=len(self.plan.items))} ", "bold"),
                ("  ", ""),
                (skill, "bold $text-accent"),
                ("  ·  ", "dim"),
                (topic, "$text-secondary"),
            )
        )
        parts: list[Any] = [
            (
                " ⏱ " + tr("mock.clock", lang, used=_clock(used), total=_clock(total)),
                "bold" if used <= total else "bold $text-error",
            ),  # fmt: skip
            ("   ", ""),
            (
                tr("mock.item_clock", lang, used=_clock(item_used), budget=_clock(budget)),
                "$text-success" if item_used <= budget else "bold $text-error",
            ),
        ]
        if item_used > budget:
            parts.append((f"  ⚠ {tr('mock.over', lang)} +{_clock(item_used - budget)}", "bold $text-error"))
        self.query_one("#mock-clock", Static).update(Content.assemble(*parts))

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
