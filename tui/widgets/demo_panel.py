"""`DemoPanel`: runs a posenc_ref demo in a thread worker and shows the result beside the text.

Usage::

    panel = DemoPanel("rope-relativity", {"m": 7, "n": 3})   # runs on mount (autorun=True)
    panel.set_demo("alibi-bias", {"n_heads": 4})               # switch; a stale run is ignored
    panel.run()                                                # re-run (the `d` key)

The heading shows the demo's title and claim in the app language (`title_zh` / `claim_zh` in
Chinese, English when a spec has none) and switches at once when the language changes.
While a run is in flight the panel shows a spinner; then the claim, device, dtype and elapsed
time, a ✓/✗ line per check with its error and tolerance, the named values, the tables
(DataTable), the series as plots (textual-plotext) and the matrices as heatmaps. A failure
(a bad parameter, NotImplementedError, any exception) is shown as one line in the panel.

The worker is a named thread worker in the group "demo" of this panel, `exclusive=True`, so a
new run cancels the previous one; it never touches widgets, it posts `DemoPanel.Finished`.
Results of stale runs (an older run id) are dropped. The runner is `app.demo_runner`
(default `posenc_ref.demos.run_demo`), so tests inject deterministic results.
"""

from __future__ import annotations

import math
import time
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Label, LoadingIndicator, Static

from posenc_ref.demos.base import format_value as _format_value

from ..i18n import demo_claim, demo_title, tr

__all__ = ["DemoPanel", "describe_error", "format_elapsed", "format_error", "format_value"]

PLOT_HEIGHT = 14
MAX_TABLE_ROWS = 200


def format_elapsed(ms: float) -> str:
    if ms < 1:
        return f"{ms * 1000:.0f} µs"
    if ms < 1000:
        return f"{ms:.3g} ms" if ms < 100 else f"{ms:.0f} ms"
    return f"{ms / 1000:.2f} s"


def format_value(value: Any) -> str:
    """Compact display of a table cell or named value (shared with the CLI; ∞ for infinities)."""
    return _format_value(value, unicode=True)


def format_error(value: float) -> str:
    """An error or tolerance: 0 as "0", otherwise two significant digits in e-notation."""
    if value == 0:
        return "0"
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "∞"
    return f"{value:.1e}"


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def describe_error(exc: BaseException, lang: str = "en") -> str:
    """One line for the panel: DemoError messages as they are, others with their type."""
    message = str(exc).strip().splitlines()
    kind = getattr(exc, "kind", None) or type(exc).__name__  # RemoteDemoError carries the original class
    if kind == "NotImplementedError":
        detail = message[0] if message else tr("demo.not_implemented", lang)
        return f"NotImplementedError: {detail}"
    if kind in ("DemoError", "ParamError", "DemoProcessError"):
        return message[0] if message else kind
    return f"{kind}: {message[0]}" if message else kind


