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

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from rich.cells import cell_len
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..i18n import LANGUAGES, demo_title, tr
from ..richtext import highlight, plain

__all__ = ["Hit", "SearchScreen", "highlight", "rank", "search"]

MAX_RESULTS = 60

# ranks, best first
EXACT_ID, TITLE, PROMPT, ANSWER, EXPLANATION = range(5)


@dataclass(frozen=True)
class Hit:
    rank: int
    other_language: bool  # found only in the language the app is not showing
    order: int  # bank order, for ties
    kind: str  # "topic" | "question" | "demo" | "term"
    key: str
    label: str  # in the app language
    excerpt: str  # the matched text when it is not in the label ("" otherwise)
    jump: Callable[[], None]


def _short(text: str, limit: int = 160) -> str:
    return _cut(plain(text), limit)


def _cut(flat: str, limit: int = 160) -> str:
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _texts(text: Any) -> dict[str, str]:
    """{lang: plain text} for a bank `Text` (the languages it has)."""
    if text is None:
        return {}
    return {lang: plain(value) for lang in LANGUAGES if (value := getattr(text, lang, None))}


class _QuestionIndex:
    """Each question's searchable fields as shown (plain), built once per loaded bank."""

    def __init__(self, bankset: Any) -> None:
        self.entries: list[tuple[Any, list[tuple[int, dict[str, str]]]]] = []
        for question in bankset.ordered_questions():
            fields: list[tuple[int, dict[str, str]]] = [(PROMPT, _texts(question.prompt))]
            answers = [getattr(question, "answer", None)]
            answers += [getattr(c, "text", None) for c in getattr(question, "choices", None) or []]
            for answer in answers:
                if answer is not None:
                    fields.append((ANSWER, _texts(answer)))
            fields.append((EXPLANATION, _texts(question.explanation)))
            self.entries.append((question, fields))


_INDEX: dict[int, tuple[Any, _QuestionIndex]] = {}


def _adopt_preview_index(bankset: Any) -> None:
    """The full bank read back from the same verified cache as the startup preview holds the same texts:
    keep the preview's index rather than build it again."""
    from quizbank.bank_preview import BankPreview

    for held, index in list(_INDEX.values()):
        if isinstance(held, BankPreview) and getattr(bankset, "from_cache", False):
            if [q.id for q, _ in index.entries] == [q.id for q in bankset.ordered_questions()]:
                _INDEX.clear()
                _INDEX[id(bankset)] = (bankset, index)


def _index_ready(bankset: Any) -> bool:
    _adopt_preview_index(bankset)
    cached = _INDEX.get(id(bankset))
    return cached is not None and cached[0] is bankset


def _index(bankset: Any) -> _QuestionIndex:
    _adopt_preview_index(bankset)
    cached = _INDEX.get(id(bankset))
    if cached is None or cached[0] is not bankset:
        _INDEX.clear()  # one bank at a time: a reload replaces it
        cached = (bankset, _QuestionIndex(bankset))
        _INDEX[id(bankset)] = cached
    return cached[1]


