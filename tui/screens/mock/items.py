"""The mock interview's item widgets: an open question (typed answer, then pre-ticked key points) and a
coding drill (statement, editor, grade)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import (
    Checkbox,
    Markdown,
    Static,
    TextArea,
)

from ...appref import posenc_app
from ...help_section import HelpSection
from ...i18n import tr
from ...judge_warmup import warm_judge
from ...keys import bind, localize_bindings
from ...richtext import inline, markdown_source, render_text
from ...widgets.answers.open import judged_point
from ...widgets.text_area import SafeTextArea
from ...widgets.toggles import GlyphCheckbox

if TYPE_CHECKING:
    from quizbank.judge.verdicts import Verdict

__all__ = ["DrillItem", "ItemShown", "OpenItem", "drills_by_name"]


def drills_by_name() -> dict[str, Any]:
    """The drill catalogue by name (empty where `quizbank.drills` cannot be imported): what a plan may hold."""
    try:
        from quizbank.drills import drills
    except ImportError:
        return {}
    return {drill.name: drill for drill in drills()}


class ItemShown(Message):
    """An item widget is mounted with its children: its text box can take focus now. Until then the Mock
    screen holds keys, and nothing may query the item's children (they are composed only when it mounts)."""

    def __init__(self, item: Any) -> None:
        super().__init__()
        self.item = item


# ---------------------------------------------------------------------------------------------------- items


class OpenItem(Vertical):
    """An open question: a typed answer, then the key points as checkboxes (pre-ticked) and the model answer.
    Once they show, 1-9 ticks or unticks key point 1-9 (as Space does on the focused one)."""

    HELP_SECTION = HelpSection("help.mock_points", 150)

    BINDINGS = [
        bind(str(n), f"tick({n})", f"mock.tick{n}", "mock.key_tick", show=n == 1, key_display="1-9")
        for n in range(1, 10)
    ]

    def __init__(self, question: Any) -> None:
        super().__init__(classes="mock-item mock-open")
        self.question = question
        self.revealed = False
        self.verdicts: list[Any] = []  # quizbank.judge.PointVerdict per key point, on reveal

    def compose(self) -> ComposeResult:
        yield Static("", classes="mock-prompt", markup=False)
        yield SafeTextArea(
            "", id="mock-answer", soft_wrap=True, show_line_numbers=False, tab_behavior="focus"
        )
        yield Static("", classes="mock-hint hint", markup=False)
        with Vertical(id="mock-points"):
            yield Static("", classes="mock-points-title", markup=False)
            for n, _point in enumerate(self.question.key_points):
                with Horizontal(classes="mock-point-row"):
                    yield GlyphCheckbox("", id=f"mock-point-{n}", classes="mock-point", compact=True)
                    yield Static("", classes="mock-point-text", markup=False)
            yield Static("", classes="mock-points-score", markup=False)
            yield Static("", classes="mock-model-title", markup=False)
            yield Static("", classes="mock-model", markup=False)

    def on_mount(self) -> None:
        warm_judge(self)
        self.query_one("#mock-points").display = False
        self.render_texts()
        self.post_message(ItemShown(self))

    @property
    def answer(self) -> str:
        return self.query_one("#mock-answer", TextArea).text

    def ticks(self) -> list[bool]:
        return [box.value for box in self.query(".mock-point").results(Checkbox)]

    def marks(self) -> list[Verdict]:
        """Per key point: covered (ticked), contradicted (judged so, not ticked since) or not_found
        (`quizbank.judge.effective_marks`)."""
        from quizbank.judge import effective_marks

        return effective_marks(self.ticks(), self.verdicts)

    def detail(self) -> dict[str, Any]:
        """What the report keeps: the ticks, the marks, and each misconception stated with its correction."""
        stated = []
        for n, (mark, verdict) in enumerate(zip(self.marks(), self.verdicts, strict=False)):
            if mark == "contradicted" and verdict.correction is not None:
                claim = verdict.claim if verdict.claim is not None else None
                stated.append({
                    "point": n + 1,
                    "claim": {lang: claim.get(lang) for lang in ("en", "zh")} if claim is not None
                    else {"en": verdict.evidence, "zh": verdict.evidence},
                    "correction": {lang: verdict.correction.get(lang) for lang in ("en", "zh")},
                })  # fmt: skip
        return {"ticks": self.ticks(), "marks": self.marks(), "misconceptions": stated}

    def score(self) -> float:
        ticks = self.ticks()
        return sum(ticks) / len(ticks) if ticks else 0.0

    def reveal(self) -> None:
        from quizbank.judge import judge_answer

        if self.revealed:
            return
        self.revealed = True
        self.verdicts = judge_answer(self.question.key_points, self.answer)
        for box, verdict in zip(self.query(".mock-point").results(Checkbox), self.verdicts, strict=True):
            with box.prevent(Checkbox.Changed):
                box.value = verdict.covered
        area = self.query_one("#mock-answer", TextArea)
        area.read_only = True
        self.query_one("#mock-points").display = True
        self.render_texts()
        boxes = list(self.query(".mock-point").results(Checkbox))
        if boxes:
            boxes[0].focus()

    def render_texts(self) -> None:
        lang = posenc_app(self).language
        q = self.question
        localize_bindings(self, lang)
        self.query_one(".mock-prompt", Static).update(render_text(q.prompt.get(lang)))
        self.query_one(".mock-hint", Static).update(tr("mock.answer_hint", lang))
        self.query_one(".mock-hint", Static).display = not self.revealed
        marks = self.marks() if self.revealed else [None] * len(q.key_points)
        for n, (text, point, mark) in enumerate(
            zip(self.query(".mock-point-text").results(Static), q.key_points, marks, strict=True)
        ):
            if mark is None:
                text.update(inline(point.get(lang)))
            else:
                text.update(
                    judged_point(point, mark, self.verdicts[n] if n < len(self.verdicts) else None, lang)
                )
        self.query_one(".mock-points-title", Static).update(
            Content.styled(tr("mock.points_title", lang), "bold $text-accent")
        )
        self.query_one(".mock-model-title", Static).update(
            Content.styled(tr("mock.model_answer", lang), "bold $text-accent")
        )
        self.query_one(".mock-model", Static).update(render_text(q.answer.get(lang)))
        self.update_score()

    def update_score(self) -> None:
        ticks = self.ticks()
        lang = posenc_app(self).language
        parts: list[Any] = [(tr("mock.points_score", lang, done=sum(ticks), total=len(ticks)), "bold")]
        wrong = self.marks().count("contradicted") if self.revealed else 0
        if wrong:
            parts += ["  ·  ", (tr("open.contradicted_count", lang, n=wrong), "bold $text-error")]
        self.query_one(".mock-points-score", Static).update(Content.assemble(*parts))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "tick":
            return self.revealed and int(str(parameters[0])) <= len(self.question.key_points)
        return True

    def action_tick(self, n: int) -> None:
        boxes = list(self.query(".mock-point").results(Checkbox))
        if self.revealed and 1 <= n <= len(boxes):
            boxes[n - 1].toggle()
            boxes[n - 1].focus()

    @on(Checkbox.Changed)
    def _ticked(self) -> None:
        self.render_texts()


