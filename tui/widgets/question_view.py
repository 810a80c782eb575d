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

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Label, Markdown, Static

from quizbank.grading import Grade, grade_choices, grade_cloze, grade_numeric, grade_truefalse
from quizbank.quiz_session import choice_order
from quizbank.safetext import escape_unsafe

from ..i18n import tr
from ..keys import bind, focused_takes_text, localize_bindings
from ..richtext import inline, markdown_source, render_text

__all__ = ["AnswerInput", "ChoiceItem", "QuestionView"]

STARS = {1: "★☆☆", 2: "★★☆", 3: "★★★"}


class ChoiceItem(Horizontal):
    """One choice: a number marker and the wrapped text, with its `why` shown after reveal."""

    DEFAULT_CSS = """
    ChoiceItem { height: auto; margin-bottom: 0; }
    ChoiceItem .choice-marker { width: 5; color: $text-accent; text-style: bold; }
    ChoiceItem .choice-body { height: auto; width: 1fr; }
    ChoiceItem .choice-text { width: 1fr; }
    ChoiceItem .choice-why { display: none; color: $text-muted; padding-left: 2; }
    ChoiceItem .choice-why.-has-why { display: block; }
    ChoiceItem.-highlight { background: $boost; }
    ChoiceItem.-highlight .choice-marker { background: $accent; color: $text; }
    ChoiceItem.-selected .choice-marker { background: $primary; color: $text; }
    ChoiceItem.-correct .choice-marker { background: $success-muted; color: $text-success; }
    ChoiceItem.-correct .choice-text { color: $text-success; }
    ChoiceItem.-wrong .choice-marker { background: $error-muted; color: $text-error; }
    ChoiceItem.-wrong .choice-text { color: $text-error; }
    ChoiceItem.-missed .choice-marker { background: $warning-muted; color: $text-warning; }
    ChoiceItem.-missed .choice-text { color: $text-warning; }
    """

    class Clicked(Message):
        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    def __init__(self, position: int) -> None:
        super().__init__(classes="choice")
        self.position = position

    def compose(self) -> ComposeResult:
        yield Static(f" {self.position + 1} ", classes="choice-marker", markup=False)
        with Vertical(classes="choice-body"):
            yield Static("", classes="choice-text", markup=False)
            yield Static("", classes="choice-why", markup=False)

    def set_text(self, text: Content, why: Content | None) -> None:
        self.query_one(".choice-text", Static).update(text)
        why_widget = self.query_one(".choice-why", Static)
        why_widget.update(why if why is not None else "")
        why_widget.set_class(why is not None, "-has-why")

    def set_marker(self, marker: str) -> None:
        self.query_one(".choice-marker", Static).update(marker)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.position))


