"""Judge a typed answer against an open question's key points: covered, contradicted or not found.

For each key point, in this order:

1. **Contradicted** when one of its `misconceptions` matches a sentence of the answer (a pattern of its
   `match` list), unless that sentence reports the claim rather than makes it ("a common mistake is to
   think ...", "if we rotated v ..."). The verdict carries the misconception and its correction.
2. **Covered** when one of its `accept` patterns (or its older `match` terms, read as patterns) holds
   in one sentence, or when the answer restates the point's own words: the rarity-weighted share of the
   point's content words found in one sentence (or two in a row) reaches `OWN_WORDS_SHARE` (or
   `OWN_WORDS_SHARE_AUTHORED` for a point with patterns), with none of the weighty ones negated against it.
3. **Contradicted** when an `accept` pattern's words are all in one clause but the answer negates them
   ("RoPE does not rotate q and k" against `rotate q k`): the correction is the point itself.
4. **Not found** otherwise.

Each verdict carries the span of the answer that decided it. Pure functions; no Textual, no torch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .lexicon import lexicon
from .patterns import Hit, Pattern, compile_pattern, match
from .rarity import Rarity, bank_rarity, content_stems
from .text import Sentence, analyse, is_cjk

__all__ = [
    "CONTRADICTED",
    "COVERED",
    "NOT_FOUND",
    "VERDICTS",
    "PointVerdict",
    "effective_marks",
    "judge_answer",
    "judge_point",
]

COVERED: Literal["covered"] = "covered"
CONTRADICTED: Literal["contradicted"] = "contradicted"
NOT_FOUND: Literal["not_found"] = "not_found"
VERDICTS = (COVERED, CONTRADICTED, NOT_FOUND)
Verdict = Literal["covered", "contradicted", "not_found"]

OWN_WORDS_SHARE = 0.5  # of a point's rarity-weighted content words, in one sentence or two in a row
# a point with `accept` patterns: its author listed the ways to say it, so its own words must be most of it
OWN_WORDS_SHARE_AUTHORED = 0.7
OWN_WORDS_MIN = 3  # content words found, at least (or all of a shorter point's)
FLIPPED_SHARE = 0.25  # of the found weight negated against the point: the answer says the opposite


@dataclass(frozen=True)
class PointVerdict:
    verdict: Verdict
    span: tuple[int, int] | None = None  # the part of the answer that decided it
    evidence: str = ""  # the answer's text at `span`
    rule: str = ""  # what decided it: "accept: ...", "misconception: ...", "own words 72%", "denied: ..."
    claim: Any = None  # the misconception's wrong statement (a Text: en / zh), when one matched
    correction: Any = None  # its correction (a Text); for a denied point, the point itself

    @property
    def covered(self) -> bool:
        return self.verdict == COVERED

    def as_dict(self, lang: str = "en") -> dict[str, Any]:
        def text(value: Any) -> str | None:
            if value is None:
                return None
            getter = getattr(value, "get", None)
            return getter(lang) if callable(getter) else str(value)

        return {
            "verdict": self.verdict,
            "span": list(self.span) if self.span else None,
            "evidence": self.evidence,
            "rule": self.rule,
            "claim": text(self.claim),
            "correction": text(self.correction),
        }


def _patterns(sources: Iterable[str]) -> list[Pattern]:
    out = []
    for source in sources:
        try:
            out.append(compile_pattern(source))
        except ValueError:
            continue  # `bank validate` reports it; a broken pattern never breaks judging
    return out


def _span(answer: str, sentence: Sentence) -> tuple[tuple[int, int], str]:
    return (sentence.start, sentence.end), answer[sentence.start : sentence.end]


def _hedged(sentence: Sentence, hits: list[Hit]) -> bool:
    """The claim sits in a clause that reports or supposes it ("a common mistake is to think ...", "if ...")."""
    return any(sentence.hedged[hit.clause] for hit in hits if hit.clause < len(sentence.hedged))


def _first(
    patterns: list[Pattern], sentences: Sequence[Sentence], want: str, *, skip_hedged: bool
) -> tuple[Pattern, Sentence] | None:
    for pattern in patterns:
        for sentence in sentences:
            found = match(pattern, sentence)
            if found is None or found[0] != want:
                continue
            if skip_hedged and _hedged(sentence, found[1]):
                continue
            return pattern, sentence
    return None


def _is_zh(text: str) -> bool:
    cjk = sum(1 for ch in text if is_cjk(ch))
    return cjk > 0 and cjk >= 0.2 * len(text.replace(" ", ""))


def _own_words(
    point: Any, answer: str, sentences: Sequence[Sentence], rarity: Rarity
) -> tuple[float, Sentence, Sentence] | None:
    """(share, start sentence, end sentence) of the best window restating the point's own words, in either of
    its languages (a Chinese answer often keeps English terms: "在每一层 attention 的 logits 上加偏置")."""
    best: tuple[float, Sentence, Sentence] | None = None
    texts = (
        [getattr(point, "zh", None), getattr(point, "en", None)]
        if _is_zh(answer)
        else [getattr(point, "en", None)]
    )
    for text in texts:
        if text:
            found = _own_words_in(text, sentences, rarity)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
    return best


def _own_words_in(
    text: str, sentences: Sequence[Sentence], rarity: Rarity
) -> tuple[float, Sentence, Sentence] | None:
    stems = list(dict.fromkeys(content_stems(text)))
    if not stems:
        return None
    lex = lexicon()
    wanted = [(s, rarity.weight(s), lex.expand(s)) for s in stems]
    total = sum(w for _, w, _ in wanted)
    point_negated = {t.stem for s in analyse(text) for t in s.tokens if t.negated}
    best: tuple[float, Sentence, Sentence] | None = None
    for i in range(len(sentences)):
        window = sentences[i : i + 2]
        present: dict[str, bool] = {}
        canon = " ".join(s.canon for s in window)
        for s in window:
            for t in s.tokens:
                present[t.stem] = present.get(t.stem, False) or t.negated
        got = 0.0
        found = 0
        flipped = 0.0
        for stem, weight, group in wanted:
            hit = next((g for g in group if g in present or (is_cjk(g) and len(g) > 1 and g in canon)), None)
            if hit is None:
                continue
            got += weight
            found += 1
            negated = present.get(hit, False)
            if negated != (stem in point_negated):
                flipped += weight
        share = got / total if total else 0.0
        enough = found >= min(OWN_WORDS_MIN, len(wanted))
        if enough and flipped <= FLIPPED_SHARE * got and (best is None or share > best[0]):
            best = (share, window[0], window[-1])
    return best


def judge_point(point: Any, answer: str, *, rarity: Rarity | None = None) -> PointVerdict:
    """The verdict for one key point (a schema `KeyPoint`, or anything with en / zh / accept / match /
    misconceptions)."""
    sentences = analyse(answer)
    if not sentences:
        return PointVerdict(NOT_FOUND)
    for misconception in getattr(point, "misconceptions", None) or []:
        found = _first(_patterns(misconception.match), sentences, "match", skip_hedged=True)
        if found is not None:
            pattern, sentence = found
            span, evidence = _span(answer, sentence)
            return PointVerdict(
                CONTRADICTED, span, evidence, f"misconception: {pattern.source}",
                getattr(misconception, "claim", None), misconception.correction,
            )  # fmt: skip
    accepts = _patterns([*(getattr(point, "accept", None) or []), *(getattr(point, "match", None) or [])])
    found = _first(accepts, sentences, "match", skip_hedged=False)
    if found is not None:
        pattern, sentence = found
        span, evidence = _span(answer, sentence)
        return PointVerdict(COVERED, span, evidence, f"accept: {pattern.source}")
    own = _own_words(point, answer, sentences, rarity or bank_rarity())
    needed = OWN_WORDS_SHARE_AUTHORED if accepts else OWN_WORDS_SHARE
    if own is not None and own[0] >= needed:
        share, first, last = own
        span = (first.start, last.end)
        return PointVerdict(COVERED, span, answer[span[0] : span[1]], f"own words {share:.0%}")
    # one word the answer happens to negate is no denial: the claim needs two terms or more
    denied = _first([p for p in accepts if len(p.terms) > 1], sentences, "flipped", skip_hedged=True)
    if denied is not None:
        pattern, sentence = denied
        span, evidence = _span(answer, sentence)
        return PointVerdict(CONTRADICTED, span, evidence, f"denied: {pattern.source}", None, point)
    return PointVerdict(NOT_FOUND)


def judge_answer(
    points: Sequence[Any] | Iterable[Any], answer: str, *, rarity: Rarity | None = None
) -> list[PointVerdict]:
    """One verdict per key point, in order."""
    if not answer or not answer.strip():
        return [PointVerdict(NOT_FOUND) for _ in points]
    return [judge_point(point, answer, rarity=rarity) for point in points]


def effective_marks(ticks: Sequence[bool], verdicts: Sequence[PointVerdict]) -> list[Verdict]:
    """Each key point's mark once the candidate has changed the judge's ticks: covered when ticked,
    contradicted when the judge found it contradicted and it is not ticked, else not found (a point past
    the verdicts, judged never, is not found)."""
    marks: list[Verdict] = []
    for n, ticked in enumerate(ticks):
        judged = verdicts[n].verdict if n < len(verdicts) else NOT_FOUND
        marks.append(COVERED if ticked else (CONTRADICTED if judged == CONTRADICTED else NOT_FOUND))
    return marks
