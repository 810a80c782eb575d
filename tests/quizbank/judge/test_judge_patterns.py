"""quizbank.judge.patterns: the pattern language of accept and misconception patterns."""

from __future__ import annotations

import pytest

from quizbank.judge.patterns import PatternError, compile_pattern, match, parse_pattern
from quizbank.judge.text import analyse


def verdicts(pattern: str, answer: str) -> list[str | None]:
    compiled = compile_pattern(pattern)
    return [(found[0] if (found := match(compiled, s)) else None) for s in analyse(answer)]


SWAPPED = "Raising the base interpolates the high frequencies and extrapolates the low ones."
RIGHT = "The high frequencies are extrapolated (barely change), the low ones interpolated."


@pytest.mark.parametrize(
    ("pattern", "answer", "expected"),
    [
        ("rotate q k", "q and k get rotated", ["match"]),
        ("rotate q k", "only v is rotated, then scaled", [None]),
        ("high ~ extrapolate low ~ interpolate", RIGHT, ["match"]),
        ("high ~ extrapolate low ~ interpolate", SWAPPED, [None]),
        ("high ~ interpolate", SWAPPED, ["match"]),  # the misconception
        ("高频 ~ 外推 低频 ~ 内插", "高频外推、低频内插", ["match"]),
        ("高频 ~ 外推", "高频内插、低频外推", [None]),
        ("v not rotate", "RoPE does not rotate V.", ["match"]),
        ("v not rotate", "RoPE rotates V too.", ["flipped"]),
        ("rotate ~ v", "只对 q 和 k 做旋转，V 不旋转", ["flipped"]),  # the clause with V denies it
        ('"real part" conj', "take the real part of q times the conjugate of k", ["match"]),
        ("re conj", "取 q 乘 k 共轭的实部", ["match"]),
        ('"10000^(-2i/d)"', "theta_i = 1e4**(-2*i/d)", ["match"]),
        ("project .. rotate", "先投影再旋转", ["match"]),
        ("project .. rotate", "rotate, then project", [None]),
        ("rot* | spin", "the spinning trick", ["match"]),
        ("=base", "the rope theta", [None]),
        ("越远 .. 罚", "离得越远罚得越多", ["match"]),  # order inside one Chinese word
        ('"i - j"', "距离矩阵 i-j", ["match"]),  # a minus between letters stays a minus
        ('"= positions // factor"', "pos = positions // factor", ["match"]),  # `=` inside quotes is text
        ("broadcast* | 广播", "用广播 slopes[:, None, None]", ["match"]),  # Python's None is no negation
        ("base", "the rope theta", ["match"]),  # a synonym
    ],
)
def test_patterns_on_answers(pattern: str, answer: str, expected: list[str | None]) -> None:
    assert verdicts(pattern, answer) == expected


@pytest.mark.parametrize(
    ("pattern", "message", "col"),
    [
        ("", "empty pattern", 1),
        ('"real part', "closing", 1),
        ("a ~", "ends with", 3),
        ("| a", "needs a term", 1),
        ("not not a", "not not", 5),
        ("ro*", "too short", 1),
        ('rotate "-"', "no word", 8),
    ],
)
def test_unreadable_patterns_name_the_column(pattern: str, message: str, col: int) -> None:
    with pytest.raises(PatternError, match=message) as caught:
        parse_pattern(pattern)
    assert caught.value.col == col


def test_parsing_needs_neither_the_stemmer_nor_the_segmenter() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from quizbank.judge.patterns import parse_pattern; parse_pattern('投影 .. rotate ~ q');"
        "print('jieba' in sys.modules, 'snowballstemmer' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
