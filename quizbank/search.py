"""Search like a reference: every word of the query, in any order, as a word prefix (anywhere inside
Chinese text), over ids, titles, prompts, answers and explanations in both languages, ranked.

Pure logic, no Textual: the app's Search screen builds `Document`s for its topics, demos and glossary
terms, and `question_index` builds them for a loaded bank (a `quizbank.loader.BankSet` or the startup
`quizbank.bank_preview.BankPreview`); `rank` orders the matches:

1. the query is a question's id, a demo's name, a topic's or a term's id exactly (`EXACT_ID`),
2. every word is found in an id or a title (`TITLE`),
3. ... at worst in a prompt (`PROMPT`), 4. an answer or a choice (`ANSWER`), 5. an explanation
   (`EXPLANATION`);

then a match in the app's language before one that needs the other language, the whole query as one
phrase before scattered words, fewer words pushed down to a lower field, kind, and source order.

A word matches where it starts a word of the text (`rot` finds "rotation" and "RoPE's rotary" does
not find `ope`); a word with `-`, `_` or `.` inside (`kv-cache`, `rope_theta`) matches where its first
part starts a word and its parts follow as written; a word with Chinese, Japanese or Korean characters matches anywhere, as Chinese has
no spaces. Case is folded. The whole bank is searched in a few milliseconds (bench/search.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .generated.draw import fill

__all__ = [
    "ANSWER",
    "EXACT_ID",
    "EXPLANATION",
    "PROMPT",
    "TITLE",
    "Document",
    "Match",
    "excerpt",
    "match_spans",
    "question_documents",
    "question_index",
    "rank",
    "words",
]

# ranks, best first
EXACT_ID, TITLE, PROMPT, ANSWER, EXPLANATION = range(5)
NEUTRAL = ""  # a field in no language (an id): it matches whatever the app shows

KIND_ORDER = {"question": 0, "topic": 1, "demo": 2, "term": 3}


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x2E80 <= code <= 0x9FFF  # radicals, kana, CJK symbols and unified ideographs
        or 0xAC00 <= code <= 0xD7AF  # hangul
        or 0xF900 <= code <= 0xFAFF
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0x20000 <= code <= 0x3FFFF
    )


def _is_word_char(char: str) -> bool:
    return char.isalnum() and not _is_cjk(char)


def words(query: str) -> list[str]:
    """The query's words, case-folded, in order, without repeats."""
    out: list[str] = []
    for word in query.casefold().split():
        if word not in out:
            out.append(word)
    return out


def _anywhere(word: str) -> bool:
    """A word that may match inside a word of the text: one that does not start with a letter or digit
    (`.yarn`, `-8`) or that holds Chinese, Japanese or Korean."""
    return not _is_word_char(word[0]) or any(_is_cjk(c) for c in word)


# a letter or digit that is not Chinese, Japanese or Korean (those have no word boundaries)
_CJK_RANGES = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003ffff"
_WORD_CHAR = f"[^\\W_{_CJK_RANGES}]"


MARK = "\x01"  # never in bank text (control characters are refused)
_WORD_START = re.compile(f"(?<!{_WORD_CHAR})(?={_WORD_CHAR})")


@lru_cache(maxsize=256)
def _marked(word: str) -> str:
    """`word` (case-folded) marked like a text: MARK before each word start, so that a word with `-`, `_`
    or `.` inside (`kv-cache`, `rope_theta`, `rotate_half`) matches a text marked at both its parts."""
    return _WORD_START.sub(MARK, word)


@lru_cache(maxsize=256)
def _pattern(word: str) -> re.Pattern[str]:
    """Where `word` (case-folded) matches in case-folded text: anywhere, or where a word starts."""
    if _anywhere(word):
        return re.compile(re.escape(word))
    return re.compile(f"(?<!{_WORD_CHAR}){re.escape(word)}")


def _find(text: str, word: str, start: int = 0) -> int:
    """The first position >= start where `word` matches in `text` (both case-folded), or -1."""
    m = _pattern(word).search(text, start)
    return -1 if m is None else m.start()