class AnswerInput(Input):
    """A text answer (a cloze blank or the numeric field) whose Enter acts at once.

    Textual delivers keys to the focused widget's queue as they arrive, and `focus()` and the
    `Submitted` message both take effect later. When a terminal sends a burst ("slope⏎logits",
    a paste, fast typing), the keys after Enter are already queued on this input, so moving
    to the next blank through `Submitted` would let them land here. Instead Enter is handled
    synchronously (the view moves focus or grades right away) and any key still queued here
    after focus moved on is handed to the widget that now has focus, in order.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._handed_off = False
        # Focused by the app (a new card), not by the user: while it is empty, a key bound to a
        # command runs the command instead of landing here. Tab, a click or typing make it a field.
        self.soft = False

    @property
    def takes_text(self) -> bool:
        """True when printable keys go into the field (the footer hides commands they would run)."""
        return not (self.soft and not self.value)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """While soft and empty, letters stay bound to their commands (and in the footer)."""
        return self.takes_text and super().check_consume_key(key, character)

    # Textual calls each class's `_on_<event>` along the MRO (until prevent_default), so these
    # handlers do not call super(): Input's own run after them.
    def _on_focus(self, event: events.Focus) -> None:
        self._handed_off = False

    def _on_blur(self, event: events.Blur) -> None:
        self.soft = False

    def _on_mouse_down(self, event: events.MouseDown) -> None:
        if self.soft:
            self.soft = False
            self.screen.refresh_bindings()

    def _command_for(self, key: str) -> Any:
        """The enabled binding (outside this field) that `key` runs, if any."""
        active = self.screen.active_bindings.get(key) if self.is_attached else None
        if active is None or not active.enabled or active.node is self:
            return None
        return active

    async def _on_key(self, event: events.Key) -> None:
        focused = self.screen.focused if self.is_attached else None
        if self._handed_off and focused is not self:
            event.stop()
            event.prevent_default()
            if focused is not None:
                focused._forward_event(events.Key(event.key, event.character))
            return
        if self.soft and not self.value and event.is_printable:
            command = self._command_for(event.key)
            if command is not None:
                event.stop()
                event.prevent_default()
                await self.app.run_action(command.binding.action, command.node)
                return
            self.soft = False  # typing: from here on keys are text
            self.screen.refresh_bindings()
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            view = next((a for a in self.ancestors if isinstance(a, QuestionView)), None)
            if view is None:
                await self.action_submit()
                return
            view.submit_from(self)
            self._handed_off = self.screen.focused is not self


class QuestionView(Vertical, can_focus=True):
    """A question with type-specific input and a revealed state (see the module docstring)."""

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
        *[bind(str(n), f"number({n})", f"choose{n}", "key.check", show=False) for n in range(1, 10)],
        bind("up", "move(-1)", "choice_up", "key.check", show=False),
        bind("down", "move(1)", "choice_down", "key.check", show=False),
        bind("enter", "pick", "choice_pick", "key.check", show=False),
        bind("y", "self_grade(True)", "self_yes", "key.got_it"),
        bind("x", "self_grade(False)", "self_no", "key.missed"),
        bind("h", "hint", "hint", "key.hint"),
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
        self.highlight = 0
        self.cursor_moved = False  # the highlight shows (and Enter picks) only after an arrow key
        self._asked_for_input = False  # check() without an answer once: the next one reveals
        self.selected: set[int] = set()  # bank indices
        self.tf_value: bool | None = None
        self.awaiting_self_grade = False
        self.hints_shown = 0
        self.flagged = False
        self.note = ""
        self._ready = False
        self.order = self._choice_order()
        self.add_class(f"-type-{question.type}", f"-mode-{mode}")

    # ------------------------------------------------------------------ structure

    @property
    def question_id(self) -> str:
        return self.question.id

    @property
    def qtype(self) -> str:
        return self.question.type

    @property
    def lang(self) -> str:
        return self.app.language

    def _choice_order(self) -> list[int]:
        n = len(getattr(self.question, "choices", []) or [])
        if self.question.type not in ("mcq", "multi") or self.seed is None or self.mode == "reference":
            return list(range(n))
        return choice_order(self.seed, self.question.id, n)

    def _choice_count(self) -> int:
        if self.qtype in ("mcq", "multi"):
            return len(self.order)
        if self.qtype == "truefalse":
            return 2
        return 0

    def compose(self) -> ComposeResult:
        if self.show_meta:
            yield Static("", classes="qv-meta", markup=False)
            yield Static("", classes="qv-note", markup=False)
        yield Static("", classes="qv-prompt", markup=False)
        qtype = self.qtype
        if qtype in ("mcq", "multi", "truefalse"):
            with Vertical(classes="qv-choices"):
                for position in range(self._choice_count()):
                    yield ChoiceItem(position)
        elif qtype == "numeric" and self.mode != "reference":
            with Horizontal(classes="qv-numeric"):
                yield AnswerInput(placeholder="0.0", classes="qv-number", compact=True)
                yield Label("", classes="qv-unit", markup=False)
            yield Static("", classes="qv-input-error error", markup=False)
        elif qtype == "cloze" and self.mode != "reference":
            with Horizontal(classes="qv-blanks"):
                for n in range(1, len(self.question.blanks) + 1):
                    yield Label(f"[{n}]", classes="qv-blank-label", markup=False)
                    yield AnswerInput(classes="qv-blank", id=f"blank-{n}", compact=True)
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

    def focus_input(self, soft: bool = True) -> None:
        """Focus the first text input (numeric/cloze) or the view itself. `soft`: the app moved
        focus (not the user), so command keys still run commands until the user types."""
        inputs = list(self.query(Input))
        if inputs and not self.revealed:
            if isinstance(inputs[0], AnswerInput):
                inputs[0].soft = soft
            inputs[0].focus()
        else:
            self.focus()

    # ------------------------------------------------------------------ rendering

    def _language_changed(self) -> None:
        localize_bindings(self, self.lang)
        self.render_texts()

    def set_question(self, question: Any) -> None:
        """Swap in an edited version of the same question (after a reload). Input state is kept
        when the structure is unchanged; otherwise the screen should mount a fresh view."""
        self.question = question
        self.order = self._choice_order() if len(self.order) != self._choice_count() else self.order
        for old in self.query(".qv-explanation"):
            old.remove()
        self.render_texts()

    def compatible_with(self, question: Any) -> bool:
        """True if `question` can replace the current one in place (same type and shape)."""
        if question.type != self.question.type:
            return False
        if question.type in ("mcq", "multi"):
            return len(question.choices) == len(self.question.choices)
        if question.type == "cloze":
            return len(question.blanks) == len(self.question.blanks)
        return True

    def _blank_content(self, n: int) -> Content:
        inputs = list(self.query(".qv-blank").results(Input))
        value = inputs[n - 1].value.strip() if 0 < n <= len(inputs) else ""
        per_blank = (self.grade.details.get("blanks") if self.grade else None) or []
        if self.revealed and n - 1 < len(per_blank):
            style = "bold $text-success" if per_blank[n - 1] else "bold $text-error strike"
            shown = value or "…"
            parts: list[Any] = [(f"⟦{n}: {shown}⟧", style)]
            if not per_blank[n - 1]:
                parts.append((f" {self._blank_answer(n)}", "bold $text-success"))
            return Content.assemble(*parts)
        if self.mode == "reference" or (self.revealed and not value):
            return Content.styled(f"⟦{self._blank_answer(n)}⟧", "bold $text-success")
        if value:
            return Content.styled(f"⟦{n}: {value}⟧", "bold $text-accent")
        return Content.styled(f"⟦{n}: ____⟧", "$text-accent")

    def _blank_answer(self, n: int) -> str:
        accept = self.question.blanks[n - 1].accept
        readable = [a for a in accept if "\\" not in a] or [a.replace("\\", "") for a in accept]
        return readable[0]

    def render_texts(self) -> None:
        """(Re)render every text in the current language from the question and the state."""
        if not self._ready:
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
        blank = self._blank_content if q.type == "cloze" else None
        self.query_one(".qv-prompt", Static).update(render_text(q.prompt.get(lang), blank=blank))
        if q.type in ("mcq", "multi", "truefalse"):
            self._render_choices()
        if q.type == "numeric":
            unit = q.unit or ""
            for label in self.query(".qv-unit").results(Label):
                label.update(unit)
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

    def _render_choices(self) -> None:
        lang = self.lang
        q = self.question
        items = list(self.query(ChoiceItem))
        revealed = self.revealed
        for position, item in enumerate(items):
            if q.type == "truefalse":
                value = position == 0
                text = Content(tr("quiz.true" if value else "quiz.false", lang))
                why = None
                is_correct = value == bool(q.correct)
                chosen = self.tf_value is not None and self.tf_value == value
            else:
                index = self.order[position]
                choice = q.choices[index]
                text = render_text(choice.text.get(lang))
                why = render_text(choice.why.get(lang)) if (choice.why is not None and revealed) else None
                is_correct = bool(choice.correct)
                chosen = index in self.selected
            item.set_class(
                self.cursor_moved
                and position == self.highlight
                and not revealed
                and self.mode != "reference",
                "-highlight",
            )
            answered = revealed and self.grade is not None and self.mode != "reference"
            missed = answered and is_correct and not chosen
            item.set_class(chosen and not revealed, "-selected")
            item.set_class(revealed and is_correct and not missed, "-correct")
            item.set_class(revealed and chosen and not is_correct, "-wrong")
            item.set_class(missed, "-missed")
            tag = ""
            if revealed:
                if missed:
                    marker = " ○ "
                elif is_correct:
                    marker = " ✓ "
                else:
                    marker = " ✗ " if chosen else f" {position + 1} "
                if answered and (chosen or is_correct):
                    tag = choice_tag(chosen, is_correct, lang, multi=q.type == "multi")
            elif q.type == "multi":
                marker = "[x]" if chosen else f"[{position + 1}]"
            else:
                marker = "(•)" if chosen else f" {position + 1} "
            item.set_marker(marker)
            if tag:
                style = (
                    "bold $text-success"
                    if (chosen and is_correct)
                    else ("bold $text-warning" if missed else "bold $text-error")
                )
                text = Content.assemble((tag, style), "  ", text)
            item.set_text(text, why)

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
        key = {
            "mcq": "quiz.choice_hint",
            "multi": "quiz.multi_hint",
            "truefalse": "quiz.tf_hint",
            "numeric": "quiz.numeric_hint",
            "cloze": "quiz.cloze_hint",
            "open": "quiz.open_hint",
        }[self.qtype]
        if self.qtype in ("mcq", "truefalse") and self.instant:
            key += "_instant"
        text = tr(key, lang, n=self._choice_count())
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
        if self.qtype == "open":
            key = "quiz.self_graded_right" if grade.correct else "quiz.self_graded_wrong"
            feedback.update(Content.styled(("✓ " if grade.correct else "✗ ") + tr(key, lang), "bold"))
            return
        head = ("✓ " + tr("quiz.correct", lang)) if grade.correct else ("✗ " + tr("quiz.incorrect", lang))
        parts: list[Any] = [(head, "bold")]
        if self.qtype == "numeric":
            # the expected value is in the Answer box below; here, what was read from the input
            unit = f" {self.question.unit}" if self.question.unit else ""
            shown = grade.response
            parsed = grade.details.get("value")
            if isinstance(parsed, float) and _fmt_number(parsed) != shown:
                shown += f" = {_fmt_number(parsed)}"
            parts.append((f"   {tr('quiz.your_answer', lang)}: {shown}{unit}", ""))
        feedback.update(Content.assemble(*parts))

    def _render_answer(self) -> None:
        lang = self.lang
        q = self.question
        box = self.query_one(".qv-answer", Vertical)
        show = self.revealed and (q.answer is not None or q.type in ("open", "cloze", "numeric"))
        box.display = show
        if not show:
            return
        title = "quiz.model_answer" if q.type == "open" else "quiz.answer"
        self.query_one(".qv-answer-title", Static).update(tr(title, lang))
        parts: list[Content] = []
        if q.type == "numeric" and q.value is not None:  # a generated template (Browse) has no value
            value = _fmt_number(q.value)
            if q.tolerance:
                value = tr("quiz.within", lang, value=value, tol=_fmt_number(q.tolerance))
            parts.append(Content.styled(value + (f" {q.unit}" if q.unit else ""), "bold $text-success"))
        if q.answer is not None:
            parts.append(render_text(q.answer.get(lang)))
        if q.type == "cloze":
            for n, blank in enumerate(q.blanks, start=1):
                readable = [a for a in blank.accept if "\\" not in a]
                parts.append(
                    Content.assemble(
                        (f"[{n}] ", "bold"),
                        (readable[0] if readable else self._blank_answer(n), "bold $text-success"),
                        (
                            "   " + tr("quiz.accepts", lang, values=", ".join(readable[1:]))
                            if len(readable) > 1
                            else "",
                            "dim",
                        ),
                    )
                )
        self.query_one(".qv-answer-text", Static).update(Content("\n").join(parts))
        points = self.query_one(".qv-key-points", Static)
        key_points = getattr(q, "key_points", None) or []
        if key_points:
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
        qtype = self.qtype
        if qtype in ("mcq", "multi"):
            return bool(self.selected)
        if qtype == "truefalse":
            return self.tf_value is not None
        if qtype == "numeric":
            return bool(self.query_one(".qv-number", Input).value.strip())
        if qtype == "cloze":
            return any(field.value.strip() for field in self.query(".qv-blank").results(Input))
        return False

    def _grade_input(self) -> Grade | None:
        """Grade what was entered, or None (and say why) if it cannot be graded."""
        q = self.question
        qtype = self.qtype
        if qtype in ("mcq", "multi"):
            return grade_choices(q, self.selected)
        if qtype == "truefalse":
            return grade_truefalse(q, bool(self.tf_value))
        if qtype == "numeric":
            raw = self.query_one(".qv-number", Input).value
            try:
                return grade_numeric(q, raw)
            except ValueError as exc:
                error = self.query_one(".qv-input-error", Static)
                error.update(tr("quiz.not_number", self.lang, error=str(exc)))
                error.display = True
                return None
        if qtype == "cloze":
            return grade_cloze(q, [field.value for field in self.query(".qv-blank").results(Input)])
        return None

    def check(self) -> Grade | None:
        """Quiz: grade the current answer and reveal. Open questions are revealed for self-grading.

        Returns the grade, or None if nothing could be graded yet (the user is told why).
        """
        if self.revealed:
            return self.grade
        if self.qtype == "open":
            self._reveal(None)
            return None
        if not self._has_input():
            if self._asked_for_input:  # second Space without an answer: just show it
                self._reveal(None)
                return None
            self._asked_for_input = True
            hint = "quiz.type_first" if self.qtype in ("numeric", "cloze") else "quiz.choose_first"
            self.app.notify(tr(hint, self.lang), timeout=3)
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
        grade = self._grade_input() if (self.qtype != "open" and self._has_input()) else None
        self._reveal(grade)
        return grade

    def _reveal(self, grade: Grade | None) -> None:
        self.grade = grade
        self.awaiting_self_grade = self.qtype == "open" and self.mode == "quiz"
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
        details = {"self_graded": True} | ({"rating": rating} if rating is not None else {})
        self.grade = Grade(
            correct,
            f"self:{rating}" if rating is not None else ("self:yes" if correct else "self:no"),
            details,
        )
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
        self.highlight = position
        if self.qtype == "truefalse":
            self.tf_value = position == 0
        elif self.qtype == "mcq":
            self.selected = {self.order[position]}
        else:
            self.selected ^= {self.order[position]}
            self._render_choices()
            return
        if self.instant:
            self.check()
        else:
            self._render_choices()
            self._render_hint()

    def _chosen_position(self) -> int | None:
        if self.qtype == "truefalse":
            return None if self.tf_value is None else (0 if self.tf_value else 1)
        if self.qtype == "mcq" and self.selected:
            return self.order.index(next(iter(self.selected)))
        return None

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        choice_type = self.qtype in ("mcq", "multi", "truefalse")
        if action == "number":
            if self.awaiting_self_grade:
                return int(parameters[0]) <= 4  # type: ignore[call-overload]
            return choice_type and not self.revealed and int(parameters[0]) <= self._choice_count()  # type: ignore[call-overload]
        if action == "move":
            return choice_type and not self.revealed and self.mode != "reference"
        if action == "pick":
            confirm = self.qtype in ("mcq", "truefalse") and self._has_input()
            return (
                choice_type
                and not self.revealed
                and self.mode != "reference"
                and (self.cursor_moved or confirm)
            )
        if action == "hint":
            return (
                self.mode != "reference" and not self.revealed and bool(getattr(self.question, "hints", None))
            )
        if action == "self_grade":
            return self.awaiting_self_grade
        if action == "open_drill":
            return self.revealed and bool(getattr(self.question, "drill", None))
        if action == "leave_input":
            return isinstance(self.app.focused, Input) and focused_takes_text(self.app)
        return True

    def action_open_drill(self) -> None:
        """Open the coding drill this question links (`drill:` in the bank)."""
        self.app.open_drills(self.question.drill)

    def action_number(self, n: int) -> None:
        if self.awaiting_self_grade:
            self.self_grade(n >= 2, rating=n)
            return
        self.choose(n - 1)

    def action_move(self, delta: int) -> None:
        count = self._choice_count()
        if count:
            if not self.cursor_moved:
                self.cursor_moved = True
                self.highlight = 0 if delta > 0 else count - 1
            else:
                self.highlight = (self.highlight + delta) % count
            self._render_choices()
            items = list(self.query(ChoiceItem))
            if items:
                items[self.highlight].scroll_visible()

    def action_pick(self) -> None:
        """Enter: on a single-answer question, confirm the choice (or pick the highlighted one
        first when the cursor moved elsewhere); on a multi, toggle the highlighted choice."""
        if self.qtype in ("mcq", "truefalse") and self._has_input():
            if not self.cursor_moved or self.highlight == self._chosen_position():
                self.check()
                return
        self.choose(self.highlight)

    def action_hint(self) -> None:
        self.show_hint()

    def show_hint(self) -> bool:
        """Show the next hint (False when there are none left)."""
        hints = list(getattr(self.question, "hints", None) or [])
        if self.revealed or self.hints_shown >= len(hints):
            if hints:
                self.app.notify(tr("quiz.no_more_hints", self.lang), timeout=2)
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

    def on_choice_item_clicked(self, message: ChoiceItem.Clicked) -> None:
        message.stop()
        if self.mode != "reference":
            self.choose(message.position)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.qtype == "cloze":
            self.query_one(".qv-prompt", Static).update(
                render_text(self.question.prompt.get(self.lang), blank=self._blank_content)
            )
        elif self.qtype == "numeric":
            self.query_one(".qv-input-error", Static).display = False

    def submit_from(self, field: Input) -> None:
        """Enter in a text answer (called synchronously by `AnswerInput`): in a cloze, move to
        the next blank while some are empty; otherwise check (quiz) or reveal (study)."""
        if self.revealed:
            return
        if self.qtype == "cloze":
            blanks = list(self.query(".qv-blank").results(Input))
            if field in blanks:
                position = blanks.index(field)
                if position + 1 < len(blanks) and not all(b.value.strip() for b in blanks):
                    self.screen.set_focus(blanks[position + 1])
                    return
        if self.mode == "study":
            self.reveal()
        else:
            self.check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit_from(event.input)


def choice_tag(chosen: bool, correct: bool, lang: str, *, multi: bool = True) -> str:
    """The words beside a revealed choice, so the verdict never rests on colour or glyph alone."""
    if chosen and correct:
        return tr("quiz.tag_picked_right", lang)
    if correct:
        return tr("quiz.tag_missed" if multi else "quiz.tag_answer", lang)
    return tr("quiz.tag_picked_wrong", lang) if chosen else ""


def _fmt_number(value: float) -> str:
    return f"{value:.6g}"
