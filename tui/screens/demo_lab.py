"""Demo lab: pick any demo, edit its parameters with validated inputs, run it, see the result.

Every field is checked with `Param.coerce` as you type; a bad value is explained under the
field (never a crash), and the demo's memory budget is checked before it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Label, Select, Static, Switch

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import demo_claim, demo_title, tr
from ..keyorder import HeldKeys
from ..keys import bind
from ..widgets.demo_panel import DemoPanel, format_value
from ..widgets.key_footer import KeyFooter
from ..widgets.title_bar import TitleBar
from .base import LocalizedScreen

__all__ = ["DemoLabScreen"]


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def describe_bounds(param: Any, lang: str) -> str:
    """What a parameter accepts, in the app language (posenc_ref's `Param.describe_bounds`
    says the same in English)."""
    if lang != "zh":
        return param.describe_bounds()
    if param.choices:
        return "可选：" + "、".join(param.choices)
    if param.type == "bool":
        return "true 或 false"
    parts = [{"int": "整数", "float": "实数", "str": "文本"}.get(param.type, param.type)]
    if param.min is not None and param.max is not None:
        parts.append(f"范围 [{_number(param.min)}, {_number(param.max)}]")
    elif param.min is not None:
        parts.append(f"≥ {_number(param.min)}")
    elif param.max is not None:
        parts.append(f"≤ {_number(param.max)}")
    if param.even:
        parts.append("偶数")
    return "，".join(parts)


def param_help(param: Any, lang: str) -> str:
    """A parameter's help text in `lang` (`Param.help_zh` in Chinese, English when it has none)."""
    return param.help_in(lang)


def describe_param_error(param: Any, raw: Any, exc: BaseException, lang: str) -> str:
    """One line saying why `raw` was refused: the ParamError message in English, the same facts
    (what is accepted, what was typed) in Chinese."""
    if lang != "zh":
        return (str(exc).splitlines() or [type(exc).__name__])[0]
    return tr("lab.bad_param", lang, name=param.name, bounds=describe_bounds(param, lang), raw=raw)


def describe_refusal(exc: BaseException, lang: str) -> str:
    """One line for a run refused before it started: a rule between parameters in the app
    language (a `ConstraintError`), other reasons (the memory budget) as posenc_ref says them."""
    rule = getattr(exc, "constraint", None)
    if rule is not None and lang == "zh":
        params = getattr(exc, "params", {})
        return tr(
            "lab.constraint",
            lang,
            rule=rule.describe(),
            left=rule.left,
            left_value=format_value(params.get(rule.left)),
            right=rule.right,
            right_value=format_value(params.get(rule.right)),
        )
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def _default_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value)) if abs(value) >= 1e4 else str(value)
    return str(value)


