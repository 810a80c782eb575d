"""Quiz setup: topics, difficulty, count ("all" for every matching question), question types and status
filters; Start opens the questions (`session.py`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    RadioButton,
    RadioSet,
    SelectionList,
    Static,
)
from textual.widgets.selection_list import Selection

from quizbank.question_types import NAMES_BY_ANSWER_MODE
from quizbank.quiz_session import QuizConfig, QuizSession, new_seed, select_question_ids

from ...appref import posenc_app
from ...help_section import HelpSection
from ...i18n import tr
from ...keys import bind
from ...widgets.key_footer import KeyFooter
from ...widgets.title_bar import TitleBar
from ...widgets.toggles import GlyphCheckbox, GlyphRadioButton, GlyphSelectionList
from ..base import LocalizedScreen
from ..marks import QuestionMarks
from ..topic_choice import topics_line
from .session import QuizScreen
from .shorten import shorten

__all__ = ["QuizSetupScreen", "parse_count"]

DIFFICULTIES = (("setup.any", None), ("setup.easy", 1), ("setup.medium", 2), ("setup.hard", 3))
QUESTION_TYPES = NAMES_BY_ANSWER_MODE  # quizbank.question_types: choice, then typed, then self-graded
FILTER_KEYS = {"flagged": "setup.only_flagged", "wrong": "setup.only_wrong", "unseen": "setup.only_unseen"}
SETUP_MEMORY = "quiz_setup_toggles"  # the app's attribute keeping the setup's toggles for the session


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


class QuizSetupScreen(QuestionMarks, LocalizedScreen):
    """Choose topics, difficulty, count ("all" for every matching question), question types and
    status filters (flagged, wrong last time, unseen)."""

    HELP_SECTION = HelpSection("help.setup", 20)

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
        yield TitleBar()
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
            (shorten(topic.title.get(lang), 60), "bold"),
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
