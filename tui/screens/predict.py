"""Predict-then-reveal (the Demo lab's `p`): guess one number of a demo, then see what it computes.

A modal under the lab's demo and parameters (the lab hides its result meanwhile) names a target for
the current parameters (one named value, or one cell of a heatmap; ↑/↓ picks another), takes a
prediction, runs the demo in a worker through the app's demo runner and shows the error. `a` then
keeps the round as a Study card in the progress store (quizbank/predictions.py).
"""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from quizbank.predictions import Target, actual_value, cell_target, close_percent, score, value_targets

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import tr
from ..keys import bind, localize_bindings
from ..widgets.demo_panel import format_value
from ..widgets.key_footer import KeyFooter

__all__ = ["PredictScreen"]


class PredictScreen(ModalScreen[None]):
    HELP_SECTION = HelpSection("help.predict", 110)

    # As large as its text (up to 90 columns), at the bottom over its own key footer: the lab's demo,
    # claim and parameters stay in view above it, and notifications (top right) never cover its title.
    DEFAULT_CSS = """
    PredictScreen { align: center bottom; }
    PredictScreen > Vertical {
        width: auto; max-width: 90; height: auto; max-height: 100%;
        padding: 0 2; border: thick $accent; background: $surface;
    }
    PredictScreen Label, PredictScreen Static { width: auto; max-width: 86; }
    PredictScreen Input { margin: 1 0; width: 40; }
    PredictScreen #predict-result { margin-top: 1; }
    """
    BINDINGS = [
        bind("escape", "close", "predict.close", "key.cancel"),
        bind("up", "target(-1)", "predict.prev", "predict.other", show=False),
        bind("down", "target(1)", "predict.next", "predict.other"),
        bind("a", "add", "predict.add", "predict.add_key"),
    ]

    class Revealed(Message):
        def __init__(self, result: Any = None, error: str | None = None) -> None:
            super().__init__()
            self.result = result
            self.error = error

    def __init__(self, demo: Any, params: dict[str, Any], last_result: Any = None, seed: int = 0) -> None:
        super().__init__()
        self.demo = demo
        self.params = dict(params)
        self.targets: list[Target] = value_targets(demo)
        if last_result is not None:  # the heatmap variant: one hidden cell per matrix
            for k in range(len(getattr(last_result, "matrices", []) or [])):
                cell = cell_target(last_result, k, seed)
                if cell is not None:
                    self.targets.append(cell)
        self.index = 0
        self.predicted: float | None = None
        self.actual: float | None = None

    @property
    def target(self) -> Target | None:
        return self.targets[self.index] if self.targets else None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("", id="predict-title", markup=False)
            yield Static("", id="predict-target", markup=False)
            yield Input(placeholder="0.5, 1/256, 2e-3", id="predict-input", compact=True)
            yield Static("", id="predict-result", markup=False)
        yield KeyFooter()  # this screen's keys, over the lab's

    def on_mount(self) -> None:
        localize_bindings(self, posenc_app(self).language)
        self._show_texts()
        self.query_one("#predict-input", Input).focus()

    def _show_texts(self) -> None:
        lang = posenc_app(self).language
        shown = ", ".join(f"{k}={format_value(v)}" for k, v in self.params.items())  # as the demo panel
        self.query_one("#predict-title", Label).update(
            Content.styled(tr("predict.title", lang, demo=self.demo.name, params=shown), "bold")
        )
        target = self.target
        text = (
            tr("predict.none", lang)
            if target is None
            else tr("predict.ask", lang, target=target.zh if lang == "zh" else target.en)
        )
        if len(self.targets) > 1 and self.actual is None:
            text += "\n" + tr("predict.choose", lang, n=self.index + 1, total=len(self.targets))
        self.query_one("#predict-target", Static).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers another target only before the reveal, and `a` only after it."""
        if action == "target":
            return self.actual is None and len(self.targets) > 1
        if action == "add":
            return self.actual is not None
        return True

    def action_target(self, step: int) -> None:
        if self.actual is not None or not self.targets:
            return
        self.index = (self.index + step) % len(self.targets)
        self._show_texts()

    @on(Input.Submitted, "#predict-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        from quizbank.grading import parse_number

        if self.target is None or self.actual is not None:
            return
        try:
            self.predicted = parse_number(event.value)
        except ValueError:
            self.query_one("#predict-result", Static).update(
                tr("predict.not_a_number", posenc_app(self).language)
            )
            return
        event.input.disabled = True
        self.query_one("#predict-result", Static).update(tr("predict.running", posenc_app(self).language))
        self.focus()
        self._run(self.demo.name, dict(self.params))

    @work(thread=True, name="predict-run", group="predict", exclusive=True, exit_on_error=False)
    def _run(self, name: str, params: dict[str, Any]) -> None:
        try:
            result = posenc_app(self).demo_runner(name, params)
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            self.post_message(self.Revealed(error=" ".join(f"{type(exc).__name__}: {exc}".split())))
            return
        self.post_message(self.Revealed(result))

    def on_predict_screen_revealed(self, message: Revealed) -> None:
        lang = posenc_app(self).language
        box = self.query_one("#predict-result", Static)
        if message.error is not None or self.target is None or self.predicted is None:
            box.update(tr("predict.failed", lang, error=message.error or "?"))
            return
        try:
            self.actual = actual_value(message.result, self.target)
        except Exception as exc:  # noqa: BLE001 - shown, never raised: the UI must not crash
            box.update(tr("predict.failed", lang, error=str(exc)))
            return
        result = score(self.predicted, self.actual)
        rel = "—" if result.rel_error is None else f"{100 * result.rel_error:.3g}%"
        verdict = tr("predict.close" if result.close else "predict.off", lang, pct=close_percent())
        box.update(
            Content.assemble(
                (verdict + "\n", "bold $text-success" if result.close else "bold $text-warning"),
                tr(
                    "predict.numbers",
                    lang,
                    actual=f"{result.actual:.6g}",
                    predicted=f"{result.predicted:.6g}",
                ),
                "\n",
                tr("predict.error", lang, abs=f"{result.abs_error:.3g}", rel=rel),
                "\n\n",
                (tr("predict.add_hint", lang), "dim"),
            )
        )
        self._show_texts()
        self.refresh_bindings()

    def action_add(self) -> None:
        if self.actual is None or self.target is None:
            return
        from quizbank.predictions import prediction_question

        store = posenc_app(self).store
        if store is None:
            error = posenc_app(self).store_error or "?"
            posenc_app(self).notify(
                tr("predict.no_store", posenc_app(self).language, error=error), severity="error"
            )
            return
        self._save(store, prediction_question(self.demo, self.params, self.target, self.actual))

    @work(thread=True, name="predict-save", group="predict-save", exit_on_error=False)
    def _save(self, store: Any, question: dict[str, Any]) -> None:
        """Thread worker: the store is never written on the UI thread."""
        from quizbank.predictions import save_to_study

        lang = posenc_app(self).language
        try:
            added = save_to_study(store, question)
        except Exception as exc:  # noqa: BLE001 - shown, never raised: the UI must not crash
            posenc_app(self).notify(tr("predict.save_failed", lang, error=str(exc)), severity="error")
            return
        posenc_app(self).notify(tr("predict.added" if added else "predict.already", lang), timeout=4)

    def action_close(self) -> None:
        self.dismiss(None)
