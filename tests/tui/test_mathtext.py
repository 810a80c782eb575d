"""LaTeX -> Unicode for the terminal (tui/mathtext.py), including every text of the shipped bank."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from support.paths import ROOT

from tui.mathtext import FALLBACK_SYMBOLS, MathSpan, convert_math, latex_to_unicode, split_math

RAW_COMMAND = re.compile(r"\\[A-Za-z]+")
BANK_DIR = ROOT / "quizbank" / "data"


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        (r"\theta_i = 10000^{-2i/d}", "θᵢ = 10000^(-2i/d)"),
        (r"\langle q, k \rangle", "⟨q, k⟩"),
        (r"\langle f(q, m), f(k, n) \rangle = g(q, k, m-n)", "⟨f(q, m), f(k, n)⟩ = g(q, k, m-n)"),
        (r"\frac{a}{b}", "a/b"),
        (r"\frac{a + b}{2}", "(a + b)/2"),
        (r"\frac{QK^\top}{\sqrt{d_k}}", "QKᵀ/√dₖ"),
        (r"q_m^\top k_n", "qₘᵀ kₙ"),
        (r"e^{i m \theta}", "eⁱᵐᶿ"),
        (r"\cos m\theta", "cos mθ"),
        (r"\cos(m\theta_i)", "cos(mθᵢ)"),
        (r"\lVert x \rVert", "‖x‖"),
        (r"a \le b \ne c \to d", "a ≤ b ≠ c → d"),
        (r"x \in \mathbb{R}^d", "x ∈ ℝᵈ"),
        (r"\text{softmax}(QK^T/\sqrt{d})", "softmax(QKᵀ/√d)"),
        (r"\operatorname{PE}(p, 2i)", "PE(p, 2i)"),
        (r"\mathrm{clip}(j - i, -k, k)", "clip(j - i, -k, k)"),
        (r"x_{\text{max}}", "xₘₐₓ"),
        (r"\log_2 n", "log₂ n"),
        (r"\lfloor x \rfloor", "⌊x⌋"),
        (r"2^{-8}", "2⁻⁸"),
        (r"\sum_{i=0}^{d/2-1} q_i k_i", "∑ᵢ₌₀^(d/2-1) qᵢ kᵢ"),
        (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", "(a, b; c, d)"),
        (r"\underbrace{q^\top W k}_{\text{content}} + b", "qᵀ W k + b"),
        (r"\{a, b\}", "{a, b}"),
        (r"W_q", "W_q"),
        (r"1, \ldots, 8", "1, …, 8"),
    ],
)
def test_known_conversions(latex: str, expected: str) -> None:
    assert latex_to_unicode(latex) == expected


def test_split_math_keeps_text_and_marks_display() -> None:
    parts = split_math(r"costs $5 and $6, but $\theta$ is math and $$\frac{1}{2}$$ too")
    assert parts[0] == "costs $5 and $6, but "
    assert str(parts[1]) == "θ" and not parts[1].display
    assert str(parts[3]) == "½" and parts[3].display


def test_escaped_dollar_is_literal() -> None:
    assert convert_math(r"price \$3 and $x$") == "price $3 and x"


def test_markdown_mode_escapes_emphasis_characters() -> None:
    out = convert_math(r"see $a_{*} * b$", markdown=True)
    assert r"\*" in out
    assert "$" not in out


def test_unknown_commands_lose_their_backslash() -> None:
    assert latex_to_unicode(r"\bsR_{\Theta}") == "bsR_Θ"
    assert not RAW_COMMAND.search(latex_to_unicode(r"\weirdmacro{x} + \another"))


def test_broken_latex_still_gives_text() -> None:
    out = latex_to_unicode(r"\frac{a}{")
    assert "\\" not in out and "a" in out


def _texts(node: object) -> list[str]:
    """Every localized string of a bank file (values under en/zh keys of text mappings)."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("accept", "id", "follow_ups", "tags", "sources", "demo", "checks", "params"):
                continue
            if key in ("en", "zh") and isinstance(value, str):
                found.append(value)
            else:
                found.extend(_texts(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_texts(item))
    elif isinstance(node, str):
        found.append(node)
    return found


SHIPPED = sorted(BANK_DIR.glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_no_raw_latex_command_survives_in_the_shipped_bank(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    texts = _texts(data)
    assert texts, f"no text found in {path.name}"
    leftovers = {}
    for text in texts:
        for markdown in (False, True):
            out = convert_math(text, markdown=markdown)
            hit = RAW_COMMAND.search(out.replace("\\\\", ""))
            if hit and "$" in text:
                leftovers[text[:80]] = hit.group(0)
    assert leftovers == {}


@pytest.mark.slow  # every line of the shipped bank
def test_shipped_bank_formulas_use_real_math() -> None:
    """The bank does contain math, so the test above is not vacuous."""
    assert SHIPPED, f"no shipped bank files in {BANK_DIR}"
    spans = [
        s
        for p in SHIPPED
        for t in _texts(yaml.safe_load(p.read_text(encoding="utf-8")))
        for s in split_math(t)
    ]
    converted = [s for s in spans if isinstance(s, MathSpan)]
    assert len(converted) > 50


COMMANDS = sorted(FALLBACK_SYMBOLS) + [
    "frac",
    "sqrt",
    "text",
    "mathrm",
    "hat",
    "bar",
    "mathbf",
    "left",
    "right",
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(COMMANDS).map(lambda c: "\\" + c),
            st.sampled_from(list("abxyz01+-=_^{}() ,")),
        ),
        min_size=1,
        max_size=14,
    )
)
def test_no_command_ever_survives(tokens: list[str]) -> None:
    out = latex_to_unicode("".join(tokens))
    assert not RAW_COMMAND.search(out)
    assert "\\" not in out
