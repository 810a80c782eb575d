"""How rare each word is in the bank (inverse document frequency over its questions).

A question is one document: its prompt, answer and key points, English and Chinese. Common
words (attention, position, token, 注意力, 位置) weigh little, so they never carry a key point alone, and
`bank validate` refuses a one-word pattern term that is that common (`too_common`).
"""

from __future__ import annotations

import json
import math
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .text import analyse

__all__ = ["COMMON_SHARE", "Rarity", "bank_rarity", "compute_bank_rarity", "content_stems"]

# a one-word term found in more of the bank's questions than this share is too common to stand alone
COMMON_SHARE = 0.12
STOP = frozenset(
    """
    a an the of to in on at by for with from into onto over under and or but nor is are was were be been
    being it its this that these those there their them they he she we you your our as than then so such can
    could would should will shall may might must do doe does did done has have had having which what who whom
    whose when where why how all any each every both either some more most other own same too very just also
    about above below between through during before after again further once here out up down off while if
    because until per via one two thus hence get gets got make makes made use used uses using like i me my
    ani onli veri whi
    的 了 是 在 和 与 及 或 把 被 将 一 个 条 种 些 这 那 其 之 也 都 就 而 且 所以 于 为 对 会 能 要 可以 我们 它 它们
    就是 一个 这个 那个 还 又 再 让 使 给 从 到 说 看 用 等 中 上 下 里 时 后 前 得 地 着 过 吗 呢 吧 啊
    """.split()
)


def content_stems(text: str) -> list[str]:
    """The content words of a text, stemmed, in order (stop words, operators and lone letters dropped)."""
    out: list[str] = []
    for sentence in analyse(text):
        for token in sentence.tokens:
            s = token.stem
            if s in STOP or token.text in STOP or not any(ch.isalnum() for ch in s):
                continue
            out.append(s)
    return out


@dataclass(frozen=True)
class Rarity:
    documents: int
    df: dict[str, int]

    @classmethod
    def from_documents(cls, documents: Iterable[str]) -> Rarity:
        df: Counter[str] = Counter()
        n = 0
        for doc in documents:
            n += 1
            df.update(set(content_stems(doc)))
        return cls(n, dict(df))

    def share(self, stem: str) -> float:
        """The share of the bank's questions that use the word."""
        return self.df.get(stem, 0) / self.documents if self.documents else 0.0

    def weight(self, stem: str) -> float:
        """Inverse document frequency, at least 0.2: a rare word weighs about 5, one in every question 0.2."""
        df = self.df.get(stem, 0)
        return max(0.2, math.log((self.documents + 1) / (df + 0.5)))

    def too_common(self, stem: str) -> bool:
        return self.share(stem) > COMMON_SHARE


def _question_texts(question: dict[str, object]) -> str:
    parts: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, dict):
            for key, inner in value.items():
                if key in ("en", "zh", "prompt", "answer", "explanation", "key_points", "choices", "text"):
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    for key in ("prompt", "answer", "key_points"):  # the explanation is long and says the same again
        walk(question.get(key))
    return "\n".join(parts)


_LOCK = threading.Lock()
_BANK: Rarity | None = None
CACHE_VERSION = 1  # bump when what counts as a document or a content word changes


def _shipped_banks() -> list[tuple[str, bytes]]:
    folder = resources.files("quizbank").joinpath("data")
    return sorted(
        (entry.name, entry.read_bytes()) for entry in folder.iterdir() if entry.name.endswith(".yaml")
    )


def _fingerprint(banks: list[tuple[str, bytes]]) -> str:
    """What the table depends on: the shipped banks, the lexicon that shapes stems, the stop words, the
    stemmer's and jieba's versions."""
    import hashlib
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256(f"rarity {CACHE_VERSION}\n".encode())
    for name, data in banks:
        digest.update(name.encode() + b"\0" + data + b"\0")
    digest.update(resources.files("quizbank.judge").joinpath("lexicon.yaml").read_bytes())
    digest.update(" ".join(sorted(STOP)).encode())
    for package in ("snowballstemmer", "jieba"):
        try:
            digest.update(f"{package} {version(package)}".encode())
        except PackageNotFoundError:
            digest.update(package.encode())
    return digest.hexdigest()


def _cache_path() -> Path:
    from ..cachedir import cache_dir

    return cache_dir() / "judge-rarity.json"


def _read_cache(fingerprint: str) -> Rarity | None:
    try:
        data = json.loads(_cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint:
        return None
    documents, df = data.get("documents"), data.get("df")
    if not isinstance(documents, int) or not isinstance(df, dict):
        return None
    if not all(isinstance(k, str) and isinstance(v, int) for k, v in df.items()):
        return None
    return Rarity(documents, df)


def _write_cache(fingerprint: str, rarity: Rarity) -> None:
    from ..atomicio import write_text_atomic

    payload = {"fingerprint": fingerprint, "documents": rarity.documents, "df": rarity.df}
    try:
        path = _cache_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(payload, ensure_ascii=False, sort_keys=True))
    except OSError:
        pass  # a read-only cache folder costs the next process the computation, nothing else


def compute_bank_rarity(banks: list[tuple[str, bytes]] | None = None) -> Rarity:
    """The rarity table computed from the shipped bank YAML (no schema, no torch): about 5 s."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs: list[str] = []
    for _name, raw in banks if banks is not None else _shipped_banks():
        data = yaml.load(raw.decode("utf-8"), Loader=loader)  # (a safe loader)
        topics = data.get("topics", [data]) if isinstance(data, dict) else []
        for topic in topics:
            for question in (topic or {}).get("questions", []) or []:
                if isinstance(question, dict):
                    docs.append(_question_texts(question))
    return Rarity.from_documents(docs)


def bank_rarity() -> Rarity:
    """The shipped bank's word rarity: once per process, and read from the cache folder while the shipped
    banks, the lexicon and the text tools are the ones it was computed from (milliseconds instead of the
    5 s that parsing the YAML and segmenting every question take)."""
    global _BANK
    if _BANK is None:
        with _LOCK:
            if _BANK is None:
                banks = _shipped_banks()
                fingerprint = _fingerprint(banks)
                rarity = _read_cache(fingerprint)
                if rarity is None:
                    rarity = compute_bank_rarity(banks)
                    _write_cache(fingerprint, rarity)
                _BANK = rarity
    return _BANK