def _excerpt(text: str, pattern: re.Pattern[str], width: int = 90) -> str:
    """About `width` characters of `text` around the first match of `pattern`."""
    m = pattern.search(text)
    if m is None:
        return ""
    start = max(0, m.start() - width // 3)
    end = min(len(text), start + width)
    start = max(0, min(start, end - width))
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


def rank(app: Any, query: str) -> list[Hit]:
    """Every topic, question and demo that matches `query`, best first (everything for "")."""
    lang = app.language
    needle = query.strip()
    pattern = re.compile(re.escape(needle), re.IGNORECASE) if needle else None
    hits: list[Hit] = []

    def found(texts: dict[str, str]) -> tuple[bool, bool]:
        """(in the app language, in the other language only)."""
        if pattern is None:
            return True, False
        here = bool(pattern.search(texts.get(lang, "")))
        elsewhere = any(pattern.search(t) for other, t in texts.items() if other != lang)
        return here, elsewhere and not here

    bankset = app.bank_view  # the full bank, or its preview during the first second
    if bankset is not None:
        for order, topic in enumerate(bankset.topics):
            here, other = found(_texts(topic.title))
            if pattern is not None and pattern.search(topic.id):
                here, other = True, False
            if here or other:
                label = _short(topic.title.get(lang))
                excerpt = _short(topic.title.get(_other(lang))) if other else ""
                jump = partial(app.open_topic, topic.id)
                hits.append(Hit(TITLE, other, order, "topic", topic.id, label, excerpt, jump))
        # an empty query lists topics and demos only: questions need the index (built off the UI thread)
        entries = _index(bankset).entries if pattern is not None else []
        for order, (question, fields) in enumerate(entries):
            prompts = fields[0][1]  # the prompt as shown, per language (the index has it converted)
            label = _cut(prompts.get(lang) or next(iter(prompts.values()), ""))
            jump = partial(app.try_question, question.id)  # "try it"; `o` there reads it in Browse
            if question.id.casefold() == needle.casefold():
                hits.append(Hit(EXACT_ID, False, order, "question", question.id, label, "", jump))
                continue
            if pattern.search(question.id):
                hits.append(Hit(TITLE, False, order, "question", question.id, label, "", jump))
                continue
            best: Hit | None = None
            for field_rank, texts in fields:
                here, other = found(texts)
                if not (here or other):
                    continue
                text = texts.get(lang, "") if here else next(t for t in texts.values() if pattern.search(t))
                excerpt = "" if (field_rank == PROMPT and here) else _excerpt(text, pattern)
                hit = Hit(field_rank, other, order, "question", question.id, label, excerpt, jump)
                if best is None or (hit.rank, hit.other_language) < (best.rank, best.other_language):
                    best = hit
                if here:
                    break  # fields come best first: a match in the app language cannot be beaten
            if best is not None:
                hits.append(best)
    try:
        from posenc_ref.demos import list_demos

        demos = list_demos()
    except Exception:
        demos = []
    for order, demo in enumerate(demos):
        titles = {"en": demo.title, "zh": getattr(demo, "title_zh", "") or demo.title}
        here, other = found(titles)
        if pattern is not None and pattern.search(demo.name):
            here, other = True, False
        if here or other:
            excerpt = titles[_other(lang)] if other else ""
            jump = partial(app.open_demo, demo.name)
            hits.append(Hit(TITLE, other, order, "demo", demo.name, demo_title(demo, lang), excerpt, jump))
    hits.extend(_glossary_hits(app, pattern, found))
    kind_order = {"question": 0, "topic": 1, "demo": 2, "term": 3}
    hits.sort(key=lambda h: (h.rank, h.other_language, kind_order[h.kind], h.order))
    return hits


def _glossary_hits(
    app: Any, pattern: re.Pattern[str] | None, found: Callable[..., tuple[bool, bool]]
) -> list[Hit]:
    """Glossary terms: a match in a term (or its id) ranks like a title, one only in a definition like an
    explanation; the jump opens the Glossary filtered to the term."""
    try:
        from quizbank.glossary import load_glossary

        terms = load_glossary()
    except Exception:
        return []
    lang, hits = app.language, []
    for order, term in enumerate(terms):
        field_rank = TITLE
        here, other = found({"en": term.en, "zh": term.zh})
        if pattern is not None and pattern.search(term.id):
            here, other = True, False
        if not (here or other):
            field_rank = EXPLANATION
            here, other = found({"en": term.definition_en, "zh": term.definition_zh})
        if here or other:
            label = f"{term.term(lang)} · {term.term(_other(lang))}"
            excerpt = _short(term.definition(lang)) if field_rank == EXPLANATION else ""
            jump = partial(_open_glossary, app, term.en)
            hits.append(Hit(field_rank, other, order, "term", term.id, label, excerpt, jump))
    return hits


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

    class IndexReady(Message):
        """The search index of the loaded bank is built (posted by the index worker)."""

    def on_mount(self) -> None:
        field = self.query_one("#search-input", Input)
        field.cursor_blink = getattr(self.app, "cursor_blink", True)
        field.focus()
        bankset = self.app.bank_view
        if bankset is not None and not _index_ready(bankset):
            self._build_index(bankset)  # math in every text is converted off the UI thread
        self._update(field.value)
        self.watch(self.app, "language", self._language_changed, init=False)

    @work(thread=True, name="search-index", group="search-index", exclusive=True, exit_on_error=False)
    def _build_index(self, bankset: Any) -> None:
        _index(bankset)
        self.post_message(self.IndexReady())

    def on_search_screen_index_ready(self, message: IndexReady) -> None:
        field = self.query_one("#search-input", Input)
        if field.value.strip():
            self._update(field.value)

    def _language_changed(self) -> None:
        field = self.query_one("#search-input", Input)
        field.placeholder = tr("search.placeholder", self.app.language)
        self._update(field.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._update(event.value)

    def _update(self, query: str) -> None:
        lang = self.app.language
        found = rank(self.app, query)
        options = self.query_one("#search-results", OptionList)
        options.clear_options()
        self._jumps = {}
        kinds = {kind: tr("search." + kind, lang) for kind in ("topic", "question", "demo", "term")}
        kind_width = max(cell_len(text) for text in kinds.values())
        indent = " " * (kind_width + 1)
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
            options.add_option(Option(prompt, id=option_id))
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