class DrillItem(Vertical):
    """A coding drill: its statement, an editor with the starter code, and the last grade."""

    def __init__(self, drill: Any) -> None:
        super().__init__(classes="mock-item mock-drill")
        self.drill = drill
        self.report: Any = None
        self.grading = False
        self.error: str | None = None
        self.refused = False  # the grader refused: running code is off here (posenc serve --public)

    def compose(self) -> ComposeResult:
        yield Static("", classes="mock-drill-title", markup=False)
        yield Markdown("", classes="mock-statement", open_links=False)
        yield Static("", classes="mock-hint hint", markup=False)
        yield SafeTextArea(
            self.drill.starter,
            id="mock-code",
            show_line_numbers=True,
            tab_behavior="indent",
            auto_indent=True,
        )
        yield Static("", classes="mock-drill-result", markup=False)

    def on_mount(self) -> None:
        self.render_texts()
        self.post_message(ItemShown(self))

    @property
    def source(self) -> str:
        return self.query_one("#mock-code", TextArea).text

    def score(self) -> float | None:
        if self.report is None or not self.report.cases:
            return None
        return (
            1.0 if self.report.passed else sum(c.passed for c in self.report.cases) / len(self.report.cases)
        )

    def render_texts(self) -> None:
        lang = posenc_app(self).language
        self.query_one(".mock-drill-title", Static).update(
            Content.styled(self.drill.text("title", lang), "bold $text-accent")
        )
        statement = self.query_one(".mock-statement", Markdown)
        source = markdown_source(self.drill.text("statement", lang))
        if statement.source != source:
            statement.update(source)
        self.query_one(".mock-hint", Static).update(tr("mock.drill_hint", lang, function=self.drill.function))
        result = self.query_one(".mock-drill-result", Static)
        if self.grading:
            result.update(Content.styled(tr("mock.grading", lang), "$text-warning"))
        elif self.refused:  # the Drill screen's words
            result.update(Content.styled(tr("drill.code_off", lang), "bold $text-warning"))
        elif self.error is not None:
            result.update(Content.styled(tr("mock.grade_failed", lang, error=self.error), "$text-error"))
        elif self.report is not None:
            passed = sum(c.passed for c in self.report.cases)
            head = Content.styled(
                ("✓ " if self.report.passed else "✗ ")
                + tr("mock.graded", lang, passed=passed, total=len(self.report.cases)),
                "bold $text-success" if self.report.passed else "bold $text-error",
            )
            from quizbank.safetext import escape_unsafe

            lines = [head] + [
                Content(
                    f"  ✗ {escape_unsafe(c.name, one_line=True)}: {escape_unsafe(c.message, one_line=True)}"
                )
                for c in self.report.cases
                if not c.passed
            ][:6]
            result.update(Content("\n").join(lines))
        else:
            result.update("")