class DemoLabScreen(HeldKeys, LocalizedScreen):
    """Demo picker, parameter form and the result panel.

    Keys typed while the form is (re)built are held and handed on, in order, once it is in place,
    so Tab, Ctrl+U, `12` typed as the lab opens edit the first field (`tui.keyorder.HeldKeys`)."""

    HELP_SECTION = HelpSection("help.lab", 100)

    CSS_PATH = Path(__file__).with_name("demo_lab.tcss")
    BINDINGS = [bind("d", "run", "demo", "key.demo"), bind("p", "predict", "predict", "key.predict")]

    def __init__(self, demo_name: str | None = None) -> None:
        super().__init__()
        from posenc_ref.demos import list_demos

        self.demos = {d.name: d for d in list_demos()}
        self.demo_name = demo_name if demo_name in self.demos else next(iter(self.demos), None)
        self.errors: dict[str, str] = {}
        self.hold_keys()  # from the start: keys typed while it opens wait for the form

    def compose(self) -> ComposeResult:
        lang = posenc_app(self).language
        yield TitleBar()
        with Horizontal(id="lab-body"):
            with VerticalScroll(id="lab-form"):
                yield Label(tr("lab.demo", lang), id="lab-demo-label", classes="field-label")
                yield Select(
                    # plain names (no markup in them): the open list's type-ahead reads `str` prompts,
                    # and jumps to the first demo whose name starts with what was typed (else contains it)
                    [(name, name) for name in self.demos],
                    value=self.demo_name if self.demo_name else Select.NULL,
                    allow_blank=False,
                    # letters typed in the open list search it and never reach the lab's keys (`p`, `d`)
                    type_to_search=True,
                    id="lab-demo",
                )
                yield Static("", id="lab-claim", markup=False)
                yield Label(tr("lab.params", lang), id="lab-params-label", classes="field-label")
                yield Vertical(id="lab-params")
                yield Static("", id="lab-form-error", classes="error", markup=False)
                with Horizontal(id="lab-buttons"):
                    yield Button(tr("lab.run", lang), id="lab-run", variant="primary")
                    yield Button(tr("lab.reset", lang), id="lab-reset")
            yield DemoPanel(self.demo_name, autorun=False, id="lab-panel")
        yield KeyFooter()

    async def on_mount(self) -> None:  # type: ignore[override]  # Textual awaits an async handler
        super().on_mount()
        await self._build_form()
        self.query_one("#lab-demo", Select).focus()
        # after focus() has landed (it is queued on the app too)
        posenc_app(self).call_later(self.release_keys)
        self.action_run()

    def leave_input_target(self) -> Any:
        """Esc in a parameter field moves to the result panel (so `d`, `q` work again)."""
        return self.query_one("#lab-panel", DemoPanel)

    @property
    def demo(self) -> Any:
        return self.demos.get(self.demo_name) if self.demo_name else None

    # ------------------------------------------------------------------ form

    async def _build_form(self) -> None:
        lang = posenc_app(self).language
        demo = self.demo
        box = self.query_one("#lab-params", Vertical)
        await box.remove_children()
        self.errors = {}
        self.query_one("#lab-form-error", Static).display = False
        if demo is None:
            return
        self._render_header(demo, lang)
        widgets: list[Any] = []
        if not demo.params:
            widgets.append(Static(tr("lab.no_params", lang), classes="hint"))
        blink = posenc_app(self).cursor_blink
        for param in demo.params:
            widgets.append(
                Label(
                    Content.assemble(
                        (param.name, "bold $text-accent"), ("  " + param_help(param, lang), "dim")
                    ),
                    id=f"label-{param.name}",
                    classes="param-label",
                )
            )
            if param.type == "bool":
                widgets.append(
                    Switch(value=bool(param.default), id=f"param-{param.name}", classes="param-switch")
                )
            elif param.choices:
                widgets.append(
                    Select(
                        [(Content(c), c) for c in param.choices],
                        value=param.default,
                        allow_blank=False,
                        id=f"param-{param.name}",
                    )
                )
            else:
                field = Input(
                    _default_text(param.default),
                    placeholder=describe_bounds(param, lang),
                    id=f"param-{param.name}",
                    classes="param-input",
                    compact=True,
                )
                field.cursor_blink = blink
                widgets.append(field)
                widgets.append(
                    Static(
                        Content.styled(describe_bounds(param, lang), "dim"),
                        id=f"bounds-{param.name}",
                        classes="param-bounds",
                    )
                )
            widgets.append(Static("", id=f"error-{param.name}", classes="param-error error", markup=False))
        await box.mount_all(widgets)
        for error in widgets:
            if isinstance(error, Static) and error.has_class("param-error"):
                error.display = False

    def _render_header(self, demo: Any, lang: str) -> None:
        """The demo's title and claim in `lang` (English where the spec has no Chinese), and its topic."""
        self.query_one("#lab-claim", Static).update(
            Content.assemble(
                (demo_title(demo, lang), "bold"),
                "\n",
                (demo_claim(demo, lang), "italic"),
                "\n",
                (tr("lab.topic", lang, topic=demo.topic), "dim"),
            )
        )

    def _raw_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        demo = self.demo
        if demo is None:
            return values
        for param in demo.params:
            widget = self.query_one(f"#param-{param.name}")
            if isinstance(widget, (Input, Switch, Select)):
                values[param.name] = widget.value
        return values

    def _validate_field(self, name: str, raw: Any) -> Any:
        """Coerce one field; show or clear its inline error. Returns the value or None."""
        demo = self.demo
        param = demo.param(name) if demo is not None else None
        if param is None:
            return None
        error_widget = self.query_one(f"#error-{name}", Static)
        field = self.query_one(f"#param-{name}")
        try:
            value = param.coerce(raw)
        except Exception as exc:  # noqa: BLE001 - ParamError: one clear line
            message = describe_param_error(param, raw, exc, posenc_app(self).language)
            self.errors[name] = message
            error_widget.update(Content.styled("✗ " + message, ""))
            error_widget.display = True
            field.add_class("-invalid")
            return None
        self.errors.pop(name, None)
        error_widget.display = False
        field.remove_class("-invalid")
        return value

    def _collect(self) -> dict[str, Any] | None:
        """Typed params if every field is valid and the run fits the memory budget; else None."""
        demo = self.demo
        if demo is None:
            return None
        typed: dict[str, Any] = {}
        for name, raw in self._raw_values().items():
            value = self._validate_field(name, raw)
            if name in self.errors:
                continue
            typed[name] = value
        form_error = self.query_one("#lab-form-error", Static)
        if self.errors:
            form_error.update(tr("lab.fix", posenc_app(self).language))
            form_error.display = True
            return None
        try:
            from posenc_ref.demos import check_memory

            resolved = demo.resolve_params(typed)
            check_memory(demo, resolved)
        except Exception as exc:  # noqa: BLE001 - any refusal is shown in the form
            form_error.update("✗ " + describe_refusal(exc, posenc_app(self).language))
            form_error.display = True
            return None
        form_error.display = False
        return typed

    # ------------------------------------------------------------------ events

    @on(Select.Changed, "#lab-demo")
    def _demo_changed(self, event: Select.Changed) -> None:
        if event.value is Select.NULL or event.value == self.demo_name:
            return
        self.select_demo(str(event.value))

    def select_demo(self, name: str) -> None:
        """Switch to demo `name`, rebuild the form with its defaults, and run it."""
        if name not in self.demos:
            posenc_app(self).notify(
                tr("demo.unknown", posenc_app(self).language, error=name), severity="warning"
            )
            return
        self.demo_name = name
        select = self.query_one("#lab-demo", Select)
        if select.value != name:
            select.value = name
        self.call_next(self._rebuild_and_run)

    async def _rebuild_and_run(self) -> None:
        focused = self.focused
        self.hold_keys()
        await self._build_form()
        if focused is not None and focused.is_attached:
            self.set_focus(focused)
        self.release_keys()
        self.action_run()

    @on(Input.Changed, ".param-input")
    def _field_changed(self, event: Input.Changed) -> None:
        if event.input.id:
            self._validate_field(event.input.id.removeprefix("param-"), event.value)

    @on(Input.Submitted, ".param-input")
    @on(Button.Pressed, "#lab-run")
    def action_run(self) -> None:
        params = self._collect()
        panel = self.query_one("#lab-panel", DemoPanel)
        if params is None:
            panel.mark_refused()
            return
        panel.set_demo(self.demo_name, params)

    def action_predict(self) -> None:
        """Predict-then-reveal for the current parameters. The lab's result is hidden while the
        prediction screen is open (it would give the answer away) and shown again when it closes."""
        from .predict import PredictScreen

        params = self._collect()
        demo = self.demo
        if params is None or demo is None:
            return
        panel = self.query_one("#lab-panel", DemoPanel)
        same = panel.result is not None and panel.demo_name == demo.name and panel.params == params
        result = panel.result if same else None
        seed = posenc_app(self).fixed_seed or 0
        panel.add_class("-concealed")
        posenc_app(self).push_screen(
            PredictScreen(demo, params, result, seed=seed), lambda _: panel.remove_class("-concealed")
        )

    @on(Button.Pressed, "#lab-reset")
    async def _reset(self) -> None:
        await self._rebuild_and_run()

    def relabel(self) -> None:
        lang = posenc_app(self).language
        self.query_one("#lab-demo-label", Label).update(tr("lab.demo", lang))
        self.query_one("#lab-params-label", Label).update(tr("lab.params", lang))
        self.query_one("#lab-run", Button).label = tr("lab.run", lang)
        self.query_one("#lab-reset", Button).label = tr("lab.reset", lang)
        demo = self.demo
        if demo is not None:
            self._render_header(demo, lang)
            for param in demo.params:
                for label in self.query(f"#label-{param.name}").results(Label):
                    label.update(
                        Content.assemble(
                            (param.name, "bold $text-accent"), ("  " + param_help(param, lang), "dim")
                        )
                    )
                for bounds in self.query(f"#bounds-{param.name}").results(Static):
                    bounds.update(Content.styled(describe_bounds(param, lang), "dim"))
                for field in self.query(f"#param-{param.name}").results(Input):
                    field.placeholder = describe_bounds(param, lang)
                if param.name in self.errors:  # say it again in the new language
                    self._validate_field(param.name, self._raw_values().get(param.name))
            if self.errors:
                self.query_one("#lab-form-error", Static).update(tr("lab.fix", lang))
