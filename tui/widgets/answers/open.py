"""An open question: answered in your head, or typed into an optional box and matched against the key points.

Before reveal (Quiz and Study) the question has an answer box, focused when the card opens. Enter reveals,
as on every other card: on an empty box it just shows the model answer, after typing it also matches what
was typed (Ctrl+R does the same). Space on the empty box reveals too, and the box does not claim it, so
Study's footer keeps "Space Show answer"; once something is typed Space is a space. Escape leaves the
box, so single-letter keys act again. The box soft-wraps long answers; Enter never adds a newline (a terminal and
a browser tab through textual-serve send Shift+Enter and Ctrl+Enter as a plain Enter).

A reveal moves focus out of the box at once (`QuestionView._reveal`); the app's key queue
(`tui.keyorder.KeyQueue`) hands on the next key only after Enter was handled, and holds keys while the
screen replaces its card, so a rating key typed right after Enter rates and never lands in the box. On
reveal the box is frozen: read-only, out of the focus chain, its keys off.

On reveal with text, the open-answer judge (`quizbank.judge`) gives each key point a verdict: ✓ covered
(pre-ticked), ✗ contradicted (the answer states a misconception; its correction shows under the point) or
· not found. The candidate can change every tick (Tab to it, Space, or a click), as in the mock: a ticked
point counts as covered, and unticking a point the judge found contradicted makes it contradicted again.
The marks suggest a rating (`quizbank.progress.rating_suggestions`): any contradicted point Again; else by
coverage, under 40% Again, under 70% Hard, under 100% Good, every point Easy. It is only shown: a rating or a
self-grade needs the user's key.
The text is kept in the widget: replacing the card never happens while it is typed into (the screens hold
keys meanwhile), and a reload that keeps the question keeps the widget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Static, TextArea

from quizbank.progress.rating_suggestions import suggested_rating

from ...appref import posenc_app
from ...help_section import HelpSection
from ...i18n import tr
from ...judge_warmup import warm_judge
from ...keys import bind, localize_bindings
from ...richtext import inline
from ..text_area import SafeTextArea
from ..toggles import GlyphCheckbox
from .base import AnswerWidget, answer_widget

if TYPE_CHECKING:
    from quizbank.judge.verdicts import Verdict

__all__ = ["OpenAnswer", "OpenAnswerArea"]

MARKS = {
    "covered": ("✓", "open.covered", "bold $text-success"),
    "contradicted": ("✗", "open.contradicted", "bold $text-error"),
    "not_found": ("·", "open.not_found", "bold $text-muted"),
}


def judged_point(point: Any, state: str, verdict: Any, lang: str) -> Content:
    """A key point's line with its mark; a contradicted one adds the misconception heard and its
    correction on the lines below (Quiz, Study and the mock interview show points this way)."""
    glyph, key, style = MARKS[state]
    parts: list[Any] = [(f"{glyph} {tr(key, lang)}", style), "  ", inline(point.get(lang))]
    if state == "contradicted" and verdict is not None and verdict.verdict == "contradicted":
        claim = verdict.claim.get(lang) if verdict.claim is not None else verdict.evidence
        if claim:
            parts += ["\n    ", (tr("open.you_said", lang), "$text-error"), " ", inline(claim)]
        if verdict.correction is not None:
            parts += [
                "\n    ",
                (tr("open.correction", lang), "$text-success"),
                " ",
                inline(verdict.correction.get(lang)),
            ]
    return Content.assemble(*parts)


class OpenAnswerArea(SafeTextArea):
    """The typed answer. Enter, Ctrl+R and Space on the empty box reveal; Escape leaves the box."""

    HELP_SECTION = HelpSection("help.open_answer", 50)

    BINDINGS = [
        bind("enter", "submit", "open.submit_enter", "open.key_submit"),
        bind("ctrl+r", "submit", "open.submit", "open.key_submit", show=False),
        bind("escape", "leave", "open.leave", "key.leave_input"),
    ]

    takes_text = True
    _was_empty = True

    @property
    def owner(self) -> OpenAnswer | None:
        return next((a for a in self.ancestors if isinstance(a, OpenAnswer)), None)

    def on_mount(self) -> None:
        localize_bindings(self, posenc_app(self).language)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("submit", "leave"):
            return not self.read_only  # frozen on reveal: nothing to submit or leave
        return super().check_action(action, parameters)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """Space on the empty box is the screen's reveal key (shown in the footer), not text."""
        if key == "space" and not self.text.strip():
            return False
        return super().check_consume_key(key, character)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        empty = not self.text.strip()
        if empty != self._was_empty:  # Space changes meaning: the footer follows
            self._was_empty = empty
            if self.is_attached:
                self.screen.refresh_bindings()

    def _submit(self) -> None:
        """Reveal now (the view moves focus out of the box at once)."""
        owner = self.owner
        if owner is not None and owner.view is not None:
            owner.view.submit_typed()

    def action_submit(self) -> None:
        self._submit()

    def action_leave(self) -> None:
        owner = self.owner
        if owner is not None and owner.view is not None:
            self.screen.set_focus(owner.view)

    # Runs before TextArea's own `_on_key` (Textual calls each class's handler along the MRO).
    def _on_key(self, event: events.Key) -> None:  # type: ignore[override]  # Textual takes sync or async
        if self.read_only:
            return
        # this box's own keys act now, not when the key has bubbled up to the screen's bindings:
        # by then the keys typed after it would already have landed here as text
        for binding in self._bindings.key_to_bindings.get(event.key, []):
            if binding.action in ("submit", "leave"):
                event.stop()
                event.prevent_default()
                getattr(self, f"action_{binding.action}")()
                return
        if event.key == "space" and not self.text.strip():
            event.stop()
            event.prevent_default()
            self._submit()


