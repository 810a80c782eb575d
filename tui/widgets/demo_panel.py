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

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Label, LoadingIndicator, Static

from posenc_ref.demos.base import format_value as _format_value

from ..appref import posenc_app
from ..i18n import demo_claim, demo_title, tr
from ..richtext import inline, plain

__all__ = ["DemoPanel", "DemoTable", "describe_error", "format_elapsed", "format_error", "format_value"]

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


def localized(item: Any, field: str, lang: str) -> Any:
    """`item.<field>_zh` in Chinese when it is set, else `item.<field>` (checks, tables, matrices)."""
    if lang == "zh":
        text = getattr(item, f"{field}_zh", None)
        if text:
            return text
    return getattr(item, field)


def result_notes(result: Any, lang: str) -> list[str]:
    """The result's notes in `lang` (each note's Chinese form where it has one)."""
    zh = list(getattr(result, "notes_zh", None) or []) if lang == "zh" else []
    return [zh[i] if i < len(zh) and zh[i] else note for i, note in enumerate(result.notes)]


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


class DemoTable(Widget):
    """A demo's table, every cell visible: numbers right-aligned, and columns that do not fit
    the width wrap into further blocks below, each repeating the first (key) column."""

    DEFAULT_CSS = """
    DemoTable { height: auto; width: 1fr; margin-top: 1; }
    """
    GAP = 2

    def __init__(self, headers: list[str], cells: list[list[str]], right: list[list[bool]]) -> None:
        super().__init__(classes="demo-table")
        self.headers = list(headers)
        self.cells = [list(row) + [""] * (len(headers) - len(row)) for row in cells]
        self.right = [list(row) + [False] * (len(headers) - len(row)) for row in right]

    def set_headers(self, headers: list[str]) -> None:
        self.headers = list(headers)
        self.refresh(layout=True)

    def _widths(self) -> list[int]:
        return [
            max([cell_len(h)] + [cell_len(row[i]) for row in self.cells]) for i, h in enumerate(self.headers)
        ]

    def blocks(self, width: int) -> list[list[int]]:
        """Column indices per block for `width` cells; every block after the first starts with column 0."""
        widths = self._widths()
        if not widths:
            return []
        blocks: list[list[int]] = [[0]]
        used = widths[0]
        for i in range(1, len(widths)):
            if used + self.GAP + widths[i] > width and len(blocks[-1]) > 1:
                blocks.append([0])
                used = widths[0]
            blocks[-1].append(i)
            used += self.GAP + widths[i]
        return blocks

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        blocks = self.blocks(width)
        return len(blocks) * (len(self.cells) + 2) - 1 if blocks else 0

    def render(self) -> Text:
        width = self.size.width or 80
        widths = self._widths()
        text = Text(no_wrap=True, overflow="ellipsis")
        for b, block in enumerate(self.blocks(width)):
            if b:
                text.append("\n")
            header = (" " * self.GAP).join(
                _pad(self.headers[i], widths[i], right=bool(self.cells) and self.right[0][i]) for i in block
            )
            text.append(header + "\n", style="bold")
            rule = (" " * self.GAP).join("─" * widths[i] for i in block)
            text.append(rule + "\n", style="dim")
            for row, right in zip(self.cells, self.right, strict=True):
                line = (" " * self.GAP).join(_pad(row[i], widths[i], right=right[i]) for i in block)
                text.append(line + "\n")
        text.rstrip()
        return text


