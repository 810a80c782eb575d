"""Quiz: setup (topics, difficulty, count, types, status filters), the question loop with the live demo beside the
explanation, and the summary with a list of questions to revisit."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import (
    Button,
    Checkbox,
    Header,
    Input,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    SelectionList,
    Static,
)
from textual.widgets.option_list import Option
from textual.widgets.selection_list import Selection

from quizbank.grading import Grade
from quizbank.question_types import NAMES_BY_ANSWER_MODE
from quizbank.quiz_session import QuizConfig, QuizCounts, QuizSession, new_seed, select_question_ids

from ..appref import posenc_app
from ..cells import fit_cells
from ..i18n import tr
from ..keyorder import HeldKeys
from ..keys import bind, focused_takes_text
from ..live import draw_showing, is_generated
from ..richtext import plain
from ..typed_answers import keep_typed_answer
from ..widgets.demo_panel import DemoPanel
from ..widgets.key_footer import KeyFooter
from ..widgets.question_view import QuestionView
from ..widgets.toggles import GlyphCheckbox, GlyphRadioButton, GlyphSelectionList
from .base import LocalizedScreen
from .marks import QuestionMarks
from .topic_choice import topics_line

__all__ = [
    "QuizScreen",
    "QuizSetupScreen",
    "QuizSummaryScreen",
    "format_duration",
    "parse_count",
    "summary_detail",
    "topic_result",
]

DIFFICULTIES = (("setup.any", None), ("setup.easy", 1), ("setup.medium", 2), ("setup.hard", 3))


def parse_count(raw: str) -> int | Literal["error"] | None:
    """`"all"` -> None, a positive integer -> int, anything else -> "error"."""
    text = raw.strip().lower()
    if text in ("all", "a", "全部", "*"):
        return None
    try:
        value = int(text)
    except ValueError:
        return "error"
    return value if value >= 1 else "error"


def _short(text: str, limit: int = 80) -> str:
    flat = plain(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def format_duration(seconds: float) -> str:
    """`42 s`, `3 min 5 s` (whole seconds, rounded)."""
    total = max(0, round(seconds))
    return f"{total // 60} min {total % 60} s" if total >= 60 else f"{total} s"


def summary_detail(counts: QuizCounts, seconds: float, lang: str) -> Content:
    """The line under the score: every outcome counted on its own, then the time taken."""
    parts: list[Any] = [
        (tr("summary.answered", lang, n=counts.answered), "bold"),
        (" · " + tr("summary.correct_n", lang, n=counts.correct), "$text-success"),
        (" · " + tr("summary.wrong_n", lang, n=counts.wrong), "$text-error" if counts.wrong else ""),
    ]
    if counts.revealed:
        parts.append((" · " + tr("summary.revealed_n", lang, n=counts.revealed), "$text-warning"))
    parts.append((" · " + tr("summary.skipped_n", lang, n=counts.skipped), ""))
    parts.append((" · " + tr("summary.not_reached_n", lang, n=counts.not_reached), "dim"))
    parts.append((" · " + tr("summary.duration", lang, duration=format_duration(seconds)), ""))
    return Content.assemble(*parts)


def topic_result(good: int, answered: int, count: int, reached: int, lang: str) -> tuple[str, str]:
    """A topic's line in the summary: `right/answered`, or that it was never reached."""
    if answered == 0:
        key = "summary.topic_unreached" if reached == 0 else "summary.topic_unanswered"
        return f"  {tr(key, lang)}", "dim"
    extra = f"  ({tr('summary.of_n', lang, n=count)})" if answered < count else ""
    style = "bold $text-success" if good == answered else "bold $text-warning"
    return f"  {good:>2}/{answered}{extra}", style


# ---------------------------------------------------------------------------------------------------- setup

QUESTION_TYPES = NAMES_BY_ANSWER_MODE  # quizbank.question_types: choice, then typed, then self-graded
FILTER_KEYS = {"flagged": "setup.only_flagged", "wrong": "setup.only_wrong", "unseen": "setup.only_unseen"}
SETUP_MEMORY = "quiz_setup_toggles"  # the app's attribute keeping the setup's toggles for the session


