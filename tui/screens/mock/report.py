"""The mock interview report screen and the scores plot on Stats.

`MockReportScreen`: the report (overall, by topic, by skill, time per item, weakest topics, missed items with
model answers); `a` adds every missed item to Study (due now), `e` exports Markdown."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widgets import (
    Markdown,
)

from ...appref import posenc_app
from ...help_section import HelpSection
from ...i18n import tr
from ...keys import bind
from ...richtext import markdown_source
from ...widgets.key_footer import KeyFooter
from ...widgets.title_bar import TitleBar
from ..base import LocalizedScreen

__all__ = ["MockReportScreen", "render_mock_scores"]


# ---------------------------------------------------------------------------------------------------- report


class MockReportScreen(LocalizedScreen):
    """The report (Markdown from `quizbank.mock.report.render_markdown`); `a` adds missed items to Study, `e`
    exports it."""

    HELP_SECTION = HelpSection("help.mock_report", 160)

    CSS_PATH = Path(__file__).with_name("mock.tcss")
    BINDINGS = [
        bind("a", "add_missed", "mock.add_missed", "mock.key_add"),
        bind("e", "export", "mock.export", "mock.key_export"),
    ]

    class Done(Message):
        def __init__(self, text: str, severity: SeverityLevel = "information") -> None:
            super().__init__()
            self.text = text
            self.severity = severity

    def __init__(self, report: dict[str, Any], *, save: bool = False) -> None:
        super().__init__()
        self.report = report
        self.save = save
        self.exported_to: Path | None = None
        self.added = 0

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="mock-report-body"):
            yield Markdown("", id="mock-report", open_links=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.relabel()
        self.query_one("#mock-report-body").focus()
        if self.save:
            self._save()

    def markdown(self, lang: str | None = None) -> str:
        from quizbank.mock.report import render_markdown

        return render_markdown(self.report, lang or posenc_app(self).language)

    def relabel(self) -> None:
        self.query_one("#mock-report", Markdown).update(markdown_source(self.markdown()))

    def _fail_line(self, exc: BaseException) -> str:
        text = str(exc).strip().splitlines()
        return text[0] if text else type(exc).__name__

    @work(thread=True, name="mock-save", group="mock-store", exit_on_error=False)
    def _save(self) -> None:
        lang = posenc_app(self).language
        store = posenc_app(self).store
        report = self.report
        if store is None:
            error = posenc_app(self).store_error or "no progress store"
            self.post_message(self.Done(tr("mock.no_store", lang, error=error), "warning"))
            return
        try:
            store.save_mock_report(report)
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            self.post_message(self.Done(tr("mock.save_failed", lang, error=self._fail_line(exc)), "error"))
            return
        self.post_message(self.Done(tr("mock.saved", lang, id=report["id"])))

    def on_mock_report_screen_done(self, message: Done) -> None:
        posenc_app(self).notify(message.text, severity=message.severity, timeout=6)

    def missed_ids(self) -> list[str]:
        return [
            (f"drill:{item['id']}" if item["kind"] == "drill" else item["id"])
            for item in self.report["items"]
            if item["missed"]
        ]

    def action_add_missed(self) -> None:
        ids = self.missed_ids()
        if not ids:
            posenc_app(self).notify(tr("mock.nothing_missed", posenc_app(self).language), timeout=3)
            return
        self._add_missed(ids)

    @work(thread=True, name="mock-add-missed", group="mock-store", exit_on_error=False)
    def _add_missed(self, ids: list[str]) -> None:
        lang = posenc_app(self).language
        store = posenc_app(self).store
        if store is None:
            error = posenc_app(self).store_error or "no progress store"
            self.post_message(self.Done(tr("mock.no_store", lang, error=error), "warning"))
            return
        try:
            store.make_due_now(ids)
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            self.post_message(self.Done(tr("mock.save_failed", lang, error=self._fail_line(exc)), "error"))
            return
        self.added = len(ids)
        self.post_message(
            self.Done(tr("mock.added_one" if len(ids) == 1 else "mock.added", lang, n=len(ids)))
        )

    def action_export(self) -> None:
        lang = posenc_app(self).language
        text = self.markdown()
        name = f"mock-{self.report['id']}.md"
        if getattr(self.app, "is_web", False):
            posenc_app(self).deliver_text(io.StringIO(text), save_filename=name)
            posenc_app(self).notify(tr("mock.delivered", lang, name=name), timeout=5)
            return
        from quizbank.atomicio import write_text_atomic
        from quizbank.progress.store import default_data_dir

        store = posenc_app(self).store
        folder = (Path(store.path).parent if store is not None else default_data_dir()) / "mock-reports"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = write_text_atomic(folder / name, text)
        except OSError as exc:
            posenc_app(self).notify(
                tr("mock.export_failed", lang, error=exc.strerror or exc), severity="error"
            )
            return
        self.exported_to = path
        posenc_app(self).notify(tr("mock.exported", lang, path=str(path)), timeout=8)


# ---------------------------------------------------------------------------------------------------- stats


def render_mock_scores(plot: Any, reports: list[dict[str, Any]], lang: str) -> None:
    """Draw the score of every saved interview (oldest first) into a PlotextPlot."""
    plt = plot.plt
    plt.clear_data()
    plt.clear_figure()
    scored = [r for r in reports if r.get("score") is not None]
    xs = list(range(1, len(scored) + 1))
    ys = [round(100 * float(r["score"])) for r in scored]
    if xs:
        plt.plot(xs, ys, marker="braille", color="green")
        plt.scatter(xs, ys, color="green")
        step = max(1, len(xs) // 6)
        ticks = xs[::step]
        plt.xticks(ticks, [str(r["started_at"])[5:10] for r in scored[::step]])
    plt.ylim(0, 100)
    plt.yticks([0, 25, 50, 75, 100], ["0", "25", "50", "75", "100"])
    plt.title(tr("mock.scores_chart", lang))
    plot.refresh()
