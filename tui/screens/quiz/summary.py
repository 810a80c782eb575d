"""Quiz summary: the score, every outcome counted, the per-topic breakdown and the questions to revisit
(Enter opens one in Browse; retry them, or set up a new quiz)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Label, OptionList, Static
from textual.widgets.option_list import Option

from quizbank.quiz_session import QuizCounts, QuizSession

from ...appref import posenc_app
from ...cells import fit_cells
from ...help_section import HelpSection
from ...i18n import tr
from ...keys import bind
from ...richtext import plain
from ...widgets.key_footer import KeyFooter
from ...widgets.title_bar import TitleBar
from ..base import LocalizedScreen
from .session import QuizScreen
from .setup import QuizSetupScreen
from .shorten import shorten

__all__ = ["REVISIT_ROWS", "QuizSummaryScreen", "format_duration", "summary_detail", "topic_result"]

REVISIT_ROWS = 4  # the fewest questions the summary's revisit list shows, however many topics
TITLE_MIN = 16  # a topic title is cut to the width its line leaves, never below this
SUMMARY_GUTTER = 4 + 2 + 2  # the summary's padding, a topic line's indent, the lines' scrollbar


def format_duration(seconds: float) -> str:
    """`42 s`, `3 min 5 s` (whole seconds, rounded)."""
    total = max(0, round(seconds))
    return f"{total // 60} min {total % 60} s" if total >= 60 else f"{total} s"


def summary_detail(counts: QuizCounts, seconds: float, lang: str) -> Content:
    """The line under the score: every outcome counted on its own, then the time taken."""
    parts: list[Any] = [
        (tr("summary.answered", lang, n=counts.answered), "bold"),
        (" · " + tr("summary.correct_n", lang, n=counts.correct), "$text-success"),
        (" · " + tr("summary.wrong_n", lang, n=counts.wrong), "$text-error" if counts.wrong else ""),
    ]
    if counts.revealed:
        parts.append((" · " + tr("summary.revealed_n", lang, n=counts.revealed), "$text-warning"))
    parts.append((" · " + tr("summary.skipped_n", lang, n=counts.skipped), ""))
    parts.append((" · " + tr("summary.not_reached_n", lang, n=counts.not_reached), "dim"))
    parts.append((" · " + tr("summary.duration", lang, duration=format_duration(seconds)), ""))
    return Content.assemble(*parts)


def topic_result(good: int, answered: int, count: int, reached: int, lang: str) -> tuple[str, str]:
    """A topic's line in the summary: `right/answered`, or that it was never reached."""
    if answered == 0:
        key = "summary.topic_unreached" if reached == 0 else "summary.topic_unanswered"
        return f"  {tr(key, lang)}", "dim"
    extra = f"  ({tr('summary.of_n', lang, n=count)})" if answered < count else ""
    style = "bold $text-success" if good == answered else "bold $text-warning"
    return f"  {good:>2}/{answered}{extra}", style


class SummaryLists(Vertical):
    """The per-topic lines above the revisit list. The lines give up rows (and scroll) so that the list
    keeps at least REVISIT_ROWS: at 80x24 a dozen topics left it none. The share is worked out from this
    box's own height, whenever that changes, so no stale layout can leave it wrong (CSS `fr` cannot say
    it: Textual 8 drops a `min-height` met in the same pass as a `max-height`)."""

    def on_resize(self) -> None:
        self.share_rows()

    def share_rows(self) -> None:
        box = self.query_one("#summary-topics-box", VerticalScroll)
        label = self.query_one("#summary-revisit-label", Label)
        options = self.query_one("#summary-revisit", OptionList)
        if not options.display:  # nothing to revisit: the lines take what they need, the buttons follow
            self.styles.height = "auto"
            box.styles.max_height = None
            return
        self.styles.height = "1fr"
        label_rows = 1 + label.styles.margin.height  # one line ("To revisit"), never wrapped
        list_rows = REVISIT_ROWS + options.styles.gutter.height + options.styles.margin.height
        cap = max(3, self.content_size.height - box.styles.margin.height - label_rows - list_rows)
        if box.styles.max_height is None or box.styles.max_height.value != cap:
            box.styles.max_height = cap