def _pad(text: str, width: int, *, right: bool) -> str:
    gap = " " * max(0, width - cell_len(text))
    return gap + text if right else text + gap


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
    DemoPanel .demo-plot { height: 14; margin-top: 1; }
    DemoPanel #demo-meta { margin-bottom: 1; }
    DemoPanel #demo-stale { color: $text-warning; text-style: bold; margin-bottom: 1; }
    DemoPanel #demo-results.-outdated { opacity: 60%; }
    DemoPanel .demo-table-hint { color: $text-muted; }
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
        yield Static("", id="demo-stale", markup=False)
        yield Vertical(id="demo-results")

    def on_mount(self) -> None:
        self.watch(self.app, "language", self._language_changed, init=False)
        self.query_one("#demo-running").display = False
        self.query_one("#demo-error").display = False
        self.query_one("#demo-stale").display = False
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
        self._clear_refused()
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
        lang = posenc_app(self).language
        running = self.query_one("#demo-running")
        running.display = True
        self.query_one("#demo-running-label", Label).update(tr("demo.running", lang, name=self.demo_name))
        self.query_one("#demo-error").display = False
        self._clear_refused()
        self._run_worker(self.run_id, self.demo_name, dict(self.params))

    @property
    def refused(self) -> bool:
        """Whether the shown result is marked as not matching the (refused) parameters."""
        return self.is_mounted and bool(self.query_one("#demo-stale").display)

    def mark_refused(self) -> None:
        """New parameters were refused before running: keep the last result, visibly marked as
        the previous run's (dimmed, with a warning line)."""
        if not self.is_mounted or (self.result is None and self.error is None):
            return
        stale = self.query_one("#demo-stale", Static)
        stale.update(tr("demo.stale", posenc_app(self).language))
        stale.display = True
        self.query_one("#demo-results").add_class("-outdated")

    def _clear_refused(self) -> None:
        if not self.is_mounted:
            return
        self.query_one("#demo-stale").display = False
        self.query_one("#demo-results").remove_class("-outdated")

    @work(thread=True, group="demo", exclusive=True, exit_on_error=False, name="demo-run")
    def _run_worker(self, run_id: int, name: str, params: dict[str, Any]) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        runner = posenc_app(self).demo_runner
        try:
            result = runner(name, params)
        except BaseException as exc:  # shown in the panel, never raised into the app
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            if not worker.is_cancelled:
                self.post_message(
                    self.Finished(self, run_id, error=describe_error(exc, posenc_app(self).language))
                )
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
        included, and the result's checks, tables, notes and heatmaps (their `*_zh` forms);
        widgets are updated in place, not rebuilt."""
        self._render_heading()
        lang = posenc_app(self).language
        if self.refused:
            self.query_one("#demo-stale", Static).update(tr("demo.stale", lang))
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
        tables = [w for w in self.query(DemoTable) if not w.has_class("-stale")]
        titles = [w for w in self.query(".demo-table-title").results(Label) if not w.has_class("-stale")]
        for table, title, table_widget in zip(result.tables, titles, tables, strict=False):
            title.update(self._table_title(table, lang))
            table_widget.set_headers(self._table_headers(table, lang))

    def _spec(self) -> Any:
        if not self.demo_name:
            return None
        try:
            from posenc_ref.demos import get_demo

            return get_demo(self.demo_name)
        except Exception:  # noqa: BLE001 - an unknown or broken demo has no spec to show
            return None

    def _render_heading(self) -> None:
        if not self.is_mounted:
            return
        lang = posenc_app(self).language
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
                inline(title, style="bold"),
                (f"  {self.demo_name}", "dim"),
            )
        )
        claim.update(inline(demo_claim(spec, lang) if spec is not None else "", style="italic"))

    def _render_result_claim(self, result: Any, lang: str) -> None:
        """The claim the result carries (from the spec that ran), in `lang`."""
        text = demo_claim(result, lang)
        if text:
            self.query_one("#demo-claim", Static).update(inline(text, style="italic"))

    def _render_meta(self, result: Any) -> None:
        lang = posenc_app(self).language
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
        widget.update(
            Content.styled("✗ " + tr("demo.failed", posenc_app(self).language, error=error), "bold")
        )
        widget.display = True

    def _show_result(self, result: Any) -> None:
        lang = posenc_app(self).language
        self._render_meta(result)
        self._render_result_claim(result, lang)
        widgets: list[Any] = []
        if result.checks:
            widgets.append(Static(self._checks_content(result, lang), classes="demo-checks", markup=False))
        if result.values:
            widgets.append(Static(self._values_content(result, lang), classes="demo-values", markup=False))
        for table in result.tables:
            widgets.append(
                Label(self._table_title(table, lang), classes="section-title demo-table-title", markup=False)
            )
            widgets.append(self._table(table, lang))
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
                        title_zh=getattr(matrix, "title_zh", ""),
                        row_label_zh=getattr(matrix, "row_label_zh", ""),
                        col_label_zh=getattr(matrix, "col_label_zh", ""),
                    )
                )
        if result.notes:
            widgets.append(
                Static(self._notes_content(result, lang), classes="demo-notes section-title", markup=False)
            )
        self._clear_results()
        self._clear_refused()
        self.query_one("#demo-results", Vertical).mount_all(widgets)

    @staticmethod
    def _checks_content(result: Any, lang: str) -> Content:
        """One ✓/✗ line per check, then its error against the tolerance."""
        lines = [Content.styled(tr("demo.checks", lang), "bold $text-accent")]
        for check in result.checks:
            mark = ("✓ ", "bold $text-success") if check.passed else ("✗ ", "bold $text-error")
            lines.append(Content.assemble(mark, inline(localized(check, "claim", lang))))
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
        lines += [Content.assemble(("• ", "dim"), inline(note)) for note in result_notes(result, lang)]
        return Content("\n").join(lines)

    @staticmethod
    def _table_title(table: Any, lang: str) -> Content:
        return inline(localized(table, "title", lang), style="bold")

    @staticmethod
    def _table_headers(table: Any, lang: str) -> list[str]:
        zh = list(getattr(table, "columns_zh", None) or []) if lang == "zh" else []
        names = [zh[i] if i < len(zh) and zh[i] else c for i, c in enumerate(table.columns)]
        return [plain(str(c)) for c in names]

    def _table(self, table: Any, lang: str) -> DemoTable:
        rows = table.rows[:MAX_TABLE_ROWS]
        texts = [[format_value(v) if _numeric(v) else plain(format_value(v)) for v in row] for row in rows]
        return DemoTable(
            self._table_headers(table, lang), texts, [[_numeric(v) for v in row] for row in rows]
        )

    def _plot(self, series: Any) -> Any:
        try:
            from textual_plotext import PlotextPlot
        except ImportError:
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
