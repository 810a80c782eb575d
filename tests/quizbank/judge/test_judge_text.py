"""quizbank.judge.text: one normal form for formulas and numbers, sentences, clauses and negation scope."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizbank.judge.text import analyse, canonical_words, normalize


def negated(answer: str) -> list[str]:
    return [t.text for s in analyse(answer) for t in s.tokens if t.negated]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("10000^(-2i/d)", "1e4**(-2*i/d)"),
        ("10000^{-2i/d}", "10,000 ^ (-2 i / d)"),
        ("θ_i", "\\theta_i"),
        ("conj(k)", "k^*"),
        ("\\bar{k}", "\\overline{k}"),
        ("k̄", "conjugate k"),
        ("32k tokens", "32000 tokens"),
        ("Re[q·conj(k)]", "re q conj k"),
        ("\\frac{m}{2}", "(m)/(2)"),
        ("B_m ≥ 0", "b_m >= 0"),
    ],
)
def test_formulas_and_numbers_read_the_same(a: str, b: str) -> None:
    assert canonical_words(a) == canonical_words(b)


def test_stems_and_british_spellings() -> None:
    assert canonical_words("rotates rotated rotation") == ("rotat", "rotat", "rotat")
    assert canonical_words("initialised neighbour") == canonical_words("initialized neighbor")


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ("RoPE does not rotate V", ["rotate", "v"]),
        ("RoPE doesn't rotate q and k", ["rotate", "q", "and", "k"]),  # `and` keeps the scope
        ("it is never learned, but it is fixed", ["learned"]),  # `but` ends it
        ("a table rather than a formula", ["a", "formula"]),
        ("not only q but also k", []),  # not a negation
        ("you cannot just call flash unchanged", ["just", "call", "flash", "unchanged"]),
        ("it works without any training", ["any", "training"]),
        ("q and k are rotated, but v is not", ["but", "v", "is"]),  # a cue ending its clause looks back
        ("RoPE 不旋转 V，只转 q", ["旋转", "v"]),
        ("是相对位置而不是绝对位置", ["绝对位置"]),
        ("位置不变", []),  # 不变 is a word, not a negation
    ],
)
def test_negation_reaches_the_end_of_its_clause(answer: str, words: list[str]) -> None:
    assert negated(answer) == words


def test_sentences_and_clauses() -> None:
    sentences = analyse("High frequencies are extrapolated, low ones interpolated. 高频外推；低频内插")
    assert [s.canon for s in sentences] == [
        "high frequenc are extrapol low one interpol",
        "高频外推",
        "低频内插",
    ]
    first = sentences[0].tokens
    assert {t.clause for t in first[:4]} == {0} and {t.clause for t in first[4:]} == {1}
    assert normalize("e.g. this") == "e.g. this"
    assert len(analyse("e.g. this stays one sentence. A second.")) == 2


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_read_without_an_exception(text: str) -> None:
    for sentence in analyse(text):
        assert all(0 <= t.start <= t.end <= len(sentence.canon) for t in sentence.tokens)
