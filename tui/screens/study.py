"""Study: spaced repetition over the cards that are due plus today's new ones (FSRS, `quizbank.progress`).

Every question type is studied the same way: answer if the type takes an answer (or just recall), then Enter
reveals the answer, the explanation and the live demo, whatever the card (in a text field too; Space as well
while no field is being typed in). Choices are picked with the arrows and Enter (or `t` / `f` for true/false):
the number keys only ever rate. 1-4 rate Again / Hard / Good / Easy; each rating
button shows the interval the scheduler would give. An answer suggests a rating
(`quizbank.progress.rating_suggestions`); only the user's rating schedules. `u` undoes the last rating, restoring
the card exactly; Ctrl+Z does the same from inside a text input (where `u` is a letter).

Settings (`posenc progress config`): new_per_day and desired_retention are re-read each time Study opens.

The store is never touched on the UI thread: loading the queue, rating and undoing run in a thread worker
(group "study-store") that takes one turn (`study_turn.py`) and posts `StudyScreen.Planned`. A rating is shown as
recorded only after its transaction has committed, so killing the terminal never loses a review the screen
reported. Which card comes next is `quizbank.progress.study_plan`'s queue policy; what the bar, the hint and
the buttons say is `study_text.py`.

No key is lost while a rating is saved and the next card mounted: keys pressed meanwhile wait in the
app's key queue and go, in order, to the next card once it has focus (`tui.keyorder`), so
"Enter 3 Enter 3 …" at any pace rates every card.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static

from quizbank.progress.rating_suggestions import Suggestion, for_answer, for_key_points, for_quiz_answer
from quizbank.progress.study_plan import StudyPlan

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import tr
from ..keyorder import HeldKeys
from ..keys import bind, focused_takes_text
from ..live import is_generated
from ..richtext import plain
from ..typed_answers import keep_typed_answer
from ..widgets.answers.open import OpenAnswer
from ..widgets.demo_panel import DemoPanel
from ..widgets.key_footer import KeyFooter
from ..widgets.question_view import QuestionView
from ..widgets.title_bar import TitleBar
from .base import LocalizedScreen
from .study_text import (
    RATING_KEYS,
    RATINGS,
    bar_text,
    done_text,
    rating_label,
    recorded_text,
    suggestion_text,
    undone_text,
)
from .study_turn import StudyTurn, take_turn

__all__ = ["StudyScreen", "utc_now"]

MAX_ANSWER_MS = 5 * 60 * 1000  # an answer left open longer counts as 5 minutes


def utc_now() -> datetime:
    return datetime.now(UTC)


class StudyScreen(HeldKeys, LocalizedScreen):
    """Spaced-repetition study for one topic (`topic_id`) or all topics (None)."""

    HELP_SECTION = HelpSection("key.study", 90)

    CSS_PATH = Path(__file__).with_name("study.tcss")  # absolute: subclasses elsewhere still find it
    BINDINGS = [
        bind("space", "reveal", "study.reveal", "study.key_reveal"),
        bind("enter", "reveal", "study.reveal_enter", "study.key_reveal", show=False),
        *[bind(str(n), f"rate({n})", f"study.rate{n}", RATING_KEYS[n], show=False) for n in RATINGS],
        bind("u", "undo", "study.undo", "study.key_undo"),
        bind("ctrl+z", "undo_anywhere", "study.undo_anywhere", "study.key_undo", show=False, priority=True),
        bind("d", "demo", "study.demo", "key.demo"),
    ]

    class Planned(Message):
        """The worker finished a turn: the next plan, plus what it did (`tui.screens.study_turn`)."""

        def __init__(self, turn: StudyTurn) -> None:
            super().__init__()
            self.turn = turn

    def __init__(
        self,
        topic_id: str | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        seed: int | None = None,
    ) -> None:
        """
        Args:
            topic_id: study one topic; None studies every loaded topic.
            clock: returns the current aware UTC time (tests inject a fixed clock).
            seed: shuffle seed for choices (default: the app's fixed seed, else random per session).
        """
        super().__init__()
        self.topic_id = topic_id
        self.clock = clock or utc_now
        self.seed = seed
        self.plan: StudyPlan | None = None
        self.live: Any = None  # the showing on screen when the card is a generated question
        self.undrawable: set[str] = set()  # generated questions skipped this session: no draw gave an answer
        self.own: Any = None  # the card's question when it is an own card (a Demo lab prediction)
        self.busy = False
        self.done_count = 0
        self.again_count = 0
        self.suggestion: Suggestion | None = None  # the rating suggested for the card on screen, and why
        self._rated: tuple[Any, int, Any] = (None, 0, None)  # (view, elapsed ms, showing) of the last rating
        self.shown_at = time.monotonic()
        self._qa: VerticalScroll | None = None  # where the card is mounted (see `view`)
        self.hold_keys()  # from the start: keys typed while it opens wait for the first card

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static("", id="study-bar", markup=False)
        with Horizontal(id="study-body"):
            self._qa = VerticalScroll(id="study-qa")
            yield self._qa
            yield DemoPanel(id="study-demo", autorun=False)
        with Vertical(id="study-footer"):
            yield Static("", id="study-hint", markup=False)
            with Horizontal(id="study-ratings"):
                for n in RATINGS:
                    button = Button("", id=f"rate-{n}", classes=f"rate rate-{n}", compact=True)
                    button.can_focus = False
                    yield button
        yield KeyFooter()

    async def on_mount(self) -> None:  # type: ignore[override]  # Textual awaits an async handler
        if self.seed is None:
            self.seed = posenc_app(self).fixed_seed or random.randrange(1, 2**31)
        super().on_mount()  # the footer's language; relabel / banks_reloaded on a change
        self.query_one("#study-demo", DemoPanel).display = False
        self.query_one("#study-ratings").display = False
        await self._start()

    # ------------------------------------------------------------------ state

    @property
    def lang(self) -> str:
        return posenc_app(self).language

    @property
    def view(self) -> QuestionView | None:
        """The card on screen: #study-qa's "study-question" child, a QuestionView or a DrillCard (which
        offers what Study uses of a QuestionView). A direct look, not a query of the whole screen:
        every binding's check_action asks, for every key and every footer refresh."""
        if self._qa is None:
            return None
        return next((w for w in self._qa.children if w.id == "study-question"), None)  # type: ignore[return-value]

    @property
    def suggested(self) -> int | None:
        """The rating suggested for the card on screen (None: nothing suggested)."""
        return self.suggestion.rating if self.suggestion is not None else None

    @property
    def revealed(self) -> bool:
        view = self.view
        return view is not None and view.revealed

    def scope_ids(self) -> list[str]:
        bankset = posenc_app(self).bankset
        if bankset is None:
            return []
        from quizbank.drills import drills

        # solved drills' cards (`drill:NAME`) of the scope's topics; the worker keeps those that exist
        cards = [f"drill:{d.name}" for d in drills() if self.topic_id in (None, d.topic)]
        if self.topic_id is None:
            return [qid for topic in bankset.topics for qid in topic.question_ids] + cards
        topic = next((t for t in bankset.topics if t.id == self.topic_id), None)
        return list(topic.question_ids) + cards if topic is not None else []

    def _scope_title(self) -> str:
        bankset = posenc_app(self).bankset
        if self.topic_id is None or bankset is None:
            return tr("study.all", self.lang)
        topic = next((t for t in bankset.topics if t.id == self.topic_id), None)
        return plain(topic.title.get(self.lang)) if topic is not None else self.topic_id

    async def _start(self) -> None:
        store = posenc_app(self).store
        if store is None:
            if posenc_app(self).store_ready or posenc_app(self).store_error:
                await self._message(
                    tr("study.no_store", self.lang, error=posenc_app(self).store_error or "?")
                )
                self.release_keys()
            else:
                await self._message(tr("study.loading", self.lang))
            return
        if posenc_app(self).bankset is None:
            await self._message(tr("study.loading", self.lang))
            return
        if not self.scope_ids():
            await self._message(tr("study.no_questions", self.lang))
            self.release_keys()
            return
        await self._message(tr("study.loading", self.lang))
        self._run_store("plan")

    async def _banks_changed(self) -> None:
        if self.plan is None and not self.busy:
            await self._start()  # the store or the banks arrived after the screen opened
            return
        view = self.view
        bankset = posenc_app(self).bankset
        if view is None or bankset is None:
            return
        fresh = bankset.questions.get(view.question_id)
        if fresh is not None and is_generated(fresh):
            return  # the instance on screen stays: its numbers were drawn for this showing
        if fresh is not None and fresh is not view.question and view.compatible_with(fresh):
            view.set_question(fresh)

    # ------------------------------------------------------------------ worker

    def _run_store(self, action: str, payload: Any = None) -> None:
        """Start the store worker for `action` ("plan", "rate", "undo"); one at a time."""
        self.busy = True
        self.query_one("#study-ratings").disabled = True
        self._store_worker(action, payload, [qid for qid in self.scope_ids() if qid not in self.undrawable])

    @work(thread=True, group="study-store", exit_on_error=False, name="study-store")
    def _store_worker(self, action: str, payload: Any, ids: list[str]) -> None:
        """Thread worker: touch the store only, then post Planned (never widgets)."""
        app = posenc_app(self)
        # With the real clock the store reads the time inside its transaction (commit order).
        when = None if self.clock is utc_now else self.clock()
        turn = take_turn(
            app.store, app.bankset, app.demo_runner, action, payload, ids, self.clock, when, self.topic_id
        )
        self.post_message(self.Planned(turn))

    def plan_question_id(self) -> str | None:
        return self.plan.question_id if self.plan is not None else None

    async def on_study_screen_planned(self, message: StudyScreen.Planned) -> None:
        self.busy = False
        self.query_one("#study-ratings").disabled = False
        lang = self.lang
        turn = message.turn
        if turn.nothing_to_undo:
            posenc_app(self).notify(tr("study.nothing_to_undo", lang), timeout=2)
            self._refocus()
            return
        if turn.error is not None:
            posenc_app(self).notify(tr("study.failed", lang, error=turn.error), severity="error", timeout=6)
            if self.plan is None:
                await self._message(tr("study.failed", lang, error=turn.error))
            self._refocus()
            return
        for question_id, why in turn.skipped:
            self.undrawable.add(question_id)
            posenc_app(self).notify(
                tr("live.skipped", lang, id=question_id, error=why), severity="warning", timeout=6
            )
        if turn.rated is not None:
            self.done_count += 1
            self.again_count += int(turn.rated.rating) == 1
            self._flash(recorded_text(turn.rated, lang))
        if turn.undone is not None:
            self.done_count = max(0, self.done_count - 1)
            self.again_count = max(0, self.again_count - (int(turn.undone.rating) == 1))
            self._flash(undone_text(turn.undone, lang))
        self.plan = turn.plan
        self.live = turn.live
        self.own = turn.own
        await self._show_plan()
        if not isinstance(self.view, QuestionView):  # a question view releases them once focused
            self.release_keys()

    def _refocus(self) -> None:
        """The card stays (an error, nothing to undo): focus it again and hand it the held keys."""
        view = self.view
        if view is not None and view.is_attached:
            view.focus()
        self.release_keys()

    def _flash(self, text: str) -> None:
        posenc_app(self).notify(text, timeout=2)

    # ------------------------------------------------------------------ rendering

    async def _message(self, text: str) -> None:
        qa = self.query_one("#study-qa", VerticalScroll)
        await qa.remove_children()
        await qa.mount(Static(text, classes="study-message", markup=False))
        self.query_one("#study-ratings").display = False
        self.query_one("#study-demo", DemoPanel).display = False
        self.query_one("#study-hint", Static).update("")
        self._render_bar()

    async def _show_plan(self) -> None:
        plan = self.plan
        qa = self.query_one("#study-qa", VerticalScroll)
        panel = self.query_one("#study-demo", DemoPanel)
        panel.set_demo(None, run=False)
        panel.display = False
        self.suggestion = None
        await qa.remove_children()
        question = None
        if plan is not None and plan.question_id is not None and posenc_app(self).bankset is not None:
            question = posenc_app(self).bankset.questions.get(plan.question_id)
        if question is None and self.own is not None and plan is not None and self.own.id == plan.question_id:
            question = self.own
        if (
            question is None
            and plan is not None
            and plan.question_id is not None
            and plan.question_id.startswith("drill:")
        ):
            from ..widgets.drill_card import DrillCard

            card = DrillCard(plan.question_id, id="study-question")
            await qa.mount(card)
            qa.scroll_home(animate=False)
            self.shown_at = time.monotonic()
            self._render_bar()
            self._render_footer()
            self.refresh_bindings()
            return
        if question is None:
            await qa.mount(
                Static(
                    done_text(self.plan, self.done_count, self.again_count, self.clock(), self.lang),
                    classes="study-message study-done",
                    markup=False,
                )
            )
            self.query_one("#study-ratings").display = False
            self.query_one("#study-hint", Static).update("")
            self._render_bar()
            self.refresh_bindings()
            return
        if is_generated(question):
            if self.live is None or self.live.question.id != question.id:
                await self._message(tr("study.failed", self.lang, error=question.id))
                return
            question = self.live.question  # this showing's numbers, as an ordinary numeric question
        if plan is not None:  # (a question came from the plan)
            self.suggestion = for_quiz_answer(plan.quiz_correct)
        view = QuestionView(question, seed=self.seed, mode="study", id="study-question")
        await qa.mount(view)
        qa.scroll_home(animate=False)
        self.shown_at = time.monotonic()
        self._render_bar()
        self._render_footer()
        self.refresh_bindings()
        view.focus_input()  # now, so keys held meanwhile go to this card

    def _render_bar(self) -> None:
        width = posenc_app(self).size.width
        bar = bar_text(self.plan, self._scope_title(), self.done_count, width, self.lang)
        self.query_one("#study-bar", Static).update(bar)

    def on_resize(self) -> None:
        if self.query("#study-bar"):
            self._render_bar()  # the title is cut to the new width

    def _render_footer(self) -> None:
        lang = self.lang
        hint = self.query_one("#study-hint", Static)
        ratings = self.query_one("#study-ratings")
        if self.plan is None or self.plan.question_id is None or self.view is None:
            hint.update("")
            ratings.display = False
            return
        if not self.revealed:
            hint.update(Content.styled(tr("study.reveal_hint", lang), "$text-muted"))
            ratings.display = False
            return
        if self.suggestion is not None:
            hint.update(suggestion_text(self.suggestion, self.plan.quiz_at, self.clock(), lang))
        else:
            hint.update(Content.styled(tr("study.rate_hint", lang), "$text-muted"))
        ratings.display = True
        for n in RATINGS:
            button = self.query_one(f"#rate-{n}", Button)
            button.label = rating_label(n, self.plan.previews.get(n), lang)
            button.set_class(self.suggested == n, "-suggested")

    def relabel(self) -> None:
        self._render_bar()
        self._render_footer()
        if self.view is None and self.plan is not None:
            self.call_next(self._show_plan)  # re-render the "done" text

    def banks_reloaded(self) -> None:
        self.call_next(self._banks_changed)

    # ------------------------------------------------------------------ events

    def restore_focus(self) -> None:
        view = self.view
        if isinstance(view, QuestionView) and view.is_attached:
            view.focus_input()

    def on_question_view_ready(self, message: QuestionView.Ready) -> None:
        if message.view is self.view and not self.busy:  # (busy: a key typed ahead rated it already)
            self.release_keys()

    def on_open_answer_coverage(self, message: OpenAnswer.Coverage) -> None:
        """A typed open answer was matched (or a tick changed): its coverage suggests the rating."""
        if message.answer.view is not self.view:
            return
        suggestion = for_key_points(message.covered, message.total, message.contradicted)
        if suggestion is not None:
            self.suggestion = suggestion
        self._render_footer()

    # (no "-revealed" class on the screen: nothing styles by it, and toggling a class on the screen
    # restyles every widget on it, twice per card)
    def on_question_view_revealed(self, message: QuestionView.Revealed) -> None:
        if message.view is not self.view:
            # a card already rated and replaced: its message bubbled up after the next card was mounted
            # (Enter and a rating typed at once); it must not reveal the new card's footer and demo
            return
        self._render_footer()
        self.refresh_bindings()
        self._show_demo()

    def on_drill_card_revealed(self) -> None:
        self._render_footer()
        self.refresh_bindings()

    def on_question_view_answered(self, message: QuestionView.Answered) -> None:
        grade = message.grade
        suggestion = for_answer(grade.correct)
        if suggestion is None or grade.details.get("self_graded"):
            self._render_footer()
            return
        if message.view is not self.view:
            # a replaced card's late message (see on_question_view_revealed): its answer is still recorded,
            # with the time and the showing its rating took, never the new card's
            rated_view, elapsed, instance = self._rated
            if rated_view is message.view:
                posenc_app(self).record_attempt(message.question_id, grade, elapsed, instance=instance)
            return
        self.suggestion = suggestion
        instance = self.live.record() if self.live is not None else None
        posenc_app(self).record_attempt(message.question_id, grade, self._elapsed_ms(), instance=instance)
        self._render_footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id and event.button.id.startswith("rate-"):
            self.action_rate(int(event.button.id.removeprefix("rate-")))

    def _elapsed_ms(self) -> int:
        return min(MAX_ANSWER_MS, int((time.monotonic() - self.shown_at) * 1000))

    def _show_demo(self) -> None:
        if self.view is not None and self.view.question is not None:
            self.query_one("#study-demo", DemoPanel).show_for(self.view.question)

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("undo", "demo") and focused_takes_text(self.app):
            return False  # `u` / `d` would be typed into the focused field: not offered
        if action == "reveal":
            view = self.view
            return view is not None and (not self.revealed or view.question is None)  # a drill re-opens
        if action == "rate":
            return self.revealed
        if action == "demo":
            view = self.view
            return view is not None and view.question is not None and view.question.demo is not None
        return True

    def action_reveal(self) -> None:
        view = self.view
        if view is not None and (not view.revealed or view.question is None):
            view.reveal()

    def action_rate(self, rating: int) -> None:
        view = self.view
        if view is None or not view.revealed or self.plan is None or self.plan.question_id is None:
            return
        if self.busy:
            posenc_app(self).notify(tr("study.busy", self.lang), timeout=2)
            return
        self.hold_keys()  # until the next card is on screen
        instance = self.live.record() if self.live is not None else None
        self._rated = (view, self._elapsed_ms(), instance)  # for the card's own messages arriving late
        self._run_store("rate", (view.question_id, int(rating), self._elapsed_ms(), instance))
        # an open answer typed and judged is kept with its verdicts and the ticks the rating followed
        if isinstance(view, QuestionView):  # a drill card has code, not a typed explanation
            keep_typed_answer(
                self.app,
                view.question_id,
                "study",
                view.answer,
                None if self.clock is utc_now else self.clock(),
            )

    def action_undo(self) -> None:
        store = posenc_app(self).store
        if store is None:
            return
        if self.busy:
            posenc_app(self).notify(tr("study.busy", self.lang), timeout=2)
            return
        if not getattr(store, "can_undo", False):
            posenc_app(self).notify(tr("study.nothing_to_undo", self.lang), timeout=2)
            return
        self.hold_keys()
        self._run_store("undo")

    def action_undo_anywhere(self) -> None:
        """Ctrl+Z: undo even while typing in a field (it never types a character)."""
        self.action_undo()

    def action_demo(self) -> None:
        panel = self.query_one("#study-demo", DemoPanel)
        if not panel.display:
            self._show_demo()
        else:
            panel.run()
