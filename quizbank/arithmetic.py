"""A tiny, safe evaluator for the arithmetic people type as a numeric answer: `2^-8`, `2**-8`,
`1/(2*128)`, `3 × 10^4`, `(1 - 0.5) * 4`.

Numbers (`12`, `.5`, `1e-4`), `+ - * / × ÷`, powers `^` or `**` (right-associative, binding tighter
than a sign: `-2^2` is -4; the exponent may carry one sign: `2^-8`), parentheses. One sign at most in a
row (`--1` is refused), at most 100 characters and 20 levels of parentheses, an exponent of at most
1000 in size. Nothing else: no calls; it never uses `eval`. Errors are ValueError with a short,
user-facing message.

Names are read only where the caller gives them (`names=`): a generated question's bound may be
`dim/2 - 1` over the parameters drawn before it (quizbank/generated/draw.py). A typed answer has no names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

__all__ = ["MAX_LENGTH", "check_syntax", "evaluate", "names_in"]

MAX_LENGTH = 100
MAX_DEPTH = 20
MAX_EXPONENT = 1000.0

_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|(\*\*|[-+*/^()×÷]))")
_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")


def _tokens(text: str, with_names: bool = False) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None and with_names:
            m = _NAME.match(text, pos)
        if m is None:
            raise ValueError(f"unexpected {text[pos:].strip()[:1]!r}")
        tokens.append(m.group(1) or {"×": "*", "÷": "/"}.get(m.group(2), m.group(2)))
        pos = m.end()
    return tokens


def _is_name(token: str) -> bool:
    return token[0].isalpha() or token[0] == "_"


class _Parser:
    """Recursive descent over the tokens. `dry` checks the grammar only: names need no value and
    nothing is computed (a later value may make a division or a power fail; the draw says so)."""

    def __init__(
        self, tokens: list[str], names: Mapping[str, float] | None = None, dry: bool = False
    ) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.names = names
        self.dry = dry

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ValueError("the expression ends too early")
        self.pos += 1
        return token

    def expr(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self) -> float:
        value = self.signed()
        while self.peek() in ("*", "/"):
            op = self.take()
            right = self.signed()
            if self.dry:
                continue
            if op == "*":
                value *= right
            elif right == 0:
                raise ValueError("division by zero")
            else:
                value /= right
        return value

    def signed(self) -> float:
        if self.peek() in ("+", "-"):
            sign = -1.0 if self.take() == "-" else 1.0
            if self.peek() in ("+", "-"):
                raise ValueError("two signs in a row")
            return sign * self.power()
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.peek() in ("^", "**"):
            self.take()
            exponent = self.signed()  # right-associative: 2^3^2 = 2^9
            if self.dry:
                return 1.0
            if abs(exponent) > MAX_EXPONENT:
                raise ValueError("exponent too large")
            try:
                result = math.pow(base, exponent)
            except (OverflowError, ValueError):
                raise ValueError("the power has no finite real value") from None
            return result
        return base

    def atom(self) -> float:
        token = self.take()
        if token == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ValueError("too many parentheses")
            value = self.expr()
            if self.take() != ")":
                raise ValueError("a parenthesis is not closed")
            self.depth -= 1
            return value
        if token[0].isdigit() or token[0] == ".":
            return float(token)
        if _is_name(token) and self.dry:
            return 1.0
        if _is_name(token) and self.names is not None:
            if token not in self.names:
                raise ValueError(f"unknown name {token!r}")
            return float(self.names[token])
        raise ValueError(f"unexpected {token!r}")


def _parse(text: str, names: Mapping[str, float] | None, dry: bool) -> float:
    if len(text) > MAX_LENGTH:
        raise ValueError(f"at most {MAX_LENGTH} characters")
    tokens = _tokens(text, with_names=names is not None or dry)
    if not tokens:
        raise ValueError("enter a number")
    parser = _Parser(tokens, names, dry)
    value = parser.expr()
    if parser.peek() is not None:
        raise ValueError(f"unexpected {parser.peek()!r}")
    if not dry and not math.isfinite(value):
        raise ValueError("the result is not a finite number")
    return value


def evaluate(text: str, names: Mapping[str, float] | None = None) -> float:
    """The value of the arithmetic in `text` (see the module doc); ValueError when it is not one.
    `names` gives the value of each name the text may use (none without it)."""
    return _parse(text, names, dry=False)


def check_syntax(text: str) -> None:
    """ValueError when `text` is not an expression over numbers and names (nothing is computed)."""
    _parse(text, None, dry=True)


def names_in(text: str) -> list[str]:
    """The names an expression uses, in order, without repeats ([] when it does not tokenize)."""
    try:
        tokens = _tokens(text, with_names=True)
    except ValueError:
        return []
    out: list[str] = []
    for token in tokens:
        if _is_name(token) and token not in out:
            out.append(token)
    return out
