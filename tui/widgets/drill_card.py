"""`DrillCard`: a solved drill as a Study card (`drill:NAME`), which Study shows where a `QuestionView` would
be; revealing it opens the Drill screen."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from ..appref import posenc_app
from ..i18n import tr

# a solved drill's Study card id (= quizbank.progress.store.DRILL_CARD_PREFIX)
DRILL_CARD_PREFIX = "drill:"

__all__ = ["DRILL_CARD_PREFIX", "DrillCard"]


class DrillCard(Vertical):
    """A solved drill as a Study card (`drill:NAME`): re-implement it from memory. Revealing it opens the Drill
    screen; back in Study, the ratings grade how it went. Offers what Study uses of a `QuestionView`."""

    DEFAULT_CSS = """
    DrillCard { height: auto; padding: 1 2; }
    DrillCard .drill-card-title { text-style: bold; color: $text-accent; }
    DrillCard .drill-card-body { margin-top: 1; }
    """

    class Revealed(Message):
        """The user opened the drill: Study shows the ratings."""

    def __init__(self, question_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.question_id = question_id
        self.drill_name = question_id.removeprefix(DRILL_CARD_PREFIX)
        self.question = None  # no bank question (and so no demo) behind this card
        self.revealed = False

    def compose(self) -> ComposeResult:
        yield Static("", classes="drill-card-title", markup=False)
        yield Static("", classes="drill-card-body", markup=False)

    def on_mount(self) -> None:
        self.render_texts()

    def render_texts(self) -> None:
        from quizbank.drills import DRILL_NAMES, get_drill

        lang = posenc_app(self).language
        name = self.drill_name
        title = get_drill(name).text("title", lang) if name in DRILL_NAMES else name
        self.query_one(".drill-card-title", Static).update(
            tr("drill.card_title", lang, name=name, title=title)
        )
        key = "drill.card_done" if self.revealed else "drill.card_body"
        self.query_one(".drill-card-body", Static).update(tr(key, lang))

    def reveal(self) -> None:
        from quizbank.drills import DRILL_NAMES

        if self.drill_name in DRILL_NAMES:
            posenc_app(self).open_drills(self.drill_name)
        if not self.revealed:
            self.revealed = True
            self.render_texts()
            self.post_message(self.Revealed())

    def focus_input(self) -> None:
        """Nothing to type here (Study calls this on a question view)."""

    def compatible_with(self, question: Any) -> bool:
        return False