def match_spans(text: str, query: str) -> list[tuple[int, int]]:
    """(start, end) of every match of the query's words in `text`, sorted and merged, for highlighting."""
    folded = text.casefold()
    if len(folded) != len(text):  # a character that folds to several (ß): positions would shift
        folded = text.lower()
    spans: list[tuple[int, int]] = []
    for word in words(query):
        pos = _find(folded, word)
        while pos >= 0:
            spans.append((pos, pos + len(word)))
            pos = _find(folded, word, pos + len(word))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def excerpt(text: str, query: str, width: int = 90) -> str:
    """About `width` characters of `text` around its first match of the query."""
    spans = match_spans(text, query)
    if not spans:
        return ""
    first = spans[0][0]
    start = max(0, first - width // 3)
    end = min(len(text), start + width)
    start = max(0, min(start, end - width))
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


@dataclass(frozen=True)
class Document:
    """Something search can find: its fields as (rank, {language: text}) pairs, best rank first.
    Texts are as shown (math converted); the language NEUTRAL ("") is an id."""

    kind: str  # "question" | "topic" | "demo" | "term"
    key: str
    order: int  # source order, for ties
    fields: tuple[tuple[int, dict[str, str]], ...]
    # (rank, language, case-folded text, the same with MARK before each word start), best rank first
    folded: tuple[tuple[int, str, str, str], ...] = field(init=False, repr=False, compare=False)
    blob: str = field(init=False, repr=False, compare=False)  # every folded text, for a quick "no"

    def __post_init__(self) -> None:
        folded = tuple(
            (r, lang, text.casefold(), _WORD_START.sub(MARK, text.casefold()))
            for r, texts in self.fields
            for lang, text in texts.items()
        )
        object.__setattr__(self, "folded", folded)
        object.__setattr__(self, "blob", "\0".join(entry[2] for entry in folded))

    def text(self, rank: int, lang: str) -> str:
        """The first field of `rank` in `lang` (or the other language), as shown."""
        for field_rank, texts in self.fields:
            if field_rank == rank and texts:
                return texts.get(lang) or next(iter(texts.values()))
        return ""


@dataclass(frozen=True)
class Match:
    """One document that matches, with how well."""

    rank: int
    other_language: bool  # found only with the language the app is not showing
    phrase: bool  # the whole query found as one run of text
    spread: int  # the sum of each word's best rank (lower: more words found in better fields)
    document: Document
    field_rank: int  # where the excerpt comes from: the worst field a word needed
    field_lang: str

    @property
    def sort_key(self) -> tuple[int, bool, bool, int, int, int]:
        doc = self.document
        return (self.rank, self.other_language, not self.phrase, self.spread, KIND_ORDER[doc.kind], doc.order)


def _bests(doc: Document, word: str, lang: str) -> tuple[tuple[int, str] | None, tuple[int, str] | None]:
    """(rank, language) of the best field in which `word` matches in the app's language (or an id), and in
    any language; None where it does not."""
    anywhere = _anywhere(word)
    needle = word if anywhere else _marked(word)
    here: tuple[int, str] | None = None
    anywhere_best: tuple[int, str] | None = None
    for field_rank, field_lang, text, marked in doc.folded:  # fields come best first
        if needle in (text if anywhere else marked):
            if anywhere_best is None:
                anywhere_best = (field_rank, field_lang)
            if field_lang in (NEUTRAL, lang):
                here = (field_rank, field_lang)
                break
    return here, anywhere_best


def _match(doc: Document, query: str, found: list[str], lang: str) -> Match | None:
    blob = doc.blob
    if any(w not in blob for w in found):  # most documents are rejected here
        return None
    key = query.strip().casefold()
    if doc.key.casefold() == key:  # a question's id, a demo's name, a topic's or a term's id
        return Match(EXACT_ID, False, True, 0, doc, EXACT_ID, NEUTRAL)
    pairs = [_bests(doc, w, lang) for w in found]
    if all(here is not None for here, _ in pairs):
        other, bests = False, [here for here, _ in pairs]
    elif all(anywhere is not None for _, anywhere in pairs):
        other, bests = True, [anywhere for _, anywhere in pairs]
    else:
        return None
    chosen = [b for b in bests if b is not None]
    worst_rank, worst_lang = max(chosen)
    if other and worst_lang in (NEUTRAL, lang):  # the other language is needed somewhere: excerpt from it
        worst_lang = next(b_lang for _r, b_lang in chosen if b_lang not in (NEUTRAL, lang))
    phrase = len(found) == 1 or any(
        key in text for _r, t_lang, text, _m in doc.folded if other or t_lang in (NEUTRAL, lang)
    )
    return Match(worst_rank, other, phrase, sum(r for r, _ in chosen), doc, worst_rank, worst_lang)


def rank(documents: Iterable[Document], query: str, lang: str) -> list[Match]:
    """Every document in which each word of `query` matches, best first; nothing for an empty query."""
    found = words(query)
    if not found:
        return []
    matches = [m for doc in documents if (m := _match(doc, query, found, lang)) is not None]
    matches.sort(key=lambda m: m.sort_key)
    return matches


# ----------------------------------------------------------------------------- questions of a bank


def _texts(text: Any, render: Callable[[str], str], langs: tuple[str, ...]) -> dict[str, str]:
    if text is None:
        return {}
    return {lang: render(value) for lang in langs if (value := getattr(text, lang, None))}


GAP = "…"  # a generated question's drawn value, as a search result shows its template


def _with_gaps(render: Callable[[str], str], names: tuple[str, ...]) -> Callable[[str], str]:
    """`render` for a generated question's texts: each declared `{name}` reads as GAP (left as written,
    a template shows `d = {d}` as "d = d" and `base {base}` as "base {base}")."""
    if not names:
        return render
    gaps = dict.fromkeys(names, GAP)
    return lambda text: render(fill(text, gaps))


def question_documents(
    bankset: Any, render: Callable[[str], str] = str, langs: tuple[str, ...] = ("en", "zh")
) -> list[Document]:
    """A document per question of `bankset` (a BankSet or a BankPreview), in bank order: the id, the
    prompt, the answer and every choice, the explanation; `render` turns bank text into text as shown."""
    documents = []
    for order, question in enumerate(bankset.ordered_questions()):
        shown = _with_gaps(render, tuple(getattr(question, "vary", None) or ()))
        fields: list[tuple[int, dict[str, str]]] = [(TITLE, {NEUTRAL: question.id})]
        fields.append((PROMPT, _texts(question.prompt, shown, langs)))
        answers = [getattr(question, "answer", None)]
        answers += [getattr(c, "text", None) for c in getattr(question, "choices", None) or ()]
        fields += [(ANSWER, _texts(a, shown, langs)) for a in answers if a is not None]
        fields.append((EXPLANATION, _texts(question.explanation, shown, langs)))
        documents.append(Document("question", question.id, order, tuple(f for f in fields if f[1])))
    return documents


_INDEX: dict[str, tuple[Any, list[Document]]] = {}


def _adopt_preview_index(bankset: Any) -> None:
    """The full bank read back from the same verified cache as the startup preview holds the same texts:
    keep the preview's documents rather than build them again."""
    from .bank_preview import BankPreview

    held = _INDEX.get("bank")
    if held is None or held[0] is bankset or not isinstance(held[0], BankPreview):
        return
    if getattr(bankset, "from_cache", False) and [d.key for d in held[1]] == [
        q.id for q in bankset.ordered_questions()
    ]:
        _INDEX["bank"] = (bankset, held[1])


def question_index_ready(bankset: Any) -> bool:
    """Whether `question_index(bankset)` returns at once (the documents are built)."""
    _adopt_preview_index(bankset)
    held = _INDEX.get("bank")
    return held is not None and held[0] is bankset


def question_index(bankset: Any, render: Callable[[str], str] = str) -> list[Document]:
    """The question documents of `bankset`, built once per loaded bank (one bank at a time: a reload
    replaces it). Safe to call from a worker thread."""
    _adopt_preview_index(bankset)
    held = _INDEX.get("bank")
    if held is None or held[0] is not bankset:
        held = (bankset, question_documents(bankset, render))
        _INDEX["bank"] = held
    return held[1]
