"""Pre-tick the key points of an open question whose terms appear in a typed answer, in English and Chinese.

A key point counts as covered when, in either language:

* English: enough of its content words appear among the answer's words: half of a short point's (up to
  four words), 40% of a longer one's, at least one. Stop words are dropped; a light suffix stemmer, British
  spellings (`initialise`, `neighbour`) and a few groups of plain synonyms (`adjacent` for `neighbouring`,
  `offset` for `distance`, `update` for `gradient`: SYNONYMS) let a paraphrase count. Words are runs of letters and digits after NFKC and case folding, so
  `\\theta` gives `theta` and `q_m` gives `q` and `m`; one-letter words count only inside math.
* Chinese: at least 30% of its CJK character pairs (bigrams; a lone character counts as itself) appear in
  the answer's CJK text; pairs holding a function character (的, 一, 在, 是, ...) carry no meaning and are
  dropped.
* Or any of the point's own `match` terms (bank field, see docs/bank-format.md) appears: an English term
  matches when all its words appear, a Chinese term when it is a substring of the answer.

The candidate can change every tick; this only saves typing. Pure functions, no textual.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["answer_terms", "covered", "match_key_points", "point_terms"]

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(r"[^\W_]+")
_MATH = re.compile(r"\$\$?(.+?)\$\$?", re.S)
ENGLISH_SHARE = 0.5  # of a short point's content words (SHORT_POINT words or fewer)
ENGLISH_SHARE_LONG = 0.4  # of a longer point's: a paraphrase rarely repeats most of a long sentence
SHORT_POINT = 4
CHINESE_SHARE = 0.3
# Particles, measure words and the like: a pair holding one says nothing about the content.
CHINESE_FUNCTION_CHARS = frozenset("的了是在和与及或把被将一个条种些这那其之也都就而且所以于为对")
STOP_WORDS = frozenset(
    """
    a an the of to in on at by for with from into onto over under and or but nor not no is are was were be been
    being it its this that these those there their them they he she we you your our as than then so such can
    could would should will shall may might must do does did done has have had having which what who whom whose
    when where why how all any each every both either neither some more most other only own same too very just
    also about above below between through during before after again further once here out up down off while
    if because until per via one two
    """.split()
)
# LaTeX commands that carry no meaning of their own
LATEX_WORDS = frozenset(
    "mathrm mathbf mathcal operatorname text top frac cdot left right quad sum prod lvert rvert".split()
)


def _normalize(text: str) -> str:
    """NFKC, case-folded, Greek letters spelled out as LaTeX names (`mθ` -> `m theta`, like `m\\theta`)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _GREEK_RE.sub(lambda m: f" {GREEK[m.group()]} ", folded)


# Plain words people use for the same idea, each group read as its first word (after stemming).
SYNONYMS = (
    ("neighbor", "adjacent", "nearby", "neighboring", "consecutive"),
    ("wide", "widen", "wider", "widening"),
    ("distance", "offset", "gap"),
    ("gradient", "grad", "update", "updated"),
    ("compute", "computation", "cost", "costly", "flops"),
    ("parameter", "param", "params", "weight"),
    ("extrapolate", "extrapolation", "generalize", "generalization"),
    ("rotate", "rotation", "rotary", "rotating"),
    ("position", "positional", "location", "pos"),
    ("dimension", "dim", "dims", "channel"),
    ("random", "randomly"),
    ("shrink", "decay", "decrease", "smaller"),
    ("grow", "increase", "larger", "bigger"),
)


def _british(word: str) -> str:
    """American spelling: `initialisation` -> `initialization`, `neighbour` -> `neighbor`."""
    word = re.sub(r"is(ation|ations|e|ed|es|ing)$", r"iz\1", word)
    return re.sub(r"our(s|ing|hood|ed)?$", r"or\1", word) if len(word) > 5 else word


def _stem(word: str) -> str:
    """`_stem_once`, then the synonym group's first word (stemmed)."""
    stem = _stem_once(word)
    return _SYNONYM_OF.get(stem, stem)


