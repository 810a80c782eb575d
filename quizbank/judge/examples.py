"""`bank validate`'s judge checks: every open question's `examples` get the verdicts they expect, and no
pattern rests on one word that most of the bank uses.

This is the project's own evidence that the judge works: an example is an answer written as a candidate
would, with the verdict an interviewer gives each key point.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..problems import ERROR, Location, Problem
from ..question_types import question_type
from .patterns import compile_pattern, parse_pattern
from .rarity import COMMON_SHARE, Rarity, bank_rarity
from .text import canonical_words
from .verdicts import judge_answer

__all__ = ["JudgeReport", "judge_report", "point_patterns"]


@dataclass
class JudgeReport:
    problems: list[Problem] = field(default_factory=list)
    questions: int = 0
    examples: int = 0
    examples_agreed: int = 0
    points: int = 0  # (point, example) pairs judged
    points_agreed: int = 0


def point_patterns(point: Any) -> Iterator[tuple[str, str]]:
    """(where inside the key point, pattern) for every pattern a key point holds."""
    for k, source in enumerate(getattr(point, "accept", None) or []):
        yield f"accept.{k}", source
    for k, source in enumerate(getattr(point, "match", None) or []):
        yield f"match.{k}", source
    for m, misconception in enumerate(getattr(point, "misconceptions", None) or []):
        for k, source in enumerate(misconception.match):
            yield f"misconceptions.{m}.match.{k}", source


def _lone_common_word(source: str, rarity: Rarity) -> str | None:
    """The word, when the pattern is one plain word (no alternative, quote or role) that the bank's
    questions mostly share."""
    pattern = parse_pattern(source)
    if len(pattern.terms) != 1:
        return None
    term = pattern.terms[0]
    if term.prefixes or len(term.keys) != 1 or term.negated:
        return None
    raw = term.source.lstrip("=")
    if raw.startswith('"'):
        return None
    words = canonical_words(raw)
    if len(words) != 1:
        return None
    return raw if rarity.too_common(words[0]) else None


def _where(
    origin: dict[tuple[str, str], Location], fallback: dict[str, Location], qid: str, key: str
) -> Location:
    return origin.get((qid, key)) or fallback.get(qid) or Location(f"question {qid}")


def judge_report(
    source: Any, only: Iterable[str] | None = None, *, rarity: Rarity | None = None
) -> JudgeReport:
    """Judge every example of the open (judged) questions of `source` (a BankSet) named in `only` (default: all)."""
    rarity = rarity or bank_rarity()
    origin: dict[tuple[str, str], Location] = dict(getattr(source, "judge_origin", {}) or {})
    fallback: dict[str, Location] = dict(getattr(source, "origin", {}) or {})
    report = JudgeReport()
    wanted = set(only) if only is not None else None
    for qid, question in source.questions.items():
        if wanted is not None and qid not in wanted:
            continue
        if not question_type(question.type).judged:
            continue
        report.questions += 1
        for j, point in enumerate(question.key_points):
            for key, pattern in point_patterns(point):
                try:
                    compile_pattern(pattern)
                    word = _lone_common_word(pattern, rarity)
                except ValueError:
                    continue  # the schema reports it
                if word is not None:
                    share = rarity.share(canonical_words(word)[0])
                    report.problems.append(
                        Problem.at(
                            _where(origin, fallback, qid, f"key_points.{j}.{key}"),
                            f"key point {j + 1}: the one-word term {word!r} is in {share:.0%} of the bank's "
                            f"questions (over {COMMON_SHARE:.0%}), so it can't carry the point alone; add a "
                            "rarer word or use a quoted phrase",
                        )
                    )
        for i, example in enumerate(getattr(question, "examples", None) or []):
            report.examples += 1
            verdicts = judge_answer(question.key_points, example.answer, rarity=rarity)
            agreed = True
            for j, (want, got) in enumerate(zip(example.expect, verdicts, strict=True)):
                report.points += 1
                if want == got.verdict:
                    report.points_agreed += 1
                    continue
                agreed = False
                why = got.rule or "nothing in the answer matched"
                evidence = f"; evidence: {got.evidence[:80]!r}" if got.evidence else ""
                kind = f" ({example.kind})" if example.kind else ""
                report.problems.append(
                    Problem.at(
                        _where(origin, fallback, qid, f"examples.{i}"),
                        f"example {i + 1}{kind}: key point {j + 1} should be {want}, the judge says "
                        f"{got.verdict} ({why}{evidence})",
                        ERROR,
                    )
                )
            report.examples_agreed += agreed
    return report
