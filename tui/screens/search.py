"""`/` search: type to find a question, a topic or a demo; Enter jumps there. Up/Down move through
the results while typing.

Matching is case-insensitive, on the text as shown (math converted), in both languages. Results
are ranked: an exact question id first, then id and title matches (question ids, topic and demo
titles and names), then prompts, then answers and choices, then explanations; a match in the app
language ranks before one found only in the other language, then bank order. The matched text is
highlighted, and a match outside the label (an explanation, the other language) is shown as a
short excerpt under it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from rich.cells import cell_len
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from quizbank.search import (
    ANSWER,
    EXACT_ID,
    EXPLANATION,
    NEUTRAL,
    PROMPT,
    TITLE,
    Document,
    Match,
    question_index,
    question_index_ready,
)
from quizbank.search import excerpt as search_excerpt
from quizbank.search import rank as search_rank

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import LANGUAGES, tr
from ..keys import bind
from ..richtext import highlight, plain

__all__ = [
    "ANSWER",
    "EXACT_ID",
    "EXPLANATION",
    "PROMPT",
    "TITLE",
    "Hit",
    "SearchScreen",
    "highlight",
    "rank",
    "search",
]

MAX_RESULTS = 60


@dataclass(frozen=True)
class Hit:
    rank: int
    other_language: bool  # found only in the language the app is not showing
    order: int  # source order, for ties
    kind: str  # "topic" | "question" | "demo" | "term"
    key: str
    label: str  # in the app language
    excerpt: str  # the matched text when it is not in the label ("" otherwise)
    jump: Callable[[], None]


def _short(text: str, limit: int = 160) -> str:
    return _cut(plain(text), limit)


def _cut(flat: str, limit: int = 160) -> str:
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _bilingual(text: Any) -> dict[str, str]:
    """{lang: plain text} for a bank `Text` (the languages it has)."""
    if text is None:
        return {}
    return {lang: plain(value) for lang in LANGUAGES if (value := getattr(text, lang, None))}


def _index(bankset: Any) -> list[Document]:
    return question_index(bankset, plain)


_STATIC: dict[str, list[Document]] = {}


def _present(**texts: str | None) -> dict[str, str]:
    return {lang: text for lang, text in texts.items() if text}


def _demo_documents() -> list[Document]:
    if "demo" not in _STATIC:
        try:
            from posenc_ref.demos import list_demos

            demos = list_demos()
        except Exception:  # noqa: BLE001 - search lists what it can
            return []
        _STATIC["demo"] = [
            Document(
                "demo",
                demo.name,
                order,
                (
                    (TITLE, {NEUTRAL: demo.name}),
                    (TITLE, _present(en=demo.title, zh=getattr(demo, "title_zh", ""))),
                ),
            )
            for order, demo in enumerate(demos)
        ]
    return _STATIC["demo"]


def _term_documents() -> list[Document]:
    if "term" not in _STATIC:
        try:
            from quizbank.glossary import load_glossary

            terms = load_glossary()
        except Exception:  # noqa: BLE001 - search lists what it can
            return []
        _STATIC["term"] = [
            Document(
                "term",
                term.id,
                order,
                (
                    (TITLE, {NEUTRAL: term.id}),
                    (TITLE, _present(en=term.en, zh=term.zh)),
                    (EXPLANATION, _present(en=term.definition_en, zh=term.definition_zh)),
                ),
            )
            for order, term in enumerate(terms)
        ]
    return _STATIC["term"]


def _static_ready() -> bool:
    return "demo" in _STATIC and "term" in _STATIC


def rank(app: Any, query: str) -> list[Hit]:
    """Every topic, question, demo and glossary term that matches `query`, best first (quizbank.search);
    an empty query lists the topics and demos."""
    lang = app.language
    bankset = app.bank_view  # the full bank, or its preview during the first second
    documents: list[Document] = []
    topics: dict[str, Any] = {}
    if bankset is not None:
        for order, topic in enumerate(bankset.topics):
            topics[topic.id] = topic
            fields = ((TITLE, {NEUTRAL: topic.id}), (TITLE, _bilingual(topic.title)))
            documents.append(Document("topic", topic.id, order, fields))
    demos = {doc.key: doc for doc in _demo_documents()}
    if not query.strip():  # topics and demos; questions need the index (built off the UI thread)
        listed = [*documents, *demos.values()]
        return [_hit(app, Match(TITLE, False, True, 0, doc, TITLE, lang), query, topics) for doc in listed]
    if bankset is not None:
        documents += _index(bankset)
    documents += demos.values()
    documents += _term_documents()
    return [_hit(app, match, query, topics) for match in search_rank(documents, query, lang)]


def _hit(app: Any, match: Match, query: str, topics: dict[str, Any]) -> Hit:
    lang, doc = app.language, match.document
    other = match.other_language
    found_in = doc.text(match.field_rank, match.field_lang) if match.field_lang else ""
    if doc.kind == "question":
        prompt = doc.text(PROMPT, lang)
        label = _cut(prompt)
        shown = match.rank in (EXACT_ID, TITLE) or (match.field_rank == PROMPT and not other)
        text = "" if shown else search_excerpt(found_in, query)
        return Hit(
            match.rank, other, doc.order, "question", doc.key, label, text, partial(app.try_question, doc.key)
        )
    if doc.kind == "topic":
        title = topics[doc.key].title
        label = _short(title.get(lang))
        text = _short(title.get(_other(lang))) if other else ""
        return Hit(
            match.rank, other, doc.order, "topic", doc.key, label, text, partial(app.open_topic, doc.key)
        )
    if doc.kind == "demo":
        titles = doc.fields[1][1]
        label = titles.get(lang) or titles.get("en", "")
        text = titles.get(_other(lang), "") if other else ""
        return Hit(
            match.rank, other, doc.order, "demo", doc.key, label, text, partial(app.open_demo, doc.key)
        )
    terms, definitions = doc.fields[1][1], doc.fields[2][1]
    label = f"{terms.get(lang, '')} · {terms.get(_other(lang), '')}"
    text = _short(definitions.get(lang, "")) if match.rank == EXPLANATION else ""
    jump = partial(_open_glossary, app, terms.get("en", doc.key))
    return Hit(match.rank, other, doc.order, "term", doc.key, label, text, jump)


def _open_glossary(app: Any, query: str) -> None:
    from .glossary import GlossaryScreen

    app.push_screen(GlossaryScreen(query))


def _other(lang: str) -> str:
    return "en" if lang == "zh" else "zh"


def search(app: Any, query: str) -> list[tuple[str, str, str, Callable[[], None]]]:
    """`rank` as (kind, key, label, jump) tuples."""
    return [(h.kind, h.key, h.label, h.jump) for h in rank(app, query)]


class SearchScreen(ModalScreen["Callable[[], None] | None"]):
    """Search box with live results. Dismisses with the chosen jump (the caller runs it)."""

    HELP_SECTION = HelpSection("key.search", 190)

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
        bind("escape", "close", "search.close", "search.key_close", show=False),
        bind("down", "move(1)", "search.down", "search.key_down", show=False),
        bind("up", "move(-1)", "search.up", "search.key_up", show=False),
    ]

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.initial_query = query
        self._jumps: dict[str, Callable[[], None]] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box"):
            yield Input(
                self.initial_query,
                placeholder=tr("search.placeholder", posenc_app(self).language),
                id="search-input",
            )
            yield OptionList(id="search-results")
            yield Static("", id="search-count", markup=False)

    class IndexReady(Message):
        """The search index of the loaded bank is built (posted by the index worker)."""

    def on_mount(self) -> None:
        field = self.query_one("#search-input", Input)
        field.cursor_blink = posenc_app(self).cursor_blink
        field.focus()
        bankset = posenc_app(self).bank_view
        if (bankset is not None and not question_index_ready(bankset)) or not _static_ready():
            # math in every text is converted, and the glossary read, off the UI thread
            self._build_index(bankset)
        self._update(field.value)
        self.watch(self.app, "language", self._language_changed, init=False)

    @work(thread=True, name="search-index", group="search-index", exclusive=True, exit_on_error=False)
    def _build_index(self, bankset: Any) -> None:
        _demo_documents()
        _term_documents()
        if bankset is not None:
            _index(bankset)
        self.post_message(self.IndexReady())

    def on_search_screen_index_ready(self, message: IndexReady) -> None:
        field = self.query_one("#search-input", Input)
        if field.value.strip():
            self._update(field.value)

    def _language_changed(self) -> None:
        field = self.query_one("#search-input", Input)
        field.placeholder = tr("search.placeholder", posenc_app(self).language)
        self._update(field.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._update(event.value)

    def _update(self, query: str) -> None:
        lang = posenc_app(self).language
        found = rank(self.app, query)
        options = self.query_one("#search-results", OptionList)
        options.clear_options()
        self._jumps = {}
        kinds = {kind: tr("search." + kind, lang) for kind in ("topic", "question", "demo", "term")}
        kind_width = max(cell_len(text) for text in kinds.values())
        indent = " " * (kind_width + 1)
        batch: list[Option] = []
        for n, hit in enumerate(found[:MAX_RESULTS]):
            option_id = f"r{n}"
            self._jumps[option_id] = hit.jump
            kind = kinds[hit.kind]
            prompt = Content.assemble(
                (kind + " " * (kind_width - cell_len(kind) + 1), "$text-secondary"),
                highlight(hit.key, query, "bold"),
                "  ",
                highlight(hit.label, query, "dim" if hit.excerpt else ""),
            )
            if hit.excerpt:
                prompt = Content.assemble(prompt, "\n", indent, highlight(hit.excerpt, query, "dim italic"))
            batch.append(Option(prompt, id=option_id))
        options.add_options(batch)  # one layout pass, not one per option (60 of them on one letter)
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
