"""An answer as the judge reads it: sentences, clauses, tokens with their stems and negation.

Every piece of text (a typed answer, a key point, a pattern's phrase) goes through the same steps, so that
what an author writes and what a candidate types meet in one form:

1. **Normalise** (`normalize`): NFKC and case folding; Greek letters and LaTeX commands spelled out
   (`θ`, `\\theta` -> `theta`); a conjugate in any notation (`conj(k)`, `k^*`, `k̄`, `\\bar{k}`,
   `\\overline{k}`) -> `conj k`; `**` -> `^`, braces -> parentheses, multiplication signs dropped
   (`1e4**(-2*i/d)` and `10000^{-2i/d}` both read `10000 ^ ( - 2 i / d )`); numbers in one form
   (`1e4`, `10,000` -> `10000`; `32k` -> `32000`); `n't` -> ` not`.
2. **Split** into sentences (`.`, `!`, `?`, `;`, a new line, `。！？；`) and each sentence into clauses
   (commas, brackets, `but`, `while`, `whereas`, `and` before a verb is not known, so `and` also splits:
   role patterns (`~`) need their words in one clause).
3. **Tokenise**: English words stemmed with Snowball (`rotates`, `rotation` -> `rotat`), numbers, the
   operators `^ / ( ) + - =`, and Chinese segmented with jieba (loaded on first use: `warm()` loads it
   in the background).
4. **Negation**: a cue (`not`, `no`, `never`, `without`, `rather than`, `instead of`, 不, 没, 没有, 并非,
   不是, 而不是, 无需, ...) negates the tokens after it up to the end of its clause; a cue that ends its clause
   (`..., but v is not.`) negates the clause before it. `not only` is not a negation.

Pure Python (snowballstemmer, jieba); no Textual, no torch.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = [
    "Sentence",
    "Token",
    "analyse",
    "canonical_words",
    "is_cjk",
    "normalize",
    "stem",
    "warm",
]

CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{CJK}]")

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "η": "eta", "θ": "theta",
    "λ": "lambda", "μ": "mu", "π": "pi", "σ": "sigma", "τ": "tau", "φ": "phi", "ψ": "psi", "ω": "omega",
    "Δ": "delta", "Θ": "theta",
}  # fmt: skip
# LaTeX commands that carry no meaning of their own (dropped), and those spelled as a word
_LATEX_DROP = {"mathrm", "mathbf", "mathcal", "operatorname", "text", "left", "right", "quad", "qquad", "big",
               "bigl", "bigr", "displaystyle", "mathit", "boldsymbol", "cdot", "times", "cdots", "ldots", "dots",
               "langle", "rangle", "lvert", "rvert", "top"}  # fmt: skip
_LATEX_WORD = {"frac": "", "sqrt": "sqrt", "exp": "exp", "log": "log", "ln": "log", "sin": "sin", "cos": "cos",
               "sum": "sum", "prod": "prod", "approx": "approx", "le": "<=", "leq": "<=", "ge": ">=",
               "geq": ">=", "neq": "!=", "ne": "!=", "to": "->", "infty": "infinity"}  # fmt: skip

_CONTRACTIONS = (
    (re.compile(r"\bcan['’]t\b"), "can not"),
    (re.compile(r"\bwon['’]t\b"), "will not"),
    (re.compile(r"\bshan['’]t\b"), "shall not"),
    (re.compile(r"n['’]t\b"), " not"),
    (re.compile(r"\bcannot\b"), "can not"),
)
_CONJ = (
    re.compile(r"\\(?:bar|overline)\s*\{\s*([^{}]*)\}"),  # \bar{k}, \overline{k}
    re.compile(r"\\(?:bar|overline)\s+([a-z])\b"),  # \bar k
    re.compile(r"\b([a-z])(?:_[a-z0-9]+|_\{[^{}]*\})?\s*\^\s*(?:\{\s*\*\s*\}|\*)"),  # k^*, k_n^{*}
    re.compile(r"\b([a-z])\u0304"),  # k̄ (combining macron)
)
_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(e[+-]?\d+)|([km])\b(?!\s*[-+*/^=_)]))?"
)
_TOKEN = re.compile(rf"[a-z]+|\d+(?:\.\d+)?|[\^/()+\-=<>!]|[{CJK}]+|[,:\[\]，：、（）【】]")
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bcf)[.!?;](?=\s|$)|[。！？；\n]")
_CLAUSE_PUNCT = set(",:()[]，：、（）【】")
_CLAUSE_WORDS = {"but", "while", "whereas", "although", "though", "however", "so", "because", "since",
                 "which", "whereby", "yet", "then", "thus", "hence", "但", "但是", "而", "却", "所以", "因为", "因此",
                 "而是", "并且", "同时", "然后", "从而"}  # fmt: skip
_LIST_PUNCT = {",", "，", "、"}
# words that end a role pattern's clause but not a negation's scope ("does not rotate q and k")
_LIST_WORDS = {"and", "or", "和", "与", "及", "以及", "或"}
_NEG_CUES = {"not", "no", "never", "without", "neither", "nor", "nothing", "nobody",  # not `none`: Python's None
             "不", "没", "没有", "并非", "不是", "无需", "无须", "不会", "不能", "不用", "未", "无", "非", "别",
             "不再", "不必", "不需要", "毋需", "绝非", "从不", "从未", "不要", "并不", "并没有", "决不"}  # fmt: skip
_BACKWARD_CUES = {"not", "不", "没", "没有", "并非", "未"}  # ("those rows know nothing" negates no row)
_NEG_PAIRS = {("rather", "than"), ("instead", "of"), ("no", "longer"), ("fails", "to"), ("fail", "to")}
_NOT_NEGATION = {("not", "only"), ("not", "just"), ("no", "matter"), ("not", "merely")}
_NEG_WINDOW = 8

_stemmer_lock = threading.Lock()
_STEMMER: Any = None


def is_cjk(text: str) -> bool:
    return bool(_CJK_CHAR.search(text))


def _latex(text: str) -> str:
    def command(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in GREEK.values():
            return f" {name} "
        if name in _LATEX_DROP:
            return " "
        return f" {_LATEX_WORD.get(name, name)} "

    text = re.sub(r"\\(?:mathrm|operatorname|text)\s*\{\s*(re|im|real|imag)\s*\}", r" \1 ", text)
    text = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"((\1)/(\2))", text)
    return re.sub(r"\\([a-z]+)", command, text)


def _number(m: re.Match[str]) -> str:
    raw, exponent, suffix = m.group(1).replace(",", ""), m.group(2), m.group(3)
    try:
        value = float(raw)
        if exponent:
            value *= 10.0 ** int(exponent[1:])
        if suffix:
            value *= 1000.0 if suffix == "k" else 1e6
    except (ValueError, OverflowError):
        return m.group(0)
    if value.is_integer() and abs(value) < 1e16:
        return f" {int(value)} "
    return f" {value:g} "


@lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """The one form every text is read in (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("\u2212", "-").replace("\u2013", "-").replace("\u2014", " , ").replace("’", "'")
    text = text.replace("…", " ").replace("·", " ").replace("×", " ").replace("⋅", " ")
    text = text.replace("≥", ">=").replace("≤", "<=").replace("≠", "!=")
    for greek, name in GREEK.items():
        text = text.replace(greek.casefold(), f" {name} ")
    for pattern in _CONJ:
        text = pattern.sub(r" conj \1 ", text)
    text = re.sub(r"\bconj(?:ugate)?\s*\(\s*([a-z])\s*\)", r" conj \1 ", text)
    text = re.sub(r"\bconjugat\w*", "conj", text)
    text = _latex(text)
    text = text.replace("**", "^").replace("{", "(").replace("}", ")").replace("*", " ")
    text = text.replace("_", " ").replace("'", "'")
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    text = re.sub(r"(?<=[a-z]{2})-(?=[a-z]{2})", " ", text)  # position-free -> position free; m-n stays
    text = _NUMBER.sub(_number, text)
    return text


def stem(word: str) -> str:
    """The Snowball (Porter 2) stem of an English word; other tokens as they are."""
    global _STEMMER
    if not word.isalpha() or not word.isascii():
        return word
    return _stem_cached(word)


def _american(word: str) -> str:
    """`initialise` -> `initialize`, `neighbour` -> `neighbor`: one spelling before stemming."""
    word = re.sub(r"(?<=[a-z]{3})is(ation|ations|e|ed|es|ing|er|ers)$", r"iz\1", word)
    return re.sub(r"(?<=[a-z]{3})our(s|ing|hood|ed|ly)?$", r"or\1", word) if len(word) > 5 else word


@lru_cache(maxsize=65536)
def _stem_cached(word: str) -> str:
    global _STEMMER
    word = _american(word)
    if _STEMMER is None:
        with _stemmer_lock:
            if _STEMMER is None:
                import snowballstemmer

                _STEMMER = snowballstemmer.stemmer("english")
    stemmer = _STEMMER
    with _stemmer_lock:  # a Snowball stemmer object is not thread-safe
        return str(stemmer.stemWord(word))


# -- Chinese segmentation (jieba), loaded once, lazily ---------------------------------------------------

_JIEBA: Any = None
_JIEBA_LOCK = threading.Lock()
# words jieba's dictionary splits, which the bank needs whole (negation inside must not fire)
_ZH_WORDS = ("外推", "内插", "维度对", "不变", "不同", "不断", "不仅", "不管", "不过", "不少", "不足", "不妨",
             "不一定", "无论", "无关", "非线性", "相对位置", "绝对位置", "注意力", "键值", "长上下文",
             "旋转位置编码", "位置编码", "高频", "低频", "波长", "相位", "内积", "共轭", "实部", "偏置",
             "斜率", "几何级数", "等比数列", "插值", "频率", "底数", "上下文", "外推性", "多头")  # fmt: skip


def _jieba() -> Any:
    global _JIEBA
    if _JIEBA is None:
        with _JIEBA_LOCK:
            if _JIEBA is None:
                import logging

                import jieba

                jieba.setLogLevel(logging.WARNING)
                tokenizer = jieba.Tokenizer()
                # jieba caches its parsed dictionary (a marshal file) in the shared temporary folder by
                # default, where another local user could plant one: keep it in a folder of our own
                tokenizer.tmp_dir = _private_cache_dir()
                tokenizer.initialize()
                for word in _ZH_WORDS:
                    tokenizer.add_word(word, freq=200000)
                _JIEBA = tokenizer
    return _JIEBA


def _private_cache_dir() -> str:
    """<posenc cache folder>/jieba, created 0700 ($POSENC_CACHE_DIR moves it); a fresh private temporary
    folder when that cannot be made."""
    import os
    import tempfile

    from ..cachedir import cache_dir

    folder = cache_dir() / "jieba"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if folder.is_symlink() or (folder.stat().st_mode & 0o077) or folder.stat().st_uid != os.getuid():
            raise PermissionError(folder)
        return str(folder)
    except OSError:
        return tempfile.mkdtemp(prefix="posenc-jieba-")


def warm() -> None:
    """Load the stemmer and the Chinese segmenter now (call from a background worker)."""
    stem("rotation")
    _segment("预热")


@lru_cache(maxsize=8192)
def _segment(run: str) -> tuple[str, ...]:
    if len(run) == 1:
        return (run,)
    tokenizer = _jieba()
    with _JIEBA_LOCK:
        return tuple(word for word in tokenizer.cut(run, HMM=True) if word)


# -- analysed text ---------------------------------------------------------------------------------------


@dataclass
class Token:
    text: str  # as normalised (an English word, a number, an operator, or a Chinese word)
    stem: str  # Snowball stem for English words; the text otherwise
    start: int  # offset in the sentence's canonical string (`Sentence.canon`)
    end: int
    clause: int  # clause number within the sentence (role patterns: `~`)
    phrase: int = 0  # a negation's scope ends with its phrase (a clause, but `and`/`or` do not end it)
    negated: bool = False
    cue: int = -1  # the index of the negation cue whose scope holds this token

    @property
    def cjk(self) -> bool:
        return is_cjk(self.text)


@dataclass
class Sentence:
    start: int  # span in the original answer
    end: int
    tokens: list[Token] = field(default_factory=list)
    canon: str = ""  # tokens' stems joined by spaces (no space between Chinese words): substring search
    hedged: list[bool] = field(default_factory=list)  # per clause: a reported or hypothetical claim

    def token_at(self, offset: int) -> int:
        """The index of the token that holds `offset` of `canon` (or the next one)."""
        for i, token in enumerate(self.tokens):
            if token.end > offset:
                return i
        return len(self.tokens) - 1


# clauses that report a claim without making it: "a common mistake is to think ...", "if we rotated v ..."
_HEDGES = {"if", "mistake", "mistaken", "misconception", "myth", "wrong", "wrongly", "incorrect",
           "incorrectly", "suppos", "imagin", "misread", "mistak",
           "如果", "假如", "若", "误以为", "错误", "误区", "误解", "以为", "假设"}  # fmt: skip


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    for raw in _TOKEN.findall(normalize(text)):
        if is_cjk(raw):
            out.extend(_segment(raw))
        else:
            out.append(raw)
    return out


@lru_cache(maxsize=4096)
def canonical_words(text: str) -> tuple[str, ...]:
    """The stems of a piece of text (a pattern's phrase), in order."""
    return tuple(stem(word) for word in _tokens(text) if word not in _CLAUSE_PUNCT)


def _split_sentences(answer: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(answer):
        if answer[start : m.end()].strip():
            spans.append((start, m.end()))
        start = m.end()
    if answer[start:].strip():
        spans.append((start, len(answer)))
    out = []
    for s, e in spans:
        while s < e and answer[s].isspace():
            s += 1
        while e > s and answer[e - 1].isspace():
            e -= 1
        out.append((s, e))
    return out


def _build(start: int, end: int, text: str) -> Sentence:
    sentence = Sentence(start, end)
    clause = phrase = 0
    parts: list[str] = []
    offset = 0
    prev_cjk = False
    hedged = [False]
    listed: set[int] = set()  # clauses that a comma or a list word began
    for word in _tokens(text):
        if word in _CLAUSE_PUNCT or word in _CLAUSE_WORDS or word in _LIST_WORDS:
            clause += 1
            phrase += word not in _LIST_WORDS
            hedged.append(False)
            if word in _LIST_WORDS or word in _LIST_PUNCT:
                listed.add(clause)
            prev_cjk = False  # a boundary keeps Chinese words apart in `canon`
            if word in _CLAUSE_PUNCT:
                continue
        s = stem(word)
        cjk = is_cjk(word)
        if parts and not (cjk and prev_cjk):
            parts.append(" ")
            offset += 1
        sentence.tokens.append(Token(word, s, offset, offset + len(s), clause, phrase))
        parts.append(s)
        offset += len(s)
        prev_cjk = cjk
        if s in _HEDGES or word in _HEDGES:
            hedged[clause] = True
    sentence.canon = "".join(parts)
    sentence.hedged = hedged
    _merge_list_items(sentence.tokens, listed)
    _mark_negation(sentence.tokens)
    return sentence


def _merge_list_items(tokens: list[Token], listed: set[int]) -> None:
    """A one-word list item ("rotates q, k and v") belongs to the clause before it: a lone word carries no
    role of its own, so `rotate ~ v` holds there, while "..., low ones interpolated" stays a clause."""
    by_clause: dict[int, list[Token]] = {}
    for token in tokens:
        by_clause.setdefault(token.clause, []).append(token)
    target: dict[int, tuple[int, int]] = {}
    for clause in sorted(by_clause):
        members = by_clause[clause]
        words = [t for t in members if t.text not in _LIST_WORDS]
        before = target.get(clause - 1) or next(
            ((c, by_clause[c][0].phrase) for c in range(clause - 1, -1, -1) if c in by_clause), None
        )
        if clause in listed and len(words) == 1 and before is not None:
            target[clause] = before
            for token in members:
                token.clause, token.phrase = before
        else:
            target[clause] = (clause, members[0].phrase)


def _mark_negation(tokens: list[Token]) -> None:
    n = len(tokens)
    i = 0
    while i < n:
        token = tokens[i]
        nxt = tokens[i + 1].text if i + 1 < n else ""
        pair = (token.text, nxt)
        start = None
        # "not only q but also k" adds; "you cannot just call it unchanged" negates: `but` tells them apart
        additive = pair in _NOT_NEGATION and (
            pair != ("not", "just") or any(t.text == "but" for t in tokens[i + 2 :])
        )
        if additive:
            i += 2
            continue
        if pair in _NEG_PAIRS:
            start = i + 2
        elif token.text in _NEG_CUES:
            start = i + 1
        if start is None:
            i += 1
            continue
        phrase = token.phrase
        j = start
        while j < n and j - start < _NEG_WINDOW and tokens[j].phrase == phrase:
            if tokens[j].text not in _NEG_CUES:
                tokens[j].negated, tokens[j].cue = True, i
            j += 1
        if (
            j == start
            and token.text in ("nothing", "nobody")
            and i > 0
            and tokens[i - 1].clause == token.clause
        ):
            tokens[i - 1].negated, tokens[i - 1].cue = True, i  # "rows know nothing": the verb, not the rows
        if j == start and token.text in _BACKWARD_CUES:  # "..., but v is not.": it negates what came before
            k = i - 1
            while k >= 0 and tokens[k].clause == token.clause:
                tokens[k].negated, tokens[k].cue = True, i
                k -= 1
        i = max(i + 1, start)


@lru_cache(maxsize=256)
def analyse(answer: str) -> tuple[Sentence, ...]:
    """The answer's sentences, each tokenised, split into clauses, negation marked."""
    return tuple(_build(s, e, answer[s:e]) for s, e in _split_sentences(answer))
