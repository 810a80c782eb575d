"""The open-answer judge: each key point of an open question is covered, contradicted or not found.

`text` reads an answer (sentences, clauses, stems, Chinese words, negation); `lexicon` holds the words
that say the same thing in English and Chinese; `patterns` is the language of a key point's `accept:`
and a misconception's `match:`; `rarity` weighs words by how rare they are in the bank; `verdicts` decides;
`examples` checks a question's `examples:` for `bank validate`; `cli` is `posenc bank judge`.

Pure Python: no Textual, no torch. The stemmer and the Chinese segmenter load on first use
(`warm()` loads them from a background worker).
"""

from __future__ import annotations

from .text import warm
from .verdicts import (
    CONTRADICTED,
    COVERED,
    NOT_FOUND,
    VERDICTS,
    PointVerdict,
    effective_marks,
    judge_answer,
    judge_point,
)

__all__ = [
    "CONTRADICTED",
    "COVERED",
    "NOT_FOUND",
    "VERDICTS",
    "PointVerdict",
    "effective_marks",
    "judge_answer",
    "judge_point",
    "warm",
]
