"""Groups of words that say the same thing, in English and Chinese (`lexicon.yaml` plus the glossary).

`Lexicon.expand(key)` gives every member of the group a canonical term belongs to: English members as
their stems joined by spaces (`rotat`, `dimens pair`), Chinese members as written. A pattern's one-word or
quoted term matches any of them, so `rotate` matches 旋转 and `维度对` matches `dimension pair`.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from importlib import resources

from .text import canonical_words, is_cjk

__all__ = ["Lexicon", "canonical", "lexicon"]

LEXICON_FILE = "lexicon.yaml"
_PAREN = re.compile(r"\s*\(([^)]*)\)")


def canonical(term: str) -> str:
    """A term's canonical form: Chinese as written (spaces dropped), English as stems joined by spaces."""
    words = canonical_words(term)
    out = ""
    for word in words:
        if out and not (is_cjk(word) and is_cjk(out[-1])):
            out += " "
        out += word
    return out


@dataclass(frozen=True)
class Lexicon:
    groups: tuple[frozenset[str], ...]
    index: dict[str, int]

    def expand(self, key: str) -> frozenset[str]:
        """The canonical members of `key`'s group (just `key` when it has none)."""
        group = self.index.get(key)
        return self.groups[group] if group is not None else frozenset({key})


def _glossary_groups() -> list[list[str]]:
    from ..glossary import load_glossary

    out: list[list[str]] = []
    for term in load_glossary():
        members = [term.zh]
        english = _PAREN.sub("", term.en).strip()
        members.append(english)
        for inner in _PAREN.findall(term.en):
            members.extend(part.strip() for part in inner.split(",") if part.strip())
        out.append(members)
    return out


def build(raw_groups: list[list[str]]) -> Lexicon:
    """Merge groups that share a member (the glossary and the word list meet on shared terms)."""
    index: dict[str, int] = {}
    groups: list[set[str]] = []
    for raw in raw_groups:
        members = {canonical(str(member)) for member in raw if str(member).strip()}
        members.discard("")
        found = sorted({index[m] for m in members if m in index})
        if found:
            target = found[0]
            for other in found[1:]:
                groups[target] |= groups[other]
                for member in groups[other]:
                    index[member] = target
                groups[other] = set()
            groups[target] |= members
        else:
            target = len(groups)
            groups.append(set(members))
        for member in groups[target]:
            index[member] = target
    return Lexicon(tuple(frozenset(g) for g in groups), index)


_LOCK = threading.Lock()
_LEXICON: Lexicon | None = None


def lexicon() -> Lexicon:
    """The shipped lexicon (word list + glossary), built once."""
    global _LEXICON
    if _LEXICON is None:
        with _LOCK:
            if _LEXICON is None:
                import yaml

                text = resources.files(__package__).joinpath(LEXICON_FILE).read_text(encoding="utf-8")
                data = yaml.safe_load(text)
                raw = [list(map(str, group)) for group in data["groups"]]
                _LEXICON = build(raw + _glossary_groups())
    return _LEXICON
