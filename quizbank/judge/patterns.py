"""The pattern language of `accept:` and misconception `match:` (docs/bank-format.md, "Judging open answers").

A pattern states one claim. It is written as words, read like a search query, and holds in one
sentence of the answer:

    rotate q k                     every term in one sentence, any order
    "real part" conj               a quoted phrase: these words next to each other, in this order
    rotat* | spin                  `|` alternatives; `word*` any word starting so
    high ~ extrapolate             `~` the two terms in one clause (which frequencies get which verb)
    project .. rotate              `..` the left term before the right one
    v not rotate                   `not` the next term must be negated in the answer ("v is not rotated")
    =base                          `=` this word only, not its synonyms
    投影 .. 旋转                    Chinese terms match as written (and through their synonyms)
    "10000^(-2i/d)"                formulas and numbers in one normal form (`1e4**(-2*i/d)` matches)

A one-word term also matches its synonyms and translations (`lexicon.yaml`, the glossary): `rotate`
matches `rotation` and 旋转. Clauses end at commas, brackets, `and`, `but`, `while`, ...; a negation
(`not`, `no`, `never`, `without`, `rather than`, 不, 没有, 而不是, ...) reaches to the end of its clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import canonical, lexicon
from .text import Sentence, is_cjk

__all__ = ["Pattern", "PatternError", "Term", "compile_pattern", "parse_pattern"]

MAX_PATTERN = 300
_LEX = re.compile(r'\s*(?:(?P<quote>"[^"]*"?)|(?P<op>\.\.|~|\|)|(?P<word>[^\s"|~]+))')


class PatternError(ValueError):
    """A pattern that cannot be read; `col` is the 1-based column in the pattern."""

    def __init__(self, message: str, col: int = 1) -> None:
        super().__init__(message)
        self.col = col


@dataclass(frozen=True)
class Term:
    """One item: alternatives, each a canonical key (a stem, a phrase of stems, Chinese text) or a prefix."""

    keys: frozenset[str]  # canonical keys (synonyms included unless exact)
    prefixes: tuple[str, ...]  # `rot*`
    negated: bool  # `not` before it
    source: str  # as written

    @property
    def one_word(self) -> bool:
        return not self.prefixes and all(" " not in k and not is_cjk(k) for k in self.keys)


@dataclass(frozen=True)
class Pattern:
    source: str
    terms: tuple[Term, ...]
    links: tuple[str, ...]  # between term i and i + 1: " " (same sentence), "~" (same clause), ".." (order)


def _words_of(raw: str, col: int, expand: bool = True, quoted: bool = False) -> tuple[str, bool]:
    exact = raw.startswith("=") and not quoted  # inside quotes `=` is text: "= positions // factor"
    if exact:
        raw = raw[1:]
    # syntax only (the schema): no stemmer, no segmenter; the words are read when the pattern is used
    key = canonical(raw) if expand else (raw if re.search(r"[^\W_]", raw) else "")
    if not key:
        raise PatternError(f"term {raw!r} has no word, number or Chinese character in it", col)
    return key, exact


def parse_pattern(source: str) -> Pattern:
    """Check a pattern's syntax without the lexicon (raises PatternError with the column of the problem)."""
    return _compile(source, expand=False)


@lru_cache(maxsize=8192)
def compile_pattern(source: str) -> Pattern:
    """A pattern ready to match: each one-word or quoted term with its synonyms (raises PatternError)."""
    return _compile(source, expand=True)


def _compile(source: str, *, expand: bool) -> Pattern:
    if not source.strip():
        raise PatternError("empty pattern")
    if len(source) > MAX_PATTERN:
        raise PatternError(f"pattern longer than {MAX_PATTERN} characters", MAX_PATTERN)
    pos = 0
    tokens: list[tuple[str, str, int]] = []
    while pos < len(source):
        m = _LEX.match(source, pos)
        if m is None or m.end() == pos:
            if source[pos:].strip() == "":
                break
            raise PatternError(f"cannot read {source[pos : pos + 10]!r}", pos + 1)
        kind = m.lastgroup or ""
        tokens.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    terms: list[Term] = []
    links: list[str] = []
    alts: list[tuple[str, int]] = []
    state = {"negated": False, "link": " "}
    expect_term = True  # at the start, after `|`, an operator or `not`

    def close() -> None:
        if not alts:
            return
        keys: set[str] = set()
        prefixes: list[str] = []
        for raw, col in alts:
            if raw.startswith('"'):
                if not raw.endswith('"') or len(raw) < 2:
                    raise PatternError('a quoted phrase needs its closing "', col)
                key, exact = _words_of(raw[1:-1], col, expand, quoted=True)
            elif raw.endswith("*") and not is_cjk(raw):
                if len(raw) < 4:
                    raise PatternError(f"prefix {raw!r} is too short (3 letters at least)", col)
                prefixes.append(raw[:-1].casefold())
                continue
            else:
                key, exact = _words_of(raw, col, expand)
            if exact or not expand:
                keys.add(key)
            else:  # a lone Chinese character (值, 对) is too common to stand for a synonym
                keys |= {k for k in lexicon().expand(key) if k == key or not (is_cjk(k) and len(k) == 1)}
        if terms:
            links.append(str(state["link"]))
        terms.append(
            Term(frozenset(keys), tuple(prefixes), bool(state["negated"]), " | ".join(a for a, _ in alts))
        )
        alts.clear()
        state["negated"], state["link"] = False, " "

    for kind, text, col in tokens:
        if kind == "op":
            if expect_term:
                raise PatternError(f"`{text}` needs a term on each side", col)
            if text != "|":
                close()
                state["link"] = text
            expect_term = True
            continue
        if kind == "word" and text.casefold() == "not":
            if state["negated"] and not alts:
                raise PatternError("`not not` says nothing", col)
            close()
            state["negated"] = True
            expect_term = True
            continue
        if not expect_term:
            close()  # a new term after a complete one: same sentence
        alts.append((text, col))
        expect_term = False
    if expect_term:
        raise PatternError("the pattern ends with an operator or `not`", len(source))
    close()
    return Pattern(source, tuple(terms), tuple(links))