class DemoPanel(VerticalScroll):
    """A live computation: spinner, then claim / device / timing / checks / tables / plots / heatmaps."""

    DEFAULT_CSS = """
    DemoPanel {
        height: 1fr;
        padding: 0 1;
    }
    DemoPanel #demo-running { height: 1; }
    DemoPanel #demo-running LoadingIndicator { width: 6; height: 1; min-height: 1; }
    DemoPanel #demo-results { height: auto; }
    DemoPanel DataTable { height: auto; max-height: 16; margin-top: 1; }
    DemoPanel .demo-plot { height: 14; margin-top: 1; }
    DemoPanel #demo-meta { margin-bottom: 1; }
    DemoPanel .demo-values, DemoPanel .demo-notes { margin-top: 1; }
    """

    class Finished(Message):
        """A run ended: `result` (a DemoResult) or `error` (one line). Posted by the worker."""

        def __init__(
            self, panel: DemoPanel, run_id: int, result: Any = None, error: str | None = None
        ) -> None:
            super().__init__()
            self.panel = panel
            self.run_id = run_id
            self.result = result
            self.error = error

        @property
        def control(self) -> DemoPanel:
            return self.panel

    def __init__(
        self,
        demo_name: str | None = None,
        params: dict[str, Any] | None = None,
        *,
        autorun: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.demo_name = demo_name
        self.params: dict[str, Any] = dict(params or {})
        self.autorun = autorun
        self.run_id = 0
        self.result: Any = None
        self.error: str | None = None
        self.running = False
        self._started_at = 0.0

    def compose(self) -> ComposeResult:
        yield Static("", id="demo-heading", markup=False)
        yield Static("", id="demo-claim", markup=False)
        with Horizontal(id="demo-running"):
            yield LoadingIndicator()
            yield Label("", id="demo-running-label", markup=False)
        yield Static("", id="demo-meta", markup=False)
        yield Static("", id="demo-error", classes="error", markup=False)
        yield Vertical(id="demo-results")

    def on_mount(self) -> None:
        self.watch(self.app, "language", self._language_changed, init=False)
        self.query_one("#demo-running").display = False
        self.query_one("#demo-error").display = False
        self._render_heading()
        if self.autorun and self.demo_name:
            self.run()

    # ------------------------------------------------------------------ control

    def show_for(self, question: Any) -> None:
        """Show `question`'s demo (hide the panel when it has none); reuse a finished or running
        result when the demo and params are unchanged."""
        demo = getattr(question, "demo", None)
        if demo is None:
            self.display = False
            return
        self.display = True
        if self.demo_name != demo.name or self.params != dict(demo.params):
            self.set_demo(demo.name, dict(demo.params))
        elif not self.running and self.result is None and self.error is None:
            self.run()

    def set_demo(
        self, demo_name: str | None, params: dict[str, Any] | None = None, *, run: bool = True
    ) -> None:
        """Show another demo. Any run in flight becomes stale and its result is ignored."""
        self.demo_name = demo_name
        self.params = dict(params or {})
        self.run_id += 1
        self.running = False
        self.result = None
        self.error = None
        self.workers.cancel_group(self, "demo")
        if not self.is_mounted:
            return
        self._clear_results()
        self._render_heading()
        self.query_one("#demo-running").display = False
        self.query_one("#demo-meta", Static).update("")
        self.query_one("#demo-error").display = False
        if run and demo_name:
            self.run()

    def run(self) -> None:
        """(Re)run the current demo with the current params."""
        if not self.demo_name:
            self._render_heading()
            return
        self.run_id += 1
        self.running = True
        self.error = None
        self._started_at = time.perf_counter()
        lang = self.app.language
        running = self.query_one("#demo-running")
        running.display = True
        self.query_one("#demo-running-label", Label).update(tr("demo.running", lang, name=self.demo_name))
        self.query_one("#demo-error").display = False
        self._run_worker(self.run_id, self.demo_name, dict(self.params))

    @work(thread=True, group="demo", exclusive=True, exit_on_error=False, name="demo-run")
    def _run_worker(self, run_id: int, name: str, params: dict[str, Any]) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        runner = self.app.demo_runner
        try:
            result = runner(name, params)
        except BaseException as exc:  # shown in the panel, never raised into the app
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            if not worker.is_cancelled:
                self.post_message(self.Finished(self, run_id, error=describe_error(exc, self.app.language)))
            return
        if not worker.is_cancelled:
            self.post_message(self.Finished(self, run_id, result=result))

    def on_demo_panel_finished(self, message: DemoPanel.Finished) -> None:
        message.stop()
        if message.run_id != self.run_id:
            return  # a stale run (the question or the parameters changed)
        self.running = False
        self.query_one("#demo-running").display = False
        self.result = message.result
        self.error = message.error
        if message.error is not None:
            self._show_error(message.error)
        else:
            self._show_result(message.result)
        bench = getattr(self.app, "bench_event", None)
        if bench is not None:
            bench("demo_result", name=self.demo_name, ok=message.error is None, error=message.error)

    # ------------------------------------------------------------------ rendering

    def _language_changed(self) -> None:
        """Re-render every UI string of the panel in the new language, the demo's title and claim
        included (the spec's `title_zh` / `claim_zh`; the result's checks, tables and notes, from
        posenc_ref, stay as they are); widgets are updated in place, not rebuilt."""
        self._render_heading()
        lang = self.app.language
        if self.running:
            self.query_one("#demo-running-label", Label).update(
                tr("demo.running", lang, name=self.demo_name or "")
            )
        if self.error is not None:
            self._show_error(self.error)
        if self.result is None:
            return
        result = self.result
        self._render_meta(result)
        self._render_result_claim(result, lang)
        sections = {
            "demo-checks": self._checks_content,
            "demo-values": self._values_content,
            "demo-notes": self._notes_content,
        }
        for css_class, build in sections.items():
            for widget in self.query(f".{css_class}").results(Static):
                if not widget.has_class("-stale"):
                    widget.update(build(result, lang))
        from .heatmap import Heatmap

        for heatmap in self.query(Heatmap):
            heatmap.set_language(lang)

    def _spec(self) -> Any:
        if not self.demo_name:
            return None
        try:
            from posenc_ref.demos import get_demo

            return get_demo(self.demo_name)
        except Exception:
            return None

    def _render_heading(self) -> None:
        if not self.is_mounted:
            return
        lang = self.app.language
        heading = self.query_one("#demo-heading", Static)
        claim = self.query_one("#demo-claim", Static)
        if not self.demo_name:
            heading.update(Content.styled(tr("demo.title", lang), "bold $text-accent"))
            claim.update(Content.styled(tr("demo.none", lang), "dim"))
            return
        spec = self._spec()
        title = demo_title(spec, lang) if spec is not None else self.demo_name
        heading.update(
            Content.assemble(
                (f"{tr('demo.title', lang)} · ", "bold $text-accent"),
                (title, "bold"),
                (f"  {self.demo_name}", "dim"),
            )
        )
        claim.update(Content.styled(demo_claim(spec, lang) if spec is not None else "", "italic"))

    def _render_result_claim(self, result: Any, lang: str) -> None:
        """The claim the result carries (from the spec that ran), in `lang`."""
        text = demo_claim(result, lang)
        if text:
            self.query_one("#demo-claim", Static).update(Content.styled(text, "italic"))

    def _render_meta(self, result: Any) -> None:
        lang = self.app.language
        params = ", ".join(f"{k}={format_value(v)}" for k, v in (result.params or {}).items())
        meta = Content.assemble(
            (
                tr(
                    "demo.meta",
                    lang,
                    device=result.device,
                    dtype=result.dtype,
                    elapsed=format_elapsed(result.elapsed_ms),
                ),
                "$text-secondary",
            ),
            ("\n" + tr("demo.params", lang, params=params) if params else "", "dim"),
        )
        self.query_one("#demo-meta", Static).update(meta)

    def _clear_results(self) -> None:
        """Hide the old results now and remove them after the next repaint, so a keypress that
        switches question is not slowed by unmounting tables and plots."""
        old = [w for w in self.query_one("#demo-results", Vertical).children if not w.has_class("-stale")]
        for widget in old:
            widget.add_class("-stale")
            widget.display = False
        if old:
            self.call_after_refresh(self._remove_stale, old)

    def _remove_stale(self, widgets: list[Any]) -> None:
        for widget in widgets:
            if widget.is_attached:
                widget.remove()

    def _show_error(self, error: str) -> None:
        self._clear_results()
        self.query_one("#demo-meta", Static).update("")
        widget = self.query_one("#demo-error", Static)
        widget.update(Content.styled("✗ " + tr("demo.failed", self.app.language, error=error), "bold"))
        widget.display = True

    def _show_result(self, result: Any) -> None:
        lang = self.app.language
        self._render_meta(result)
        self._render_result_claim(result, lang)
        widgets: list[Any] = []
        if result.checks:
            widgets.append(Static(self._checks_content(result, lang), classes="demo-checks", markup=False))
        if result.values:
            widgets.append(Static(self._values_content(result, lang), classes="demo-values", markup=False))
        for table in result.tables:
            widgets.append(Label(Content.styled(table.title, "bold"), classes="section-title", markup=False))
            widgets.append(self._table(table))
        for series in result.series:
            plot = self._plot(series)
            if plot is not None:
                widgets.append(plot)
        if result.matrices:
            from .heatmap import Heatmap

            for matrix in result.matrices:
                widgets.append(
                    Heatmap(
                        matrix.title,
                        matrix.values,
                        row_label=matrix.row_label,
                        col_label=matrix.col_label,
                        lang=lang,
                    )
                )
        if result.notes:
            widgets.append(
                Static(self._notes_content(result, lang), classes="demo-notes section-title", markup=False)
            )
        self._clear_results()
        self.query_one("#demo-results", Vertical).mount_all(widgets)

    @staticmethod
    def _checks_content(result: Any, lang: str) -> Content:
        """One ✓/✗ line per check, then its error against the tolerance."""
        lines = [Content.styled(tr("demo.checks", lang), "bold $text-accent")]
        for check in result.checks:
            mark = ("✓ ", "bold $text-success") if check.passed else ("✗ ", "bold $text-error")
            lines.append(Content.assemble(mark, check.claim))
            if check.tolerance == 0 and check.max_abs_error == 0:
                detail = tr("demo.exact", lang)
            else:
                key = "demo.check_line" if check.passed else "demo.check_fail"
                detail = tr(
                    key, lang, err=format_error(check.max_abs_error), tol=format_error(check.tolerance)
                )
            lines.append(Content.styled("  " + detail, "dim"))
        return Content("\n").join(lines)

    @staticmethod
    def _values_content(result: Any, lang: str) -> Content:
        lines = [Content.styled(tr("demo.values", lang), "bold $text-accent")]
        width = max(len(k) for k in result.values)
        for key, value in result.values.items():
            lines.append(Content.assemble((key.ljust(width), "$text-secondary"), "  ", format_value(value)))
        return Content("\n").join(lines)

    @staticmethod
    def _notes_content(result: Any, lang: str) -> Content:
        lines = [Content.styled(tr("demo.notes", lang), "bold $text-accent")]
        lines += [Content.assemble(("• ", "dim"), note) for note in result.notes]
        return Content("\n").join(lines)

    def _table(self, table: Any) -> DataTable:
        widget: DataTable = DataTable(zebra_stripes=True, show_cursor=False, classes="demo-table")
        widget.can_focus = False
        widget.add_columns(*[Text(str(c), style="bold") for c in table.columns])
        rows = table.rows[:MAX_TABLE_ROWS]
        texts = [[format_value(v) for v in row] for row in rows]
        widths: dict[int, int] = {}
        for row_values, row_texts in zip(rows, texts, strict=True):
            for i, (value, text) in enumerate(zip(row_values, row_texts, strict=False)):
                if _numeric(value):
                    widths[i] = max(widths.get(i, 0), len(text))
        # numbers are padded to their column's width, so they line up on the right
        widget.add_rows(
            [
                [
                    Text(t.rjust(widths[i]) if _numeric(v) else t)
                    for i, (v, t) in enumerate(zip(row, ts, strict=False))
                ]
                for row, ts in zip(rows, texts, strict=True)
            ]
        )
        return widget

    def _plot(self, series: Any) -> Any:
        try:
            from textual_plotext import PlotextPlot
        except Exception:
            return None
        plot = PlotextPlot(classes="demo-plot")
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        colors = ["cyan", "magenta", "orange", "green", "red", "blue"]
        for i, (name, ys) in enumerate(series.ys.items()):
            points = [
                (x, y) for x, y in zip(series.x, ys, strict=False) if math.isfinite(x) and math.isfinite(y)
            ]
            if not points:
                continue
            xs, vs = zip(*points, strict=True)
            plt.plot(list(xs), list(vs), label=name, marker="braille", color=colors[i % len(colors)])
        plt.title(series.title)
        if series.x_label:
            plt.xlabel(series.x_label)
        if series.y_label:
            plt.ylabel(series.y_label)
        plot.refresh()
        return plot
