"""`QuestionView`: one bank question in the current language, with its type's input and a revealed state.

Reusable by every screen that shows a question (Quiz, Browse, Study). Usage::

    view = QuestionView(question, seed=1234, mode="quiz")     # mount it, then:
    view.check()        # grade the input (Space in a quiz); posts QuestionView.Answered
    view.reveal()       # show the answer; grades the input if there is one (Study)
    view.self_grade(True)   # open questions: the user's own verdict after reveal

Modes:
    "quiz"      answer first; `check()` refuses an empty answer; open questions are self-graded
                (1-4 or y/n after Space).
    "study"     like quiz, but `reveal()` works with or without an answer and open questions
                post `Revealed` only (the Study screen rates with its own 1-4 keys).
    "reference" read-only and revealed from the start (Browse): choices marked, answer shown.

Messages (bubble to the screen):
    QuestionView.Answered(view, question_id, grade)   auto-graded or self-graded answer
    QuestionView.Revealed(view, question_id)          the answer became visible

Keys while unrevealed: 1-9 choose (mcq answers at once; multi toggles), up/down + Enter, t/f for
true/false, Esc leaves a text input. After reveal in quiz mode on an open question: 1-4 / y / n
self-grade. Keys that do not apply fall through to the screen (check_action returns False).

Bank text is data: everything is rendered with `tui.richtext` (no markup parsing) and the
explanation with the `Markdown` widget after `richtext.markdown_source` (math converted).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Markdown, Static

from quizbank.grading import Grade
from quizbank.question_types import CHOICE, SELF_GRADED, TYPED, QuestionType, question_type
from quizbank.safetext import escape_unsafe

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import tr
from ..keys import bind, focused_takes_text, localize_bindings
from ..richtext import inline, markdown_source, render_text
from .answers import AnswerInput, AnswerWidget, ChoiceAnswer, ChoiceItem, answer_widget_for, choice_tag

__all__ = ["AnswerInput", "ChoiceItem", "QuestionView", "choice_tag"]

STARS = {1: "★☆☆", 2: "★★☆", 3: "★★★"}


class QuestionView(Vertical, can_focus=True):
    """A question with type-specific input and a revealed state (see the module docstring)."""

    HELP_SECTION = HelpSection("help.question", 40)

    DEFAULT_CSS = """
    QuestionView { height: auto; padding-bottom: 1; }
    QuestionView .qv-meta { color: $text-muted; }
    QuestionView .qv-prompt { margin: 1 0; }
    QuestionView .qv-choices { height: auto; }
    QuestionView .qv-numeric { height: auto; }
    QuestionView .qv-number { width: 24; }
    QuestionView .qv-unit { margin-left: 1; color: $text-secondary; }
    QuestionView .qv-input-error { display: none; }
    QuestionView .qv-blanks {
        layout: grid;
        grid-size: 2;
        grid-columns: auto 1fr;
        grid-rows: 1;
        grid-gutter: 0 1;
        height: auto;
    }
    QuestionView .qv-blank-label { color: $text-accent; text-style: bold; }
    QuestionView .qv-blank { max-width: 40; }
    QuestionView .qv-hint { margin-top: 1; padding: 0; }
    QuestionView .qv-hints { margin-top: 1; padding: 0 1; border-left: outer $warning; }
    QuestionView .qv-note { color: $text-warning; }
    QuestionView .qv-feedback { margin-top: 1; padding: 0 1; }
    QuestionView .qv-feedback.-correct { background: $success-muted; color: $text-success; }
    QuestionView .qv-feedback.-wrong { background: $error-muted; color: $text-error; }
    QuestionView .qv-answer { height: auto; margin-top: 1; }
    QuestionView .qv-answer-title { color: $text-accent; text-style: bold; }
    QuestionView .qv-key-points { margin-top: 1; }
    QuestionView .qv-self-grade { margin-top: 1; padding: 0 1; background: $warning-muted; }
    QuestionView .qv-explanation-title { display: none; }
    QuestionView.-revealed .qv-explanation-title { display: block; }
    QuestionView .qv-explanation { margin: 0; padding: 0; background: transparent; }
    QuestionView .qv-drill { display: none; margin-top: 1; padding: 0 1; border-left: outer $accent; }
    QuestionView.-revealed .qv-drill.-linked { display: block; }
    """

    BINDINGS = [
        *[bind(str(n), f"number({n})", f"choose{n}", "key.choose", show=False) for n in range(1, 10)],
        bind("t", "true_false(True)", "answer_true", "key.answer_true", show=False),
        bind("f", "true_false(False)", "answer_false", "key.answer_false", show=False),
        bind("up", "move(-1)", "choice_up", "key.choice_up", show=False),
        bind("down", "move(1)", "choice_down", "key.choice_down", show=False),
        bind("enter", "pick", "choice_pick", "key.choice_pick", show=False),
        bind("y", "self_grade(True)", "self_yes", "key.got_it"),
        bind("x", "self_grade(False)", "self_no", "key.missed"),
        bind("h", "hint", "hint", "key.hint"),
        # the same key on a question without hints: it says so (and is not typed into an answer box)
        bind("h", "no_hint", "no_hint", "key.no_hint", show=False),
        bind("c", "open_drill", "open_drill", "key.drills"),
        bind("escape", "leave_input", "leave_input", "key.leave_input"),
    ]

    revealed: reactive[bool] = reactive(False, init=False)

    class Answered(Message):
        """The question was graded (`grade.correct` is True/False)."""

        def __init__(self, view: QuestionView, question_id: str, grade: Grade) -> None:
            super().__init__()
            self.view = view
            self.question_id = question_id
            self.grade = grade

        @property
        def control(self) -> QuestionView:
            return self.view

    class Ready(Message):
        """Mounted and focused (`focus_input`): keys held while it was mounted can follow."""

        def __init__(self, view: QuestionView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> QuestionView:
            return self.view

    class Revealed(Message):
        """The answer became visible (graded or not)."""

        def __init__(self, view: QuestionView, question_id: str) -> None:
            super().__init__()
            self.view = view
            self.question_id = question_id

        @property
        def control(self) -> QuestionView:
            return self.view

    def __init__(
        self,
        question: Any,
        *,
        seed: int | None = None,
        mode: str = "quiz",
        show_meta: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        if mode not in ("quiz", "study", "reference"):
            raise ValueError(f"unknown mode {mode!r}")
        self.question = question
        self.mode = mode
        self.seed = seed
        self.show_meta = show_meta
        self.grade: Grade | None = None
        self._asked_for_input = False  # check() without an answer once: the next one reveals
        self.awaiting_self_grade = False
        self.hints_shown = 0
        self.flagged = False
        self.note = ""
        self._ready = False
        self._focus_wanted: bool | None = None  # focus_input() asked before mount (its `soft`)
        self.answer: AnswerWidget = answer_widget_for(question, mode=mode, seed=seed)
        # (no per-type class here: the answer widget's class names the type, and a class swap on
        # the view would restyle its whole subtree on every question Browse shows in place)
        self.add_class(f"-mode-{mode}")

    # ------------------------------------------------------------------ structure

    @property
    def question_id(self) -> str:
        return self.question.id

    @property
    def qtype(self) -> str:
        return self.question.type

    @property
    def kind(self) -> QuestionType:
        """The question's type (`quizbank.question_types`): how it is answered, its answer box."""
        return question_type(self.question.type)

    @property
    def self_graded(self) -> bool:
        return self.kind.answered == SELF_GRADED

    @property
    def lang(self) -> str:
        return posenc_app(self).language

    @property
    def order(self) -> list[int]:
        """Display position -> bank index of the choices (empty for types without choices)."""
        return list(getattr(self.answer, "order", []))

    def _choice_count(self) -> int:
        return self.answer.choice_count()

    def compose(self) -> ComposeResult:
        if self.show_meta:
            yield Static("", classes="qv-meta", markup=False)
            yield Static("", classes="qv-note", markup=False)
        yield Static("", classes="qv-prompt", markup=False)
        yield self.answer
        if self.mode != "reference":
            yield Static("", classes="qv-hints", markup=False)
            yield Static("", classes="qv-hint hint", markup=False)
        yield Static("", classes="qv-feedback", markup=False)
        # right under the question, so it is on screen as soon as the model answer is revealed
        yield Static("", classes="qv-self-grade", markup=False)
        with Vertical(classes="qv-answer"):
            yield Static("", classes="qv-answer-title", markup=False)
            yield Static("", classes="qv-answer-text", markup=False)
            yield Static("", classes="qv-key-points", markup=False)
        yield Static("", classes="qv-drill", markup=False)  # a linked coding drill, once revealed
        yield Static("", classes="qv-explanation-title section-title", markup=False)

    def on_mount(self) -> None:
        if not self._alive():
            return  # removed before it mounted (a card replaced at once): nothing to render
        localize_bindings(self, self.lang)
        cursor_blink = getattr(self.app, "cursor_blink", True)
        for field in self.query(Input):
            field.cursor_blink = cursor_blink
        self.watch(self.app, "language", self._language_changed, init=False)
        self._ready = True
        if self.mode == "reference":
            self.revealed = True  # renders through watch_revealed
        else:
            self.render_texts()
        if self._focus_wanted is not None:
            self.focus_input(self._focus_wanted)

    def _alive(self) -> bool:
        """False once this view is being removed (its children may already be gone)."""
        return self.is_attached and not self._closing and not self._closed and not self._pruning

    def focus_input(self, soft: bool = True) -> None:
        """Focus the first text input (numeric/cloze) or the view itself. `soft`: the app moved
        focus (not the user), so command keys still run commands until the user types."""
        if not self._ready:  # asked before on_mount: done there, once the fields exist
            self._focus_wanted = soft
            return
        if not self._alive():
            return
        self._focus_wanted = None
        if self.revealed or not self.answer.focus_input(soft):
            self.screen.set_focus(self)  # at once (focus() waits a turn): held keys follow it
        self.post_message(self.Ready(self))

    # ------------------------------------------------------------------ rendering

    def _language_changed(self) -> None:
        localize_bindings(self, self.lang)
        self.render_texts()

    def set_question(self, question: Any) -> None:
        """Swap in an edited version of the same question (after a reload). Input state is kept
        when the structure is unchanged; otherwise the screen should mount a fresh view."""
        self.question = question
        self.answer.set_question(question)
        for old in self.query(".qv-explanation"):
            old.remove()
        self.render_texts()

    def compatible_with(self, question: Any) -> bool:
        """True if `question` can replace the current one in place (same type and shape)."""
        return self.answer.compatible_with(question)

    def show_question(self, question: Any, *, flagged: bool = False, note: str = "") -> None:
        """Reference mode (Browse's n / p): show another question in this mounted view.

        Mounting a fresh view costs a mount, a restyle and several repaints before the text is on
        screen. Here the texts are updated at once, so the next repaint shows them; an answer widget
        of another shape is swapped (it renders its choices once it is mounted) and the explanation's
        Markdown is updated in place.
        """
        if self.mode != "reference":
            raise ValueError("show_question is for reference mode; mount a fresh view to ask a question")
        if self.answer.compatible_with(question):
            self.answer.set_question(question)
        else:
            old = self.answer
            self.answer = answer_widget_for(question, mode=self.mode, seed=self.seed)
            self.mount(self.answer, after=old)
            old.remove()
        self.question = question
        self.flagged, self.note = flagged, note
        self.render_texts()

    def show_ready(self) -> bool:
        """True when `show_question` can be used now (mounted, rendered, not being removed)."""
        return self._ready and self._alive()

    def answer_mounted(self, answer: AnswerWidget) -> None:
        """A swapped-in answer widget is mounted (its controls exist now): render them."""
        if answer is self.answer and self._ready and self._alive():
            answer.render_state()

    def render_prompt(self) -> None:
        blank = self.answer.prompt_blank()
        self.query_one(".qv-prompt", Static).update(
            render_text(self.question.prompt.get(self.lang), blank=blank)
        )

    def render_texts(self) -> None:
        """(Re)render every text in the current language from the question and the state."""
        if not self._ready or not self._alive():
            return
        lang = self.lang
        q = self.question
        if self.show_meta:
            meta = Content.assemble(
                (q.id, "bold"),
                ("  ·  ", "dim"),
                (tr(f"type.{q.type}", lang), "$text-accent"),
                ("  ·  ", "dim"),
                (STARS.get(q.difficulty, ""), "$text-warning"),
                ("  ·  ⚑ " + tr("quiz.flagged", lang) if self.flagged else "", "bold $text-warning"),
            )
            self.query_one(".qv-meta", Static).update(meta)
            note_widget = self.query_one(".qv-note", Static)
            note_widget.display = bool(self.note)
            note_widget.update(
                Content.assemble("✎ ", (escape_unsafe(self.note, one_line=True), "italic"))
                if self.note
                else ""
            )
        self.render_prompt()
        self.answer.render_state()
        self._render_hint()
        self._render_hints()
        self._render_feedback()
        self._render_answer()
        self._render_self_grade()
        drill = self.query_one(".qv-drill", Static)
        drill.set_class(bool(getattr(q, "drill", None)), "-linked")
        if getattr(q, "drill", None):
            drill.update(Content.styled(tr("quiz.drill_link", lang, name=q.drill), "$text-accent"))
        title = self.query_one(".qv-explanation-title", Static)
        title.update(tr("quiz.explanation", lang))
        if self.revealed:
            self._ensure_explanation()

    def _render_hint(self) -> None:
        hints = list(self.query(".qv-hint").results(Static))
        if not hints:
            return
        hint = hints[0]
        lang = self.lang
        if self.revealed:
            hint.update("")
            hint.display = False
            return
        hint.display = True
        text = tr(self.answer.hint_key(self.instant), lang, n=self._choice_count())
        left = len(getattr(self.question, "hints", None) or []) - self.hints_shown
        if left > 0:
            text += "  ·  " + tr("quiz.hints_left", lang, left=left)
        hint.update(text)

    def _render_feedback(self) -> None:
        feedback = self.query_one(".qv-feedback", Static)
        lang = self.lang
        if (
            not self.revealed
            or self.mode == "reference"
            or (self.awaiting_self_grade and self.mode == "quiz")
        ):
            feedback.display = False  # (an open question waiting for the user's verdict asks for it instead)
            return
        feedback.display = True
        grade = self.grade
        feedback.set_class(grade is not None and grade.correct is True, "-correct")
        feedback.set_class(grade is not None and grade.correct is False, "-wrong")
        if grade is None or grade.correct is None:
            feedback.update(Content.styled(tr("quiz.revealed", lang), "bold"))
            return
        if self.self_graded:
            key = "quiz.self_graded_right" if grade.correct else "quiz.self_graded_wrong"
            feedback.update(Content.styled(("✓ " if grade.correct else "✗ ") + tr(key, lang), "bold"))
            return
        head = ("✓ " + tr("quiz.correct", lang)) if grade.correct else ("✗ " + tr("quiz.incorrect", lang))
        parts: list[Any] = [(head, "bold"), *self.answer.feedback_parts(grade)]
        feedback.update(Content.assemble(*parts))

    def _render_answer(self) -> None:
        lang = self.lang
        q = self.question
        box = self.query_one(".qv-answer", Vertical)
        show = self.revealed and (q.answer is not None or self.kind.answer_box)
        box.display = show
        if not show:
            return
        title = "quiz.model_answer" if self.self_graded else "quiz.answer"
        self.query_one(".qv-answer-title", Static).update(tr(title, lang))
        text = render_text(q.answer.get(lang)) if q.answer is not None else None
        parts = self.answer.answer_parts(text)
        self.query_one(".qv-answer-text", Static).update(Content("\n").join(parts))
        points = self.query_one(".qv-key-points", Static)
        key_points = getattr(q, "key_points", None) or []
        if key_points and not self.answer.shows_key_points():
            lines = [Content.styled(tr("quiz.key_points", lang), "bold $text-accent")]
            lines += [Content.assemble(("• ", "$text-accent"), inline(p.get(lang))) for p in key_points]
            points.update(Content("\n").join(lines))
            points.display = True
        else:
            points.display = False

    def _render_self_grade(self) -> None:
        widget = self.query_one(".qv-self-grade", Static)
        show = self.awaiting_self_grade and self.mode == "quiz"
        widget.display = show
        if show:
            widget.update(Content.styled(tr("quiz.self_grade", self.lang), "bold $text-warning"))

    def _ensure_explanation(self) -> None:
        source = markdown_source(self.question.explanation.get(self.lang))
        existing = list(self.query(".qv-explanation").results(Markdown))
        if existing:
            if existing[0].source != source:
                existing[0].update(source)
            return
        self.mount(Markdown(source, classes="qv-explanation", open_links=False))

    def watch_revealed(self, revealed: bool) -> None:
        self.set_class(revealed, "-revealed")
        for field in self.query(Input):
            field.disabled = revealed
        self.render_texts()

    # ------------------------------------------------------------------ answering

    def _has_input(self) -> bool:
        return self.answer.has_input()

    def _grade_input(self) -> Grade | None:
        """Grade what was entered, or None (and say why) if it cannot be graded."""
        return self.answer.grade_input()

    def check(self) -> Grade | None:
        """Quiz: grade the current answer and reveal. Open questions are revealed for self-grading.

        Returns the grade, or None if nothing could be graded yet (the user is told why).
        """
        if self.revealed:
            return self.grade
        if self.self_graded:
            self._reveal(None)
            return None
        if not self._has_input():
            if self._asked_for_input:  # second Space without an answer: just show it
                self._reveal(None)
                return None
            self._asked_for_input = True
            hint = "quiz.type_first" if self.kind.answered == TYPED else "quiz.choose_first"
            posenc_app(self).notify(tr(hint, self.lang), timeout=3)
            return None
        grade = self._grade_input()
        if grade is None:
            return None
        self._reveal(grade)
        return grade

    def reveal(self) -> Grade | None:
        """Show the answer. Grades the input if there is any (Study: answer or just recall)."""
        if self.revealed:
            return self.grade
        grade = self._grade_input() if (not self.self_graded and self._has_input()) else None
        self._reveal(grade)
        return grade

    def _reveal(self, grade: Grade | None) -> None:
        self.grade = grade
        self.awaiting_self_grade = self.self_graded and self.mode == "quiz"
        self.revealed = True
        if self.is_attached:
            self.screen.set_focus(self)  # at once: keys already queued on an input follow it
            self.refresh_bindings()
        self.post_message(self.Revealed(self, self.question_id))
        if grade is not None and grade.correct is not None:
            self.post_message(self.Answered(self, self.question_id, grade))

    def self_grade(self, correct: bool, rating: int | None = None) -> None:
        """Record the user's own verdict on an open question (after reveal)."""
        if not self.awaiting_self_grade:
            return
        self.awaiting_self_grade = False
        details: dict[str, Any] = {"self_graded": True} | ({"rating": rating} if rating is not None else {})
        verdict = f"self:{rating}" if rating is not None else ("self:yes" if correct else "self:no")
        typed = self.answer.typed  # an open answer typed before reveal is the response, with its ticks
        if typed:
            details |= {"self": verdict, **self.answer.response_details()}
        self.grade = Grade(correct, typed or verdict, details)
        self.render_texts()
        self.refresh_bindings()  # the footer's y/n give way to the screen's keys (n = next)
        self.post_message(self.Answered(self, self.question_id, self.grade))

    @property
    def instant(self) -> bool:
        """mcq/truefalse answer on the first key (study mode, or the "instant_submit" setting);
        otherwise the candidate chooses, may change, then confirms with Space or Enter."""
        return self.mode != "quiz" or bool(getattr(self.app, "instant_submit", False))

    def choose(self, position: int) -> None:
        """Pick the choice at display `position` (0-based): mcq/truefalse select it (and answer at
        once when `instant`), multi toggles."""
        if self.revealed or not 0 <= position < self._choice_count():
            return
        if self.answer.choose(position) and self.instant:
            self.check()
            return
        self.answer.render_state()
        self._render_hint()

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        choice_type = self.kind.answered == CHOICE
        if action == "number":
            if self.awaiting_self_grade:
                return int(parameters[0]) <= 4  # type: ignore[call-overload]
            if self.mode == "study":
                return False  # Study's number keys only rate (its screen binds 1-4)
            return choice_type and not self.revealed and int(parameters[0]) <= self._choice_count()  # type: ignore[call-overload]
        if action == "true_false":
            return self.answer.TRUE_FALSE_KEYS and not self.revealed and self.mode != "reference"
        if action == "move":
            return choice_type and not self.revealed and self.mode != "reference"
        if action == "pick":
            return (
                isinstance(self.answer, ChoiceAnswer)
                and not self.revealed
                and self.mode != "reference"
                and self.answer.can_pick()
            )
        if action == "hint":
            return (
                self.mode != "reference" and not self.revealed and bool(getattr(self.question, "hints", None))
            )
        if action == "no_hint":
            return (
                self.mode != "reference" and not self.revealed and not getattr(self.question, "hints", None)
            )
        if action == "self_grade":
            return self.awaiting_self_grade
        if action == "open_drill":
            return self.revealed and bool(getattr(self.question, "drill", None))
        if action == "leave_input":
            return isinstance(posenc_app(self).focused, Input) and focused_takes_text(self.app)
        return True

    def action_open_drill(self) -> None:
        """Open the coding drill this question links (`drill:` in the bank)."""
        posenc_app(self).open_drills(self.question.drill)

    def action_number(self, n: int) -> None:
        if self.awaiting_self_grade:
            self.self_grade(n >= 2, rating=n)
            return
        self.choose(n - 1)

    def action_true_false(self, value: bool) -> None:
        self.choose(0 if value else 1)

    def action_move(self, delta: int) -> None:
        self.answer.move(delta)

    def action_pick(self) -> None:
        """Enter: on a single-answer question, confirm the choice (or pick the highlighted one
        first when the cursor moved elsewhere); on a multi, toggle the highlighted choice."""
        if self.answer.pick():
            self.check()
            return
        self.choose(getattr(self.answer, "highlight", 0))

    def action_hint(self) -> None:
        self.show_hint()

    def action_no_hint(self) -> None:
        posenc_app(self).notify(tr("quiz.no_hints", self.lang), timeout=2)

    def show_hint(self) -> bool:
        """Show the next hint (False when there are none left)."""
        hints = list(getattr(self.question, "hints", None) or [])
        if self.revealed or self.hints_shown >= len(hints):
            if hints:
                posenc_app(self).notify(tr("quiz.no_more_hints", self.lang), timeout=2)
            return False
        self.hints_shown += 1
        self._render_hints()
        self._render_hint()
        return True

    def _render_hints(self) -> None:
        widgets = list(self.query(".qv-hints").results(Static))
        if not widgets:
            return
        hints = list(getattr(self.question, "hints", None) or [])[: self.hints_shown]
        widget = widgets[0]
        widget.display = bool(hints)
        if hints:
            total = len(self.question.hints)
            lines = [
                Content.assemble(
                    (tr("quiz.hint_n", self.lang, n=n, total=total) + "  ", "bold $text-warning"),
                    inline(h.get(self.lang)),
                )
                for n, h in enumerate(hints, start=1)
            ]
            widget.update(Content("\n").join(lines))

    def set_mark(self, flagged: bool, note: str) -> None:
        """Show the user's flag and note on this question."""
        self.flagged, self.note = flagged, note
        self.render_texts()

    def action_self_grade(self, correct: bool) -> None:
        self.self_grade(correct, rating=3 if correct else 1)

    def action_leave_input(self) -> None:
        self.focus()

    def submit_from(self, field: Input) -> None:
        """Enter in a text answer (called synchronously by `AnswerInput`): in a cloze, move to
        the next blank while some are empty; otherwise check (quiz) or reveal (study)."""
        if self.revealed:
            return
        if self.mode == "study" and not field.value.strip():
            self.reveal()  # Study: Enter in an empty field shows the answer, whatever the card
            return
        target = self.answer.next_field(field)
        if target is not None:
            self.screen.set_focus(target)
            return
        if self.mode == "study":
            self.reveal()
        else:
            self.check()

    def submit_typed(self) -> None:
        """Enter (Ctrl+R, Space on the empty box) in an open-answer box: check (quiz) or reveal (study);
        either way focus leaves the box at once (`_reveal`) and the typed answer is matched."""
        if self.revealed:
            return
        if self.mode == "study":
            self.reveal()
        else:
            self.check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit_from(event.input)