class QuizSummaryScreen(LocalizedScreen):
    """Score, per-topic breakdown and the questions to revisit (Enter opens one in Browse)."""

    HELP_SECTION = HelpSection("help.summary", 60)

    CSS_PATH = Path(__file__).with_name("quiz.tcss")
    BINDINGS = [
        bind("m", "retry", "summary.retry", "key.retry"),
        bind("z", "new_quiz", "summary.new", "key.new_quiz"),
        bind("r", "app.reload", "summary.reload", "key.reload"),
        bind("ctrl+q", "app.quit", "summary.quit", "key.quit"),
    ]

    def __init__(self, session: QuizSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="summary"):
            yield Static("", id="summary-score", markup=False)
            yield Static("", id="summary-detail", markup=False)
            with SummaryLists(id="summary-lists"):
                with VerticalScroll(id="summary-topics-box"):
                    yield Static("", id="summary-topics", markup=False)
                yield Label("", id="summary-revisit-label", classes="section-title")
                yield OptionList(id="summary-revisit")
            with Horizontal(id="summary-buttons"):
                yield Button("", id="summary-retry", variant="primary")
                yield Button("", id="summary-new")
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.relabel()
        self.query_one("#summary-revisit", OptionList).focus()

    def relabel(self) -> None:
        lang = posenc_app(self).language
        session = self.session
        counts = session.counts()
        score = (
            tr("summary.score", lang, right=counts.correct, total=counts.answered, pct=counts.pct)
            if counts.answered
            else tr("summary.score_none", lang)
        )
        self.query_one("#summary-score", Static).update(Content.styled(score, "bold $text-accent"))
        self.query_one("#summary-detail", Static).update(summary_detail(counts, session.duration_s, lang))
        self._show_topics()
        bankset = posenc_app(self).bankset
        revisit = session.to_revisit()
        label = self.query_one("#summary-revisit-label", Label)
        label.update(tr("summary.revisit", lang) if revisit else tr("summary.perfect", lang))
        options = self.query_one("#summary-revisit", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        reason_width = max(
            cell_len(tr(k, lang)) for k in ("summary.skipped", "summary.revealed", "summary.wrong")
        )
        for qid in revisit:
            grade = session.grades.get(qid)
            if qid in session.skipped:
                reason, style = tr("summary.skipped", lang), "$text-warning"
            elif grade is not None and grade.correct is None:
                reason, style = tr("summary.revealed", lang), "$text-warning"
            else:
                reason, style = tr("summary.wrong", lang), "$text-error"
            showing = session.live.get(qid)  # a generated question: the numbers it was shown with
            question = showing.question if showing is not None else (
                bankset.questions.get(qid) if bankset is not None else None
            )  # fmt: skip
            prompt = shorten(question.prompt.get(lang), 200) if question is not None else ""
            pad = " " * (reason_width - cell_len(reason) + 1)
            options.add_option(
                Option(Content.assemble((reason + pad, style), (qid, "bold"), "  ", (prompt, "dim")), id=qid)
            )
        options.display = bool(revisit)
        if revisit:  # Enter opens the highlighted one: start on the first (or keep the place)
            options.highlighted = min(highlighted or 0, len(revisit) - 1)
        retry = self.query_one("#summary-retry", Button)
        retry.label = tr("key.retry", lang)
        retry.display = bool(revisit)
        self.query_one("#summary-new", Button).label = tr("key.new_quiz", lang)
        self.query_one(SummaryLists).share_rows()

    def _show_topics(self) -> None:
        """The per-topic lines: each topic's title and how it went."""
        lang, session = posenc_app(self).language, self.session
        bankset = posenc_app(self).bankset
        lines: list[Content] = [Content.styled(tr("summary.by_topic", lang), "bold")]
        if bankset is not None:
            # per topic: [correct, answered, questions, reached]
            per_topic: dict[str, list[int]] = {}
            for qid in session.question_ids:
                topic_id = bankset.topic_of.get(qid, "?")
                entry = per_topic.setdefault(topic_id, [0, 0, 0, 0])
                entry[2] += 1
                entry[3] += qid in session.reached
                grade = session.grades.get(qid)
                if grade is not None and grade.correct is not None:
                    entry[1] += 1
                    entry[0] += bool(grade.correct)
            results = {
                topic_id: topic_result(good, answered, count, reached, lang)
                for topic_id, (good, answered, count, reached) in per_topic.items()
            }
            # the titles take the width the results leave (they were cut at 40 with 60 columns free)
            room = max(
                TITLE_MIN,
                self.size.width - SUMMARY_GUTTER - max((cell_len(r[0]) for r in results.values()), default=0),
            )
            titles = {t.id: fit_cells(plain(t.title.get(lang)), room) for t in bankset.topics}
            width = max((cell_len(titles.get(t, t)) for t in per_topic), default=0)
            for topic_id, result in results.items():
                title = titles.get(topic_id, topic_id)
                lines.append(Content.assemble(("  " + title + " " * (width - cell_len(title)), ""), result))
        self.query_one("#summary-topics", Static).update(Content("\n").join(lines))

    def on_resize(self) -> None:
        self._show_topics()

    def banks_reloaded(self) -> None:
        self.relabel()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            posenc_app(self).open_question(event.option.id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "retry":
            return bool(self.session.to_revisit())
        return True

    @on(Button.Pressed, "#summary-retry")
    def action_retry(self) -> None:
        ids = self.session.to_revisit()
        if not ids:
            return
        config = self.session.config
        posenc_app(self).switch_screen(QuizScreen(QuizSession(config, ids)))

    @on(Button.Pressed, "#summary-new")
    def action_new_quiz(self) -> None:
        posenc_app(self).switch_screen(QuizSetupScreen(self.session.config.topics))