class QuizSetupScreen(QuestionMarks, LocalizedScreen):
    """Choose topics, difficulty, count ("all" for every matching question), question types and
    status filters (flagged, wrong last time, unseen)."""

    CSS_PATH = Path(__file__).with_name("quiz.tcss")
    BINDINGS = [bind("s,ctrl+s", "start", "setup.start", "key.start", key_display="s")]
    # focus opens on the topic list: auto-focusing the first focusable (the scrolling form) and then
    # moving on restyled the whole form twice
    AUTO_FOCUS = "#setup-topics"

    def __init__(self, topics: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.initial_topics = topics
        self.seed = new_seed()

    def compose(self) -> ComposeResult:
        lang = posenc_app(self).language
        bankset = posenc_app(self).bankset
        yield Header()
        with VerticalScroll(id="setup"):
            yield Label(tr("setup.title", lang), id="setup-title", classes="screen-title")
            # the controls first, so they are on screen at 80×24 whatever the number of topics
            with Horizontal(id="setup-row"):
                with Vertical(id="setup-difficulty-box"):
                    yield Label(
                        tr("setup.difficulty", lang), id="setup-difficulty-label", classes="field-label"
                    )
                    with RadioSet(id="setup-difficulty"):
                        for index, (key, _value) in enumerate(DIFFICULTIES):
                            yield GlyphRadioButton(tr(key, lang), value=index == 0, id=f"difficulty-{index}")
                with Vertical(id="setup-count-box"):
                    yield Label(tr("setup.count", lang), id="setup-count-label", classes="field-label")
                    yield Input("10", placeholder="all", id="setup-count")
                with Vertical(id="setup-buttons"):
                    yield Label(" ", classes="field-label")
                    yield Button(tr("setup.start", lang), id="setup-start", variant="primary")
            kept = getattr(self.app, SETUP_MEMORY, None) or {}
            types, filters = kept.get("types", QUESTION_TYPES), kept.get("filters", ())
            with Horizontal(id="setup-types", classes="setup-toggles"):
                yield Label(tr("setup.types", lang), id="setup-types-label", classes="toggle-label")
                for qtype in QUESTION_TYPES:
                    yield GlyphCheckbox(tr(f"type.{qtype}", lang), qtype in types, id=f"type-{qtype}")
            with Horizontal(id="setup-filters", classes="setup-toggles"):
                yield Label(tr("setup.only", lang), id="setup-only-label", classes="toggle-label")
                for name, key in FILTER_KEYS.items():
                    yield GlyphCheckbox(tr(key, lang), name in filters, id=f"only-{name}")
            with Horizontal(id="setup-status"):
                yield Static("", id="setup-matching", markup=False)
                yield Static("", id="setup-seed", classes="hint", markup=False)
            yield Label(tr("setup.topics", lang), id="setup-topics-label", classes="field-label")
            selections = [
                Selection(self._topic_prompt(t), t.id, not self.initial_topics or t.id in self.initial_topics)
                for t in bankset.topics
            ]
            yield GlyphSelectionList(*selections, id="setup-topics")
        yield KeyFooter()

    def _topic_prompt(self, topic: Any) -> Content:
        lang = posenc_app(self).language
        return Content.assemble(
            (_short(topic.title.get(lang), 60), "bold"),
            (f"  {tr('home.topic_line', lang, count=len(topic.question_ids))}", "dim"),
        )

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#setup-count", Input).cursor_blink = posenc_app(self).cursor_blink
        self.query_one("#setup-topics", SelectionList).focus(scroll_visible=False)
        # focusing the list scrolled the form down at 80x24, hiding its title and field labels
        self.call_after_refresh(self.query_one("#setup", VerticalScroll).scroll_home, animate=False)
        self.load_question_status()
        self._update_matching()
        self._show_topics()

    @on(SelectionList.SelectedChanged, "#setup-topics")
    def _show_topics(self) -> None:
        chosen = self.query_one("#setup-topics", SelectionList).selected
        line = topics_line(
            posenc_app(self).bankset.topics, chosen, self.initial_topics, posenc_app(self).language
        )
        self.query_one("#setup-topics-label", Label).update(line)

    def question_status_changed(self) -> None:
        self._update_matching()

    def leave_input_target(self) -> Any:
        """Esc in the count field moves to the Start button."""
        return self.query_one("#setup-start", Button)

    def relabel(self) -> None:
        lang = posenc_app(self).language
        self.query_one("#setup-title", Label).update(tr("setup.title", lang))
        self.query_one("#setup-difficulty-label", Label).update(tr("setup.difficulty", lang))
        self.query_one("#setup-count-label", Label).update(tr("setup.count", lang))
        self.query_one("#setup-types-label", Label).update(tr("setup.types", lang))
        self.query_one("#setup-only-label", Label).update(tr("setup.only", lang))
        self.query_one("#setup-start", Button).label = tr("setup.start", lang)
        for index, (key, _value) in enumerate(DIFFICULTIES):
            self.query_one(f"#difficulty-{index}", RadioButton).label = tr(key, lang)
        for qtype in QUESTION_TYPES:
            self.query_one(f"#type-{qtype}", Checkbox).label = tr(f"type.{qtype}", lang)
        for name, key in FILTER_KEYS.items():
            self.query_one(f"#only-{name}", Checkbox).label = tr(key, lang)
        topics = self.query_one("#setup-topics", SelectionList)
        selected = set(topics.selected)
        topics.clear_options()
        topics.add_options(
            [
                Selection(self._topic_prompt(t), t.id, t.id in selected)
                for t in posenc_app(self).bankset.topics
            ]
        )
        self._update_matching()
        self._show_topics()

    def banks_reloaded(self) -> None:
        if posenc_app(self).bankset is not None:
            self.relabel()

    def _config(self) -> QuizConfig | None:
        topics = tuple(self.query_one("#setup-topics", SelectionList).selected)
        radio = self.query_one("#setup-difficulty", RadioSet)
        index = radio.pressed_index if radio.pressed_index >= 0 else 0
        count = parse_count(self.query_one("#setup-count", Input).value)
        if count == "error":
            return None
        types = tuple(t for t in QUESTION_TYPES if self.query_one(f"#type-{t}", Checkbox).value)
        filters = tuple(name for name in FILTER_KEYS if self.query_one(f"#only-{name}", Checkbox).value)
        fixed = posenc_app(self).fixed_seed
        seed = fixed if fixed is not None else self.seed
        return QuizConfig(
            topics=topics,
            difficulty=DIFFICULTIES[index][1],
            count=count,
            seed=seed,
            # every type: no filter; none ticked: a filter nothing passes
            types=() if len(types) == len(QUESTION_TYPES) else (types or ("none",)),
            filters=filters,
        )

    def _update_matching(self) -> None:
        lang = posenc_app(self).language
        status = self.query_one("#setup-matching", Static)
        config = self._config()
        fixed = posenc_app(self).fixed_seed
        seed = fixed if fixed is not None else self.seed
        self.query_one("#setup-seed", Static).update(tr("setup.seed", lang, seed=seed))
        if config is None:
            status.update(Content.styled(tr("setup.count_bad", lang), "$text-error"))
            return
        if not config.topics:
            status.update(Content.styled(tr("setup.none", lang), "$text-warning"))
            return
        everything = dataclasses.replace(config, count=None, seed=0)
        n = len(select_question_ids(posenc_app(self).bankset, everything, self.question_status))
        if n == 0:
            key = "setup.none_status" if config.filters and self.question_status is None else "setup.none"
            status.update(Content.styled(tr(key, lang), "$text-warning"))
        else:
            shown = n if config.count is None else min(n, config.count)
            status.update(
                Content.styled(
                    tr("setup.matching_one" if n == 1 else "setup.matching", lang, n=n) + f"  →  {shown}",
                    "$text-success",
                )
            )

    @on(SelectionList.SelectedChanged)
    @on(RadioSet.Changed)
    @on(Checkbox.Changed)
    @on(Input.Changed, "#setup-count")
    def _changed(self) -> None:
        self._update_matching()

    @on(Checkbox.Changed)
    def _remember_toggles(self) -> None:
        """The type and status toggles as they are now, for the next Quiz setup of this session."""
        types = tuple(t for t in QUESTION_TYPES if self.query_one(f"#type-{t}", Checkbox).value)
        filters = tuple(name for name in FILTER_KEYS if self.query_one(f"#only-{name}", Checkbox).value)
        setattr(self.app, SETUP_MEMORY, {"types": types, "filters": filters})

    @on(Input.Submitted, "#setup-count")
    @on(Button.Pressed, "#setup-start")
    def action_start(self) -> None:
        lang = posenc_app(self).language
        config = self._config()
        if config is None:
            posenc_app(self).notify(tr("setup.count_bad", lang), severity="warning")
            return
        ids = (
            select_question_ids(posenc_app(self).bankset, config, self.question_status)
            if config.topics
            else []
        )
        if not ids:
            posenc_app(self).notify(tr("setup.none", lang), severity="warning")
            return
        posenc_app(self).switch_screen(QuizScreen(QuizSession(config, ids)))


# ---------------------------------------------------------------------------------------------------- quiz


class QuizScreen(HeldKeys, QuestionMarks, LocalizedScreen):
    """One question at a time; after answering, the explanation beside the live demo panel.

    `try_it=True`: a single question opened from Search or Home ("try it"); the end returns to
    where it came from instead of a summary, and `o` reads it in Browse instead."""

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
        yield Header()
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
        posenc_app(self).switch_screen(QuizSummaryScreen(self.session))


# ---------------------------------------------------------------------------------------------------- summary


REVISIT_ROWS = 4  # the fewest questions the summary's revisit list shows, however many topics


class QuizSummaryScreen(LocalizedScreen):
    """Score, per-topic breakdown and the questions to revisit (Enter opens one in Browse)."""

    CSS_PATH = Path(__file__).with_name("quiz.tcss")
    BINDINGS = [
        bind("m", "retry", "summary.retry", "key.retry"),
        bind("z", "new_quiz", "summary.new", "key.new_quiz"),
        bind("r", "app.reload", "summary.reload", "key.reload"),
        bind("ctrl+q", "app.quit", "summary.quit", "key.quit"),
    ]

    def __init__(self, session: QuizSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="summary"):
            yield Static("", id="summary-score", markup=False)
            yield Static("", id="summary-detail", markup=False)
            with VerticalScroll(id="summary-topics-box"):  # capped by `_share_rows`
                yield Static("", id="summary-topics", markup=False)
            yield Label("", id="summary-revisit-label", classes="section-title")
            yield OptionList(id="summary-revisit")
            with Horizontal(id="summary-buttons"):
                yield Button("", id="summary-retry", variant="primary")
                yield Button("", id="summary-new")
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.relabel()
        self.query_one("#summary-revisit", OptionList).focus()

    def on_resize(self) -> None:
        self.call_after_refresh(self._share_rows)

    def _share_rows(self) -> None:
        """The per-topic lines give up rows (and scroll) so that the revisit list keeps at least
        REVISIT_ROWS: at 80x24 a dozen topics left it none. Their two heights add up to the rows the
        screen has left once the list has any (so a second pass after the next layout settles it)."""
        boxes = list(self.query("#summary-topics-box").results(VerticalScroll))
        if not boxes:
            return  # (left meanwhile)
        box, options = boxes[0], self.query_one("#summary-revisit", OptionList)
        if not options.display:
            box.styles.max_height = None
            return
        room = box.outer_size.height + options.outer_size.height
        cap = max(3, room - REVISIT_ROWS - options.styles.gutter.height)
        if box.styles.max_height is None or box.styles.max_height.value != cap:
            box.styles.max_height = cap
            self.call_after_refresh(self._share_rows)

    def relabel(self) -> None:
        lang = posenc_app(self).language
        session = self.session
        counts = session.counts()
        score = (
            tr("summary.score", lang, right=counts.correct, total=counts.answered, pct=counts.pct)
            if counts.answered
            else tr("summary.score_none", lang)
        )
        self.query_one("#summary-score", Static).update(Content.styled(score, "bold $text-accent"))
        self.query_one("#summary-detail", Static).update(summary_detail(counts, session.duration_s, lang))
        bankset = posenc_app(self).bankset
        lines: list[Content] = [Content.styled(tr("summary.by_topic", lang), "bold")]
        if bankset is not None:
            # per topic: [correct, answered, questions, reached]
            per_topic: dict[str, list[int]] = {}
            for qid in session.question_ids:
                topic_id = bankset.topic_of.get(qid, "?")
                entry = per_topic.setdefault(topic_id, [0, 0, 0, 0])
                entry[2] += 1
                entry[3] += qid in session.reached
                grade = session.grades.get(qid)
                if grade is not None and grade.correct is not None:
                    entry[1] += 1
                    entry[0] += bool(grade.correct)
            titles = {t.id: _short(t.title.get(lang), 40) for t in bankset.topics}
            width = max((cell_len(titles.get(t, t)) for t in per_topic), default=0)
            for topic_id, (good, answered, count, reached) in per_topic.items():
                title = titles.get(topic_id, topic_id)
                lines.append(
                    Content.assemble(
                        ("  " + title + " " * (width - cell_len(title)), ""),
                        topic_result(good, answered, count, reached, lang),
                    )
                )
        self.query_one("#summary-topics", Static).update(Content("\n").join(lines))
        revisit = session.to_revisit()
        label = self.query_one("#summary-revisit-label", Label)
        label.update(tr("summary.revisit", lang) if revisit else tr("summary.perfect", lang))
        options = self.query_one("#summary-revisit", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        reason_width = max(
            cell_len(tr(k, lang)) for k in ("summary.skipped", "summary.revealed", "summary.wrong")
        )
        for qid in revisit:
            grade = session.grades.get(qid)
            if qid in session.skipped:
                reason, style = tr("summary.skipped", lang), "$text-warning"
            elif grade is not None and grade.correct is None:
                reason, style = tr("summary.revealed", lang), "$text-warning"
            else:
                reason, style = tr("summary.wrong", lang), "$text-error"
            showing = session.live.get(qid)  # a generated question: the numbers it was shown with
            question = showing.question if showing is not None else (
                bankset.questions.get(qid) if bankset is not None else None
            )  # fmt: skip
            prompt = _short(question.prompt.get(lang), 200) if question is not None else ""
            pad = " " * (reason_width - cell_len(reason) + 1)
            options.add_option(
                Option(Content.assemble((reason + pad, style), (qid, "bold"), "  ", (prompt, "dim")), id=qid)
            )
        options.display = bool(revisit)
        if revisit:  # Enter opens the highlighted one: start on the first (or keep the place)
            options.highlighted = min(highlighted or 0, len(revisit) - 1)
        retry = self.query_one("#summary-retry", Button)
        retry.label = tr("key.retry", lang)
        retry.display = bool(revisit)
        self.query_one("#summary-new", Button).label = tr("key.new_quiz", lang)
        self.call_after_refresh(self._share_rows)

    def banks_reloaded(self) -> None:
        self.relabel()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            posenc_app(self).open_question(event.option.id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry":
            return bool(self.session.to_revisit())
        return True

    @on(Button.Pressed, "#summary-retry")
    def action_retry(self) -> None:
        ids = self.session.to_revisit()
        if not ids:
            return
        config = self.session.config
        posenc_app(self).switch_screen(QuizScreen(QuizSession(config, ids)))

    @on(Button.Pressed, "#summary-new")
    def action_new_quiz(self) -> None:
        posenc_app(self).switch_screen(QuizSetupScreen(self.session.config.topics))