@answer_widget("open")
class OpenAnswer(AnswerWidget):
    HINT_KEY = "quiz.open_hint"

    DEFAULT_CSS = """
    OpenAnswer .qv-open-box { height: auto; min-height: 3; max-height: 8; }
    OpenAnswer .qv-open-points { height: auto; margin-top: 1; }
    OpenAnswer .qv-open-title { color: $text-accent; text-style: bold; }
    OpenAnswer .qv-open-row { height: auto; }
    OpenAnswer .qv-open-tick { width: 5; }
    OpenAnswer .qv-open-text { width: 1fr; }
    OpenAnswer .qv-open-score { text-style: bold; }
    """

    class Coverage(Message):
        """The key points covered changed (on reveal, or a tick)."""

        def __init__(self, answer: OpenAnswer, covered: int, total: int, contradicted: int = 0) -> None:
            super().__init__()
            self.answer = answer
            self.covered = covered
            self.total = total
            self.contradicted = contradicted

    def on_mount(self) -> None:
        if self.mode != "reference":
            warm_judge(self)

    def prepare(self) -> None:
        self.matched = False  # the key points were judged against a typed answer (on reveal)
        self.verdicts: list[Any] = []  # quizbank.judge.PointVerdict per key point, once judged

    def build(self) -> list[Widget]:
        if self.mode == "reference":
            return []
        rows = [
            Horizontal(
                GlyphCheckbox("", classes="qv-open-tick", id=f"qv-point-{n}", compact=True),
                Static("", classes="qv-open-text", markup=False),
                classes="qv-open-row",
            )
            for n in range(1, len(self._points()) + 1)
        ]
        points = Vertical(
            Static("", classes="qv-open-title", markup=False),
            *rows,
            Static("", classes="qv-open-score", markup=False),
            classes="qv-open-points",
        )
        points.display = False
        area = OpenAnswerArea(
            "", classes="qv-open-box", soft_wrap=True, show_line_numbers=False, tab_behavior="focus"
        )
        return [area, points]

    def _points(self) -> list[Any]:
        return list(getattr(self.question, "key_points", None) or [])

    def _area(self) -> OpenAnswerArea | None:
        found = list(self.query(OpenAnswerArea))
        return found[0] if found else None

    def _boxes(self) -> list[Checkbox]:
        return list(self.query(".qv-open-tick").results(Checkbox))

    # ------------------------------------------------------------------ protocol

    @property
    def typed(self) -> str:
        """What the candidate typed (stripped; "" when nothing)."""
        area = self._area()
        return area.text.strip() if area is not None else ""

    def hint_key(self, instant: bool) -> str:
        return "quiz.open_hint" if self.mode == "reference" else "open.hint"

    def focus_input(self, soft: bool) -> bool:
        area = self._area()
        if area is None or area.read_only:
            return False
        self.screen.set_focus(area)
        return True

    def compatible_with(self, question: Any) -> bool:
        return question.type == self.question.type and len(self._points_of(question)) == len(self._points())

    @staticmethod
    def _points_of(question: Any) -> list[Any]:
        return list(getattr(question, "key_points", None) or [])

    def shows_key_points(self) -> bool:
        """True when the key points show here, ticked (the view then leaves them out of its answer box)."""
        return self.matched

    def ticks(self) -> list[bool]:
        return [box.value for box in self._boxes()]

    def marks(self) -> list[Verdict]:
        """Per key point: "covered" (ticked), "contradicted" (the judge said so and it is not ticked) or
        "not_found" (`quizbank.judge.effective_marks`)."""
        from quizbank.judge import effective_marks

        return effective_marks(self.ticks(), self.verdicts)

    def coverage(self) -> tuple[int, int] | None:
        """(covered, total) key points once judged, else None."""
        if not self.matched:
            return None
        ticks = self.ticks()
        return sum(ticks), len(ticks)

    def contradicted(self) -> int:
        return self.marks().count("contradicted") if self.matched else 0

    def suggestion(self) -> int | None:
        cov = self.coverage()
        return suggested_rating(*cov, self.contradicted()) if cov is not None else None

    def response_details(self) -> dict[str, Any]:
        """What a recorded attempt keeps of the typed answer (empty when nothing was typed)."""
        cov = self.coverage()
        if cov is None:
            return {}
        return {"key_points": self.ticks(), "marks": self.marks(), "covered": cov[0], "total": cov[1]}

    def render_state(self) -> None:
        view = self.view
        area = self._area()
        if area is None or view is None:
            return
        if view.revealed and not area.read_only:
            self._match()
        area.display = not (view.revealed and not self.typed)
        points = self.query_one(".qv-open-points", Vertical)
        points.display = self.matched
        if self.matched:
            self._render_points()

    def _match(self) -> None:
        """On reveal: freeze the box, and judge the typed answer against every key point."""
        from quizbank.judge import judge_answer

        area = self._area()
        assert area is not None
        area.read_only = True
        area.can_focus = False  # Tab goes to the key points; the frozen box offers no keys
        if not self.typed or not self._points():
            return
        self.verdicts = judge_answer(self._points(), self.typed)
        for box, verdict in zip(self._boxes(), self.verdicts, strict=True):
            with box.prevent(Checkbox.Changed):
                box.value = verdict.covered
        self.matched = True
        # posted from this widget's own loop: created here (during a reveal the screen ran), the message
        # would carry the screen as its sender, and Textual never bubbles a message back to its sender
        self.call_later(self._post_coverage)

    def _render_points(self) -> None:
        lang = self.view.lang
        self.query_one(".qv-open-title", Static).update(
            Content.assemble(
                (tr("quiz.key_points", lang), "bold $text-accent"),
                ("  " + tr("open.tick_hint", lang), "dim"),
            )
        )
        for n, (text, point, state) in enumerate(
            zip(self.query(".qv-open-text").results(Static), self._points(), self.marks(), strict=True)
        ):
            verdict = self.verdicts[n] if n < len(self.verdicts) else None
            text.update(judged_point(point, state, verdict, lang))
        covered, total = self.coverage() or (0, 0)
        contradicted = self.contradicted()
        rating = suggested_rating(covered, total, contradicted)
        parts: list[Any] = [tr("open.score", lang, done=covered, total=total)]
        if contradicted:
            parts += ["  ·  ", (tr("open.contradicted_count", lang, n=contradicted), "bold $text-error")]
        if rating is not None:
            parts += ["  ·  ", (tr("open.suggest", lang, rating=rating, name=tr(f"open.rating{rating}", lang)),
                                "$text-warning")]  # fmt: skip
        self.query_one(".qv-open-score", Static).update(Content.assemble(*parts))

    def _post_coverage(self) -> None:
        cov = self.coverage()
        if cov is not None:
            self.post_message(self.Coverage(self, *cov, self.contradicted()))

    @on(Checkbox.Changed)
    def _ticked(self, event: Checkbox.Changed) -> None:
        event.stop()
        if self.matched:
            self._render_points()
            self._post_coverage()