def _stem_once(word: str) -> str:
    """A light suffix stemmer: `scores`, `score` -> `scor`; `summed` -> `sum`; `rotation`, `rotates` -> `rotat`."""
    word = _british(word)
    if len(word) > 7 and word.endswith("ional"):
        word = word[:-2]  # positional -> position
    for suffix in ("ations", "ation", "ions", "ion", "ings", "ing", "ies", "ied", "ed", "ly", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            if suffix == "s" and word.endswith("ss"):
                break
            word = word[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
            if suffix in ("ations", "ation"):
                word += "at"
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word


_SYNONYM_OF = {_stem_once(word): _stem_once(group[0]) for group in SYNONYMS for word in group}

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "η": "eta", "θ": "theta",
    "λ": "lambda", "μ": "mu", "π": "pi", "σ": "sigma", "τ": "tau", "φ": "phi", "ψ": "psi", "ω": "omega",
}  # fmt: skip
_GREEK_RE = re.compile("|".join(GREEK))


def _latin(text: str) -> str:
    return _CJK_RUN.sub(" ", text)


def _words(text: str, *, keep_single: bool = False) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(_latin(_normalize(text))):
        if word in STOP_WORDS or word in LATEX_WORDS:
            continue
        if len(word) == 1 and not keep_single:
            continue
        out.append(_stem(word))
    return out


def _content_words(text: str) -> set[str]:
    """Words of a key point: prose words, plus every word inside $math$ (single letters included)."""
    words = set(_words(_MATH.sub(" ", text)))
    for math in _MATH.findall(text):
        words.update(_words(math, keep_single=True))
    return words


def _bigrams(text: str) -> set[str]:
    grams: set[str] = set()
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            grams.add(run)
        grams.update(run[i : i + 2] for i in range(len(run) - 1))
    return {gram for gram in grams if not CHINESE_FUNCTION_CHARS.intersection(gram)} or grams


def answer_terms(answer: str) -> tuple[set[str], str]:
    """(stemmed words, including single letters; the CJK text) of a typed answer."""
    normalized = _normalize(answer)
    return set(_words(normalized, keep_single=True)), "".join(_CJK_RUN.findall(normalized))


def point_terms(point: Any) -> tuple[set[str], set[str], list[str]]:
    """(English content words, Chinese bigrams, extra match terms) of a key point (a schema `Text`, with an
    optional `match` list)."""
    english = _content_words(getattr(point, "en", None) or "")
    chinese = _bigrams(_normalize(getattr(point, "zh", None) or ""))
    extra = [term for term in (getattr(point, "match", None) or []) if term.strip()]
    return english, chinese, extra


def _term_matches(term: str, words: set[str], cjk: str) -> bool:
    normalized = _normalize(term)
    cjk_part = "".join(_CJK_RUN.findall(normalized))
    if cjk_part and cjk_part not in cjk:
        return False
    latin = _words(normalized, keep_single=True)
    return bool(cjk_part or latin) and all(word in words for word in latin)


def covered(point: Any, answer: str) -> bool:
    """Whether `answer` covers the key point (see the module docstring)."""
    words, cjk = answer_terms(answer)
    if not words and not cjk:
        return False
    english, chinese, extra = point_terms(point)
    if any(_term_matches(term, words, cjk) for term in extra):
        return True
    share = ENGLISH_SHARE if len(english) <= SHORT_POINT else ENGLISH_SHARE_LONG
    if english and len(english & words) >= max(1, share * len(english)):
        return True
    if chinese:
        found = sum(1 for gram in chinese if gram in cjk)
        if found >= max(1, CHINESE_SHARE * len(chinese)):
            return True
    return False


def match_key_points(points: Sequence[Any] | Iterable[Any], answer: str) -> list[bool]:
    """One pre-tick per key point, in order."""
    return [covered(point, answer) for point in points]