# -- matching --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    first: int  # token indices
    last: int
    negated: bool
    clause: int
    cue: int = -1  # the negation cue that negates it
    phrase: int = 0
    start: int = 0  # offsets in the sentence's canonical string (order inside one Chinese word too)
    end: int = 0


def _key_hits(key: str, sentence: Sentence) -> list[Hit]:
    tokens = sentence.tokens
    if not tokens:
        return []
    out: list[Hit] = []
    if " " not in key and not is_cjk(key):
        for i, token in enumerate(tokens):
            if token.stem == key:
                out.append(
                    Hit(i, i, token.negated, token.clause, token.cue, token.phrase, token.start, token.end)
                )
        return out
    canon = sentence.canon
    start = canon.find(key)
    while start >= 0:
        end = start + len(key)
        before_ok = start == 0 or canon[start - 1] == " " or is_cjk(key[0])
        after_ok = end == len(canon) or canon[end] == " " or is_cjk(key[-1])
        if before_ok and after_ok:
            first = sentence.token_at(start)
            last = sentence.token_at(end - 1)
            token = tokens[first]
            out.append(Hit(first, last, token.negated, token.clause, token.cue, token.phrase, start, end))
        start = canon.find(key, start + 1)
    return out


def term_hits(term: Term, sentence: Sentence) -> list[Hit]:
    out: list[Hit] = []
    for key in term.keys:
        out.extend(_key_hits(key, sentence))
    for prefix in term.prefixes:
        for i, token in enumerate(sentence.tokens):
            if token.text.startswith(prefix):
                out.append(
                    Hit(i, i, token.negated, token.clause, token.cue, token.phrase, token.start, token.end)
                )
    return out


def _linked(link: str, a: Hit, b: Hit) -> bool:
    if link == "~":
        return a.clause == b.clause
    if link == "..":
        return a.end <= b.start
    return True


def match(pattern: Pattern, sentence: Sentence) -> tuple[str, list[Hit]] | None:
    """("match", hits) when the pattern holds in the sentence; ("flipped", hits) when its terms are all
    there but the answer negates the claim; None otherwise.

    The tightest reading decides: if the terms all meet in one clause, that clause's polarity is the
    answer's claim ("只对 q 和 k 做旋转，V 不旋转" denies `rotate v`, although 旋转 and V both occur
    un-negated in the sentence); else in one phrase (up to a comma); else anywhere in the sentence.
    """
    options = [term_hits(term, sentence) for term in pattern.terms]
    if any(not hits for hits in options):
        return None
    for scope in ("clause", "phrase", None):
        found = _search(pattern, options, strict=True, scope=scope)
        if found is not None:
            return "match", found
        if scope is not None and _search(pattern, options, strict=False, scope=scope) is not None:
            return "flipped", _search(pattern, options, strict=False, scope=scope) or []
    return None


def _search(
    pattern: Pattern, options: list[list[Hit]], *, strict: bool, scope: str | None
) -> list[Hit] | None:
    chosen: list[Hit] = []
    budget = [5000]

    def go(i: int) -> bool:
        if i == len(options):
            if not strict:
                return True
            # a plain term may sit inside a negation only when that negation is the one a `not` term asks
            # for: "does not rotate V" holds `v not rotate`
            cues = {hit.cue for hit, term in zip(chosen, pattern.terms, strict=True) if term.negated}
            # a negation written inside a quoted phrase is the phrase's own ("never learned")
            cues |= {i for hit in chosen if hit.last > hit.first for i in range(hit.first, hit.last + 1)}
            return all(
                term.negated or not hit.negated or hit.cue in cues
                for hit, term in zip(chosen, pattern.terms, strict=True)
            )
        for hit in options[i]:
            budget[0] -= 1
            if budget[0] < 0:
                return False
            if strict and pattern.terms[i].negated and not hit.negated:
                continue
            if i and not _linked(pattern.links[i - 1], chosen[-1], hit):
                continue
            if i and scope is not None and getattr(hit, scope) != getattr(chosen[0], scope):
                continue
            chosen.append(hit)
            if go(i + 1):
                return True
            chosen.pop()
        return False

    return list(chosen) if go(0) else None
