"""Mock interview setup (`m` on Home, or the palette): minutes, topics, level and language; Enter (in the
minutes field) or `s` plans the interview in a thread worker ("mock-plan") and starts it.

Bank text is data: rendered through `tui.richtext`, never parsed as markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, SelectionList, Static
from textual.widgets.selection_list import Selection

from ...appref import posenc_app
from ...help_section import HelpSection
from ...i18n import tr
from ...keys import bind
from ...live import draw_plan_showings
from ...richtext import plain
from ...widgets.key_footer import KeyFooter
from ...widgets.title_bar import TitleBar
from ...widgets.toggles import GlyphRadioButton, GlyphSelectionList
from ..base import LocalizedScreen
from ..topic_choice import topics_line
from .interview import MockInterviewScreen
from .items import drills_by_name

__all__ = ["DigitsInput", "MockSetupScreen"]

LEVEL_NAMES = ("basic", "standard", "deep")
DEFAULT_MINUTES = 30
PLANNING_TOAST_AFTER_S = 0.4  # a plan that takes longer than this says it is being made


class DigitsInput(Input):
    """A field that takes digits only: every other key (`s` to start, `l`, `?`) stays a command even while
    it has focus (a plain Input claims every printable key, so `s` did nothing there)."""

    takes_text = False  # tui.keys.focused_takes_text: the footer keeps the letter commands

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character.isdigit()


class MockSetupScreen(LocalizedScreen):
    """Minutes, topics, level and language; Enter (minutes field) or `s` starts."""

    HELP_SECTION = HelpSection("help.mock_setup", 130)

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
        yield TitleBar()
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
        drills = list(drills_by_name().values())
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
