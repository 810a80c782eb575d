"""A tiny, safe evaluator for the arithmetic people type as a numeric answer: `2^-8`, `2**-8`,
`1/(2*128)`, `3 × 10^4`, `(1 - 0.5) * 4`.

Numbers (`12`, `.5`, `1e-4`), `+ - * / × ÷`, powers `^` or `**` (right-associative, binding tighter
than a sign: `-2^2` is -4; the exponent may carry one sign: `2^-8`), parentheses. One sign at most in a
row (`--1` is refused), at most 100 characters and 20 levels of parentheses, an exponent of at most
1000 in size. Nothing else: no names, no calls; it never uses `eval`. Errors are ValueError with a
short, user-facing message.
"""

from __future__ import annotations

import math
import re

__all__ = ["MAX_LENGTH", "evaluate"]

MAX_LENGTH = 100
MAX_DEPTH = 20
MAX_EXPONENT = 1000.0

_TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|(\*\*|[-+*/^()×÷]))")


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"unexpected {text[pos:].strip()[:1]!r}")
        tokens.append(m.group(1) or {"×": "*", "÷": "/"}.get(m.group(2), m.group(2)))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

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
        raise ValueError(f"unexpected {token!r}")


def evaluate(text: str) -> float:
    """The value of the arithmetic in `text` (see the module doc); ValueError when it is not one."""
    if len(text) > MAX_LENGTH:
        raise ValueError(f"at most {MAX_LENGTH} characters")
    tokens = _tokens(text)
    if not tokens:
        raise ValueError("enter a number")
    parser = _Parser(tokens)
    value = parser.expr()
    if parser.peek() is not None:
        raise ValueError(f"unexpected {parser.peek()!r}")
    if not math.isfinite(value):
        raise ValueError("the result is not a finite number")
    return value
