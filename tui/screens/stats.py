"""Stats: reviews per day (30 days), true retention, the 14-day due forecast, mastery per topic, the current
streak and the leeches (five lapses or more), each leech one Enter away from its question; a line says when the
scheduler runs on parameters fitted to the candidate's reviews (`posenc progress optimize`).

Numbers come from `quizbank.progress.stats.compute_stats`, computed in a thread worker (group "stats") that posts
`StatsScreen.Computed`; charts are textual-plotext bar charts. All days are UTC days.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Label, OptionList, Static
from textual.widgets.option_list import Option

from ..appref import posenc_app
from ..cells import fit_cells
from ..help_section import HelpSection
from ..i18n import count, tr
from ..keys import bind
from ..richtext import plain
from ..widgets.key_footer import KeyFooter
from ..widgets.title_bar import TitleBar
from .base import LocalizedScreen
from .study import utc_now

__all__ = ["StatsScreen", "drill_attempts_line", "mastery_bar"]


LEECH_LAPSES = 5


MIN_TOPIC_CELLS = 12  # the topic column's least width: narrower, the table scrolls sideways


def _topic_cell(title: str, max_cells: int) -> Text:
    """A topic title cut with "…" to `max_cells` terminal cells, so the number columns stay on screen."""
    return Text(fit_cells(title, max_cells))


def drill_attempts_line(attempts: list[Any], lang: str) -> str:
    """One Stats line for the drill attempts (oldest first), or '' when there are none."""
    if not attempts:
        return ""
    from quizbank.drills import DRILL_NAMES

    last = attempts[-1]
    return tr(
        "drill.stats",
        lang,
        attempts=len(attempts),
        attempts_text=count(len(attempts), "attempt"),
        solved=len({a.drill for a in attempts if a.passed}),
        total=len(DRILL_NAMES),
        name=last.drill,
        passed=last.cases_passed,
        cases=last.cases_total,
    )


def mastery_bar(value: float | None, width: int = 8) -> Text:
    """`████░░░░  52%`, or a dash when nothing was studied (a Rich Text: DataTable measures those)."""
    if value is None:
        return Text("-", style="dim")
    filled = max(0, min(width, round(value * width)))
    color = "green" if value >= 0.85 else "yellow" if value >= 0.6 else "red"
    return Text.assemble(("█" * filled, color), ("░" * (width - filled), "dim"), f" {value:4.0%}")


def _integer_y_axis(plt: Any, top: int) -> None:
    """Counts are whole numbers: at most 5 integer ticks from 0 to `top`."""
    step = max(1, -(-top // 4))
    ticks = list(range(0, top + step, step))
    plt.ylim(0, ticks[-1])
    plt.yticks(ticks, [str(t) for t in ticks])


class StatsScreen(LocalizedScreen):
    """Study statistics (see the module docstring)."""

    HELP_SECTION = HelpSection("key.stats", 200)

    CSS_PATH = Path(__file__).with_name("stats.tcss")  # absolute: subclasses elsewhere still find it
    BINDINGS = [bind("g", "refresh_stats", "stats.refresh", "stats.key_refresh")]

    class Computed(Message):
        def __init__(
            self,
            stats: Any = None,
            error: str | None = None,
            *,
            mock_reports: list[Any] | None = None,
            drill_attempts: list[Any] | None = None,
        ) -> None:
            super().__init__()
            self.stats = stats  # quizbank.progress.stats.Stats
            self.error = error
            self.mock_reports = mock_reports or []  # the store's mock sessions
            self.drill_attempts = drill_attempts or []  # the store's drill attempts

    def __init__(self, *, clock: Callable[[], datetime] | None = None) -> None:
        """`clock` returns the current aware UTC time (tests inject a fixed clock)."""
        super().__init__()
        self.clock = clock or utc_now
        self.stats: Any = None
        self.error: str | None = None
        self._mastery_width = 0  # the mastery table's width its titles were last cut to

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="stats-body"):
            yield Static("", id="stats-summary", markup=False)
            with Horizontal(id="stats-charts"):
                yield self._plot("stats-reviews")
                yield self._plot("stats-forecast")
            with Horizontal(id="stats-tables"):
                with Vertical(id="stats-mastery-box"):
                    yield Label("", id="stats-mastery-title", classes="section-title", markup=False)
                    yield Static("", id="stats-mastery-means", markup=False)
                    table: DataTable = DataTable(id="stats-mastery", show_cursor=False, zebra_stripes=True)
                    table.can_focus = False
                    yield table
                with Vertical(id="stats-leeches-box"):
                    yield Label("", id="stats-leeches-title", classes="section-title", markup=False)
                    yield OptionList(id="stats-leeches")
                    yield Static("", id="stats-no-leeches", classes="muted", markup=False)
            yield self._plot("stats-mock")  # mock interview scores; shown once there is one
        yield KeyFooter()

    @staticmethod
    def _plot(widget_id: str) -> Any:
        from textual_plotext import PlotextPlot

        return PlotextPlot(id=widget_id, classes="stats-plot")

    def on_mount(self) -> None:
        super().on_mount()  # the footer's language; relabel / banks_reloaded on a change
        self.query_one("#stats-summary", Static).update(tr("stats.loading", posenc_app(self).language))
        self._refresh()

    # ------------------------------------------------------------------ data

    def _topics(self) -> dict[str, list[str]]:
        bankset = posenc_app(self).bankset
        if bankset is None:
            return {}
        return {topic.id: list(topic.question_ids) for topic in bankset.topics}

    def _refresh(self) -> None:
        store = posenc_app(self).store
        lang = posenc_app(self).language
        if store is None:
            if posenc_app(self).store_error:
                self.query_one("#stats-summary", Static).update(
                    tr("stats.no_store", lang, error=posenc_app(self).store_error)
                )
            return
        if posenc_app(self).bankset is None:
            return
        self._compute(store, self._topics(), self.clock())

    @work(thread=True, group="stats", exclusive=True, exit_on_error=False, name="stats-compute")
    def _compute(self, store: Any, topics: dict[str, list[str]], now: datetime) -> None:
        from quizbank.progress.stats import compute_stats

        try:
            stats = compute_stats(store, topics, now, leech_lapses=LEECH_LAPSES)
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            text = str(exc).strip().splitlines()
            self.post_message(self.Computed(error=text[0] if text else type(exc).__name__))
            return
        try:
            mock_reports = store.mock_sessions()
        except Exception:  # noqa: BLE001 - optional panels: the stats still show
            mock_reports = []
        try:
            drill_attempts = store.drill_attempts()
        except Exception:  # noqa: BLE001 - optional panels: the stats still show
            drill_attempts = []
        self.post_message(self.Computed(stats, mock_reports=mock_reports, drill_attempts=drill_attempts))

    def on_stats_screen_computed(self, message: StatsScreen.Computed) -> None:
        self.stats = message.stats
        self.error = message.error
        self.mock_reports = message.mock_reports
        self.drill_attempts = message.drill_attempts
        self._render_all()

    def action_refresh_stats(self) -> None:
        self._refresh()

    # ------------------------------------------------------------------ rendering

    def relabel(self) -> None:
        self._render_all()

    def banks_reloaded(self) -> None:
        self._refresh()

    def _render_all(self) -> None:
        lang = posenc_app(self).language
        summary = self.query_one("#stats-summary", Static)
        if self.error is not None:
            summary.update(Content.styled(tr("stats.failed", lang, error=self.error), "$text-error"))
            return
        stats = self.stats
        if stats is None:
            return
        summary.update(self._summary(stats, lang))
        self._render_reviews_chart(stats, lang)
        self._render_forecast_chart(stats, lang)
        self._render_mastery(stats, lang)
        self._render_leeches(stats, lang)
        self._render_mock_chart(lang)

    def _render_mock_chart(self, lang: str) -> None:
        from .mock.report import render_mock_scores

        plot = self.query_one("#stats-mock")
        reports = getattr(self, "mock_reports", [])
        plot.display = bool(reports)
        if reports:
            render_mock_scores(plot, reports, lang)

    def _summary(self, stats: Any, lang: str) -> Content:
        if stats.true_retention is None:
            retention = tr("stats.retention_none", lang)
        else:
            retention = tr(
                "stats.retention",
                lang,
                value=f"{stats.true_retention:.0%}",
                recalled=stats.retention_recalled,
                total=stats.retention_reviews,
                days=stats.days,
            )
        first: list[str | tuple[str, str]] = [
            (
                tr(
                    "stats.today_one" if stats.reviewed_today == 1 else "stats.today",
                    lang,
                    n=stats.reviewed_today,
                ),
                "bold",
            ),
            ("  ·  ", "$text-muted"),
            (
                tr(
                    "stats.streak_one" if stats.streak_days == 1 else "stats.streak",
                    lang,
                    n=stats.streak_days,
                ),
                "bold $text-warning",
            ),
            ("  ·  ", "$text-muted"),
            (retention, "$text-success" if stats.true_retention is not None else "$text-muted"),
        ]
        if stats.quiz_accuracy is not None:
            first += [
                ("  ·  ", "$text-muted"),
                tr(
                    "stats.accuracy",
                    lang,
                    value=f"{stats.quiz_accuracy:.0%}",
                    correct=stats.attempts_correct,
                    total=stats.attempts_in_window,
                ),
            ]
        states = stats.cards_by_state
        second = tr(
            "stats.cards",
            lang,
            learning=states.get("learning", 0),
            review=states.get("review", 0),
            relearning=states.get("relearning", 0),
            total=stats.reviews_in_window,
            days=stats.days,
            reviews=count(stats.reviews_in_window, "review"),
            days_text=count(stats.days, "day"),
        )
        drills = drill_attempts_line(getattr(self, "drill_attempts", []), lang)
        tail: list[str | tuple[str, str]] = ["\n", (drills, "$text-accent")] if drills else []
        fitted = getattr(stats, "fitted", None)
        if fitted is not None:  # `posenc progress optimize` kept a fit: the defaults no longer schedule
            when = f"{fitted.fitted_at:%Y-%m-%d}"
            tail += ["\n", (tr("stats.fitted", lang, n=f"{fitted.reviews:,}", date=when), "$text-success")]
        return Content.assemble(*first, "\n", (second, "$text-secondary"), *tail)

    def _render_reviews_chart(self, stats: Any, lang: str) -> None:
        from textual_plotext import PlotextPlot  # (loaded with the screen's first chart)

        plot = self.query_one("#stats-reviews", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        days = stats.reviews_per_day
        xs = list(range(len(days)))
        plt.bar(xs, [d.count for d in days], color="cyan", width=0.6)
        ticks = [i for i in xs if (len(days) - 1 - i) % 7 == 0]
        # plotext's xticks takes float positions
        plt.xticks(list[float](ticks), [days[i].day.strftime("%m-%d") for i in ticks])
        _integer_y_axis(plt, max([d.count for d in days] + [1]))
        plt.title(tr("stats.reviews_chart", lang, days=len(days)))
        plot.refresh()

    def _render_forecast_chart(self, stats: Any, lang: str) -> None:
        from textual_plotext import PlotextPlot  # (loaded with the screen's first chart)

        plot = self.query_one("#stats-forecast", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        days = stats.due_forecast
        xs = list(range(len(days)))
        plt.bar(xs, [d.count for d in days], color="orange", width=0.6)
        ticks = [i for i in xs if i % 3 == 0]
        labels = [tr("stats.today_label", lang) if i == 0 else days[i].day.strftime("%m-%d") for i in ticks]
        plt.xticks(list[float](ticks), labels)
        _integer_y_axis(plt, max([d.count for d in days] + [1]))
        plt.title(tr("stats.forecast_chart", lang, days=len(days)))
        plot.refresh()

    def _render_mastery(self, stats: Any, lang: str) -> None:
        self.query_one("#stats-mastery-title", Label).update(tr("stats.mastery", lang))
        self.query_one("#stats-mastery-means", Static).update(
            Content.styled(tr("stats.mastery_means", lang), "dim")
        )
        table = self.query_one("#stats-mastery", DataTable)
        table.clear(columns=True)
        # Rich Text, not str (parsed as markup) or Content (DataTable measures it as one cell wide).
        keys = ("stats.col_topic", "stats.col_studied", "stats.col_due", "stats.col_new", "stats.col_mastery")
        table.add_columns(*[Text(tr(key, lang)) for key in keys])
        bankset = posenc_app(self).bankset
        topics = bankset.topics if bankset is not None else []
        titles: list[str] = []
        numbers_of: list[list[Text]] = []
        for topic in topics:
            progress = stats.mastery.get(topic.id)
            if progress is None:
                continue
            titles.append(plain(topic.title.get(lang)))
            numbers_of.append(
                [
                    Text(str(progress.studied), justify="right"),
                    Text(str(progress.due), justify="right"),
                    Text(str(progress.new), justify="right"),
                    mastery_bar(progress.mastery),
                ]
            )
        # the titles take the width the number columns leave (each column has a cell of padding a side)
        numbers = sum(
            max([cell_len(tr(key, lang))] + [row[i].cell_len for row in numbers_of]) + 2
            for i, key in enumerate(keys[1:])
        )
        width = table.scrollable_content_region.width - numbers - 2 - table.styles.scrollbar_size_vertical
        room = max(MIN_TOPIC_CELLS, width) if table.size.width else 22
        table.add_rows(
            [[_topic_cell(title, room), *row] for title, row in zip(titles, numbers_of, strict=True)]
        )
        self._mastery_width = table.size.width

    def on_resize(self) -> None:
        self.call_after_refresh(self._refit_mastery)

    def _refit_mastery(self) -> None:
        """Cut the titles again to the table's new width (narrow, the tables stack: see stats.tcss)."""
        table = self.query_one("#stats-mastery", DataTable)
        if self.stats is not None and self.error is None and table.size.width != self._mastery_width:
            self._render_mastery(self.stats, posenc_app(self).language)

    def _render_leeches(self, stats: Any, lang: str) -> None:
        self.query_one("#stats-leeches-title", Label).update(tr("stats.leeches", lang, n=LEECH_LAPSES))
        options = self.query_one("#stats-leeches", OptionList)
        empty = self.query_one("#stats-no-leeches", Static)
        options.clear_options()
        bankset = posenc_app(self).bankset
        items = []
        for leech in stats.leeches:
            question = bankset.questions.get(leech.question_id) if bankset is not None else None
            prompt = plain(question.prompt.get(lang)) if question is not None else ""
            if len(prompt) > 60:
                prompt = prompt[:59].rstrip() + "…"
            label = Content.assemble(
                (leech.question_id, "bold"),
                ("  ", ""),
                (
                    tr("stats.lapses", lang, n=leech.lapses, lapses=count(leech.lapses, "lapse")),
                    "$text-error",
                ),
                ("  ", ""),
                (prompt, "$text-muted"),
            )
            items.append(Option(label, id=leech.question_id))
        options.add_options(items)
        if items:
            options.highlighted = 0
        options.display = bool(items)
        empty.display = not items
        empty.update(tr("stats.no_leeches", lang))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            posenc_app(self).open_question(event.option.id)
