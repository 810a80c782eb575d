"""The project's bilingual glossary: one Chinese term per concept (quizbank/glossary.yaml).

Shown in the app (Browse -> Glossary, and in search), rendered to docs/glossary.md, and used by the
tests to flag banned Chinese variants in the shipped bank. Pure data: no torch, no textual.

    python -m quizbank.glossary --markdown    # print docs/glossary.md
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources

GLOSSARY_FILE = "glossary.yaml"


@dataclass(frozen=True)
class GlossaryTerm:
    id: str
    en: str  # the English term
    zh: str  # the one Chinese term to use
    definition_en: str
    definition_zh: str
    banned: tuple[str, ...] = ()  # Chinese variants the shipped bank must not use
    allowed: tuple[str, ...] = ()  # longer phrases that contain a banned variant but are fine

    def term(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    def definition(self, lang: str) -> str:
        return self.definition_zh if lang == "zh" else self.definition_en

    def matches(self, needle: str) -> bool:
        """Case-insensitive match of `needle` in either language's term or definition."""
        folded = needle.strip().casefold()
        if not folded:
            return True
        return any(
            folded in text.casefold()
            for text in (self.id, self.en, self.zh, self.definition_en, self.definition_zh)
        )


class GlossaryError(ValueError):
    """The glossary file is malformed (a packaging or editing mistake)."""


def parse_glossary(text: str) -> tuple[GlossaryTerm, ...]:
    """Terms from the YAML text, validated: unique ids and Chinese terms, every field present."""
    import yaml

    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not isinstance(data.get("terms"), list):
        raise GlossaryError("the glossary needs a top-level 'terms:' list")
    terms: list[GlossaryTerm] = []
    for i, raw in enumerate(data["terms"]):
        where = f"term {i + 1}"
        if not isinstance(raw, dict):
            raise GlossaryError(f"{where} is not a mapping")
        definition = raw.get("definition")
        fields = [raw.get("id"), raw.get("en"), raw.get("zh")]
        if not all(isinstance(f, str) and f.strip() for f in fields) or not isinstance(definition, dict):
            raise GlossaryError(f"{where} needs id, en, zh and definition {{en, zh}}")
        if not all(
            isinstance(definition.get(lang), str) and definition[lang].strip() for lang in ("en", "zh")
        ):
            raise GlossaryError(f"{where} ({raw['id']}) needs a definition in en and zh")
        banned, allowed = raw.get("banned", []), raw.get("allowed", [])
        if not all(
            isinstance(x, list) and all(isinstance(s, str) and s for s in x) for x in (banned, allowed)
        ):
            raise GlossaryError(f"{where} ({raw['id']}): banned and allowed are lists of text")
        if raw["zh"] in banned:
            raise GlossaryError(f"{where} ({raw['id']}) bans its own term {raw['zh']!r}")
        terms.append(
            GlossaryTerm(
                raw["id"],
                raw["en"],
                raw["zh"],
                definition["en"],
                definition["zh"],
                tuple(banned),
                tuple(allowed),
            )
        )
    for attr in ("id", "zh"):
        seen: set[str] = set()
        for term in terms:
            value = getattr(term, attr)
            if value in seen:
                raise GlossaryError(f"two terms share the {attr} {value!r}")
            seen.add(value)
    return tuple(terms)


@cache
def load_glossary() -> tuple[GlossaryTerm, ...]:
    """The shipped glossary (package data), parsed once."""
    text = resources.files("quizbank").joinpath(GLOSSARY_FILE).read_text(encoding="utf-8")
    return parse_glossary(text)


def search_glossary(needle: str, terms: tuple[GlossaryTerm, ...] | None = None) -> list[GlossaryTerm]:
    """Terms matching `needle` in either language (every term for empty text): terms whose name matches come
    first (an exact name first of all), then those matched only by their definition; glossary order within."""
    folded = needle.strip().casefold()
    ranked = []
    for order, term in enumerate(terms if terms is not None else load_glossary()):
        if not term.matches(folded):
            continue
        names = (term.id.casefold(), term.en.casefold(), term.zh.casefold())
        rank = 0 if folded in names else 1 if any(folded in name for name in names) else 2
        ranked.append((rank if folded else 0, order, term))
    return [term for _, _, term in sorted(ranked, key=lambda r: (r[0], r[1]))]


def banned_hits(
    text: str, terms: tuple[GlossaryTerm, ...] | None = None
) -> list[tuple[str, GlossaryTerm, int]]:
    """(variant, term, offset) for every banned variant in `text` that is not part of an allowed phrase."""
    hits = []
    for term in terms if terms is not None else load_glossary():
        covered: set[int] = set()
        for phrase in term.allowed:
            start = text.find(phrase)
            while start >= 0:
                covered.update(range(start, start + len(phrase)))
                start = text.find(phrase, start + 1)
        for variant in term.banned:
            start = text.find(variant)
            while start >= 0:
                if start not in covered:
                    hits.append((variant, term, start))
                start = text.find(variant, start + 1)
    return sorted(hits, key=lambda hit: hit[2])


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(terms: tuple[GlossaryTerm, ...] | None = None) -> str:
    """docs/glossary.md: one row per concept."""
    lines = [
        "# Glossary: one Chinese term per concept",
        "",
        "Generated from `quizbank/glossary.yaml` by `python -m quizbank.glossary --markdown`; edit the YAML,",
        "not this file (tests/quizbank/test_glossary.py checks that they agree). The shipped bank's Chinese text uses",
        "exactly these terms; the variants in the last column are flagged by the tests. The app shows the same",
        "list under Browse → Glossary.",
        "",
        "| English | 中文 | definition | 释义 | not |",
        "|---|---|---|---|---|",
    ]
    for t in terms if terms is not None else load_glossary():
        banned = "、".join(t.banned)
        lines.append(
            f"| {_cell(t.en)} | {_cell(t.zh)} | {_cell(t.definition_en)} | {_cell(t.definition_zh)} | {banned} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["--markdown"]:
        print("usage: python -m quizbank.glossary --markdown", file=sys.stderr)
        return 2
    sys.stdout.write(to_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
