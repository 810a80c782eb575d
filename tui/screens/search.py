"""`/` search: type to find a question (by id or text, in the current language), a topic or a demo;
Enter jumps there. Up/Down move through the results while typing."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..i18n import demo_title, tr
from ..richtext import plain

__all__ = ["SearchScreen", "search"]

MAX_RESULTS = 60


def _short(text: str, limit: int = 160) -> str:
    flat = plain(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def search(app: Any, query: str) -> list[tuple[str, str, str, Callable[[], None]]]:
    """Results as (kind, key, label, jump): exact id first, then topics, questions, demos (found by
    name or by an English or Chinese title, labelled in the app language)."""
    lang = app.language
    needle = query.strip().casefold()
    results: list[tuple[int, str, str, str, Callable[[], None]]] = []
    bankset = app.bankset
    if bankset is not None:
        for topic in bankset.topics:
            title = topic.title.get(lang)
            if not needle or needle in topic.id.casefold() or needle in title.casefold():
                results.append((1, "topic", topic.id, _short(title), partial(app.open_topic, topic.id)))
        questions = bankset.search(query, lang) if needle else bankset.ordered_questions()
        for question in questions:
            rank = 0 if question.id.casefold() == needle else 2
            results.append(
                (
                    rank,
                    "question",
                    question.id,
                    _short(question.prompt.get(lang)),
                    partial(app.open_question, question.id),
                )
            )
    try:
        from posenc_ref.demos import list_demos

        demos = list_demos()
    except Exception:
        demos = []
    for demo in demos:
        # a demo matches by its name or its title in either language
        titles = (demo.title, getattr(demo, "title_zh", ""))
        if not needle or needle in demo.name.casefold() or any(needle in t.casefold() for t in titles if t):
            results.append((3, "demo", demo.name, demo_title(demo, lang), partial(app.open_demo, demo.name)))
    results.sort(key=lambda r: r[0])
    return [(kind, key, label, jump) for _rank, kind, key, label, jump in results]


class SearchScreen(ModalScreen["Callable[[], None] | None"]):
    """Search box with live results. Dismisses with the chosen jump (the caller runs it)."""

    DEFAULT_CSS = """
    SearchScreen { align: center top; }
    SearchScreen #search-box {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 80%;
        margin-top: 2;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    SearchScreen #search-input { margin-bottom: 1; }
    SearchScreen #search-results {
        height: auto;
        max-height: 24;
        border: none;
        background: $surface;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    SearchScreen #search-count { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
    ]

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.initial_query = query
        self._jumps: dict[str, Callable[[], None]] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box"):
            yield Input(
                self.initial_query, placeholder=tr("search.placeholder", self.app.language), id="search-input"
            )
            yield OptionList(id="search-results")
            yield Static("", id="search-count", markup=False)

    def on_mount(self) -> None:
        field = self.query_one("#search-input", Input)
        field.cursor_blink = getattr(self.app, "cursor_blink", True)
        field.focus()
        self._update(field.value)
        self.watch(self.app, "language", self._language_changed, init=False)

    def _language_changed(self) -> None:
        field = self.query_one("#search-input", Input)
        field.placeholder = tr("search.placeholder", self.app.language)
        self._update(field.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._update(event.value)

    def _update(self, query: str) -> None:
        lang = self.app.language
        found = search(self.app, query)
        options = self.query_one("#search-results", OptionList)
        options.clear_options()
        self._jumps = {}
        kinds = {kind: tr("search." + kind, lang) for kind in ("topic", "question", "demo")}
        kind_width = max(cell_len(text) for text in kinds.values())
        for n, (kind, key, label, jump) in enumerate(found[:MAX_RESULTS]):
            option_id = f"r{n}"
            self._jumps[option_id] = jump
            options.add_option(
                Option(
                    Content.assemble(
                        (kinds[kind] + " " * (kind_width - cell_len(kinds[kind]) + 1), "$text-secondary"),
                        (key, "bold"),
                        "  ",
                        (label, "dim"),
                    ),
                    id=option_id,
                )
            )
        if found:
            options.highlighted = 0
        count = self.query_one("#search-count", Static)
        count.update(tr("search.none", lang) if not found else f"{min(len(found), MAX_RESULTS)}/{len(found)}")

    def action_move(self, delta: int) -> None:
        options = self.query_one("#search-results", OptionList)
        if options.option_count:
            current = options.highlighted if options.highlighted is not None else -1
            options.highlighted = (current + delta) % options.option_count

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one("#search-results", OptionList)
        if options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        self._jump(option.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._jump(event.option.id)

    def _jump(self, option_id: str | None) -> None:
        self.dismiss(self._jumps.get(option_id or ""))

    def action_close(self) -> None:
        self.dismiss(None)
