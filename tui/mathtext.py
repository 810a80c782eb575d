"""LaTeX math in bank text -> readable Unicode for the terminal.

Bank text writes math between ``$...$`` (inline) or ``$$...$$`` (display). Terminals cannot
typeset it, so each span is flattened to Unicode: ``\\theta_i = 10000^{-2i/d}`` becomes
``θᵢ = 10000^(-2i/d)``, ``\\langle q, k \\rangle`` becomes ``⟨q, k⟩`` and ``\\frac{a}{b}``
becomes ``a/b``.

The structural work (fractions, roots, accents, sub/superscripts, \\mathbb and friends) is done
by `flatlatex <https://pypi.org/project/flatlatex/>`_. Around it:

* a pre-pass rewrites what flatlatex does not know (``\\text{}``, ``\\operatorname{}``,
  ``\\left``/``\\right``, matrices, ``\\underbrace``, ``\\langle``, ``\\top``, ``\\le``, function
  names such as ``\\cos``) and substitutes plain symbol commands from flatlatex's own symbol
  table, so the spaces around them survive;
* extended sub/superscript tables (flatlatex has no ``ₘ``/``ₙ``/``ₖ``...);
* a post-pass that turns any command still left raw into its fallback symbol or bare name, so a
  backslash command never reaches the screen.

Nothing here imports textual; `convert_math` and `latex_to_unicode` are pure functions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

__all__ = ["MathSpan", "convert_math", "latex_to_unicode", "split_math"]

# Symbols flatlatex lacks (or renders in a way that reads badly in a terminal).
FALLBACK_SYMBOLS: dict[str, str] = {
    "langle": "⟨",
    "rangle": "⟩",
    "lVert": "‖",
    "rVert": "‖",
    "Vert": "‖",
    "lvert": "|",
    "rvert": "|",
    "vert": "|",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "ne": "≠",
    "neq": "≠",
    "to": "→",
    "gets": "←",
    "top": "T",  # q^\top -> qᵀ
    "intercal": "T",
    "dagger": "†",
    "prime": "′",
    "lfloor": "⌊",
    "rfloor": "⌋",
    "lceil": "⌈",
    "rceil": "⌉",
    "ldots": "…",
    "dots": "…",
    "cdots": "⋯",
    "vdots": "⋮",
    "ddots": "⋱",
    "iff": "⇔",
    "implies": "⇒",
    "odot": "⊙",
    "otimes": "⊗",
    "oplus": "⊕",
    "propto": "∝",
    "approx": "≈",
    "sim": "∼",
    "simeq": "≃",
    "equiv": "≡",
    "cdot": "·",
    "times": "×",
    "div": "÷",
    "pm": "±",
    "mp": "∓",
    "infty": "∞",
    "partial": "∂",
    "nabla": "∇",
    "in": "∈",
    "notin": "∉",
    "sum": "∑",
    "prod": "∏",
    "int": "∫",
    "mid": "|",
    "ell": "ℓ",
    "circ": "∘",
    "bullet": "•",
    "star": "⋆",
    "ast": "∗",
    "emptyset": "∅",
    "forall": "∀",
    "exists": "∃",
    "neg": "¬",
    "land": "∧",
    "lor": "∨",
    "cap": "∩",
    "cup": "∪",
    "subset": "⊂",
    "subseteq": "⊆",
    "rightarrow": "→",
    "leftarrow": "←",
    "Rightarrow": "⇒",
    "Leftarrow": "⇐",
    "leftrightarrow": "↔",
    "mapsto": "↦",
    "ll": "≪",
    "gg": "≫",
    "lbrace": "{",
    "rbrace": "}",
    "backslash": "∖",
    "setminus": "∖",
    "hbar": "ℏ",
    "Re": "Re",
    "Im": "Im",
    "triangleq": "≜",
    "coloneqq": "≔",
    "angle": "∠",
    "perp": "⊥",
    "parallel": "∥",
}

# Upright function names: \cos x -> "cos x".
FUNCTION_NAMES = (
    "sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh log ln lg exp max min argmax argmin "
    "arg sup inf lim det dim ker deg gcd mod bmod softmax sign sgn diag tr rank Pr"
).split()

# Text-like wrappers whose argument is shown as-is.
TEXT_COMMANDS = (
    "text textrm textnormal textup mathrm operatorname mbox textsf mathsf texttt mathtt textit textbf emph"
).split()
BOLD_COMMANDS = ("bm", "boldsymbol", "bsymbol", "mathbold")
DROP_WITH_ARG = ("hspace", "vspace", "hspace*", "label", "tag", "phantom", "hphantom", "vphantom")
SIZE_COMMANDS = (
    "left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr middle displaystyle "
    "textstyle scriptstyle limits nolimits"
).split()
# \quad becomes em spaces (U+2003), which the final whitespace clean-up leaves alone.
SPACES = {
    ",": " ",
    ";": " ",
    ":": " ",
    "!": "",
    " ": " ",
    "quad": "\u2003",
    "qquad": "\u2003\u2003",
    "enspace": " ",
}

SUBSCRIPTS = {
    **dict(zip("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎", strict=True)),
    **dict(zip("aehijklmnoprstuvx", "ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)),
    **dict(zip("βγρφχ", "ᵦᵧᵨᵩᵪ", strict=True)),
}
SUPERSCRIPTS = {
    **dict(zip("0123456789+-=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾", strict=True)),
    **dict(zip("abcdefghijklmnoprstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ", strict=True)),
    **dict(zip("ABDEGHIJKLMNOPRTUVW", "ᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ", strict=True)),
    **dict(zip("αβγδθιφχ", "ᵅᵝᵞᵟᶿᶥᵠᵡ", strict=True)),
    "′": "′",
    "*": "*",
    "∗": "*",
}
ENVIRONMENT_BRACKETS = {
    "pmatrix": ("(", ")"),
    "bmatrix": ("[", "]"),
    "Bmatrix": ("{", "}"),
    "vmatrix": ("|", "|"),
    "Vmatrix": ("‖", "‖"),
    "matrix": ("", ""),
    "smallmatrix": ("", ""),
    "cases": ("{ ", ""),
    "array": ("", ""),
    "aligned": ("", ""),
    "align": ("", ""),
    "align*": ("", ""),
    "gathered": ("", ""),
    "split": ("", ""),
    "equation": ("", ""),
    "equation*": ("", ""),
}

_COMMAND_RE = re.compile(r"\\([A-Za-z]+\*?)")
# A command and the spaces after it (TeX ignores them), plus a peek at the next character.
_COMMAND_WS_RE = re.compile(r"\\([A-Za-z]+\*?)([ \t\n]*)(?=(.?))", re.S)
# Symbols that read best with a space either side ("a ≤ b", "x ∈ ℝ").
SPACED_SYMBOLS = set("=<>±∓·×÷≤≥≠≈≡∼≃∝→←⇒⇐⇔↔↦∈∉⊂⊆∩∪⊗⊕⊙∘≪≫≜≔")
_OPERATOR_CHARS = set("+-=<>/,;:|·×≤≥≠≈ ")


def _transliterate(text: str, table: dict[str, str]) -> str | None:
    """Map every character through `table`, or None if any has no sub/superscript form."""
    out = []
    for ch in text:
        mapped = table.get(ch)
        if mapped is None:
            return None
        out.append(mapped)
    return "".join(out)


def _needs_parens(text: str) -> bool:
    """True if `text` has an operator or space outside any brackets (so `a+b` but not `f(a+b)`)."""
    depth = 0
    for ch in text:
        if ch in "([{⟨":
            depth += 1
        elif ch in ")]}⟩":
            depth -= 1
        elif depth == 0 and ch in _OPERATOR_CHARS:
            return True
    return False


def _wrapped(text: str) -> bool:
    """True if text is one bracketed group such as `(p, 2i)`."""
    if len(text) < 2 or text[0] != "(" or text[-1] != ")":
        return False
    return not _needs_parens(text) and _matching_paren(text) == len(text) - 1


def _matching_paren(text: str) -> int:
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _group(text: str) -> str:
    return text if len(text) == 1 or _wrapped(text) else f"({text})"


@lru_cache(maxsize=1)
def _converter():
    """A flatlatex converter with readable sub/superscripts (built once, on first use)."""
    import flatlatex
    from flatlatex import data as flat_data

    class ReadableConverter(flatlatex.converter):
        # flatlatex calls these through name-mangled private names; overriding them here keeps
        # its parser and symbol tables while using fuller Unicode tables and lighter brackets.
        def _converter__indexed(self, base: str, sub: str) -> str:
            if _needs_parens(base):
                base = f"({base})"
            mapped = _transliterate(sub.replace(" ", ""), SUBSCRIPTS)
            if mapped is not None and sub:
                return base + mapped
            return f"{base}_{_group(sub)}"

        def _converter__exponent(self, base: str, sup: str) -> str:
            if _needs_parens(base):
                base = f"({base})"
            mapped = _transliterate(sup.replace(" ", ""), SUPERSCRIPTS)
            if mapped is not None and sup:
                return base + mapped
            return f"{base}^{_group(sup)}"

        def _converter__latexfun_frac(self, inputs: list[str]) -> str:
            num, den = inputs
            known = flat_data.known_fracts.get((num, den))
            if known:
                return known
            num = f"({num})" if _needs_parens(num) else num
            den = f"({den})" if _needs_parens(den) else den
            return f"{num}/{den}"

        def _converter__latexfun_sqrt(self, inputs: list[str]) -> str:
            arg = inputs[0]
            return f"√({arg})" if _needs_parens(arg) else f"√{arg}"

    conv = ReadableConverter(keep_spaces=True)

    symbols = {name[1:]: value for name, value in flat_data.symbols.items() if name.startswith("\\")}
    return conv, symbols


def _matching_brace(text: str, open_index: int) -> int:
    """Index of the `}` that closes the `{` at open_index, or -1."""
    depth = 0
    i = open_index
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _replace_command_with_arg(text: str, names: tuple[str, ...] | list[str], fn: Callable[[str], str]) -> str:
    """Replace `\\name{arg}` (balanced braces) by fn(arg) for each name."""
    pattern = re.compile(r"\\(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z])\s*\{")
    out: list[str] = []
    pos = 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            out.append(text[pos:])
            return "".join(out)
        close = _matching_brace(text, m.end() - 1)
        if close < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos : m.start()])
        out.append(fn(text[m.end() : close]))
        pos = close + 1


def _rewrite_environments(text: str) -> str:
    env_re = re.compile(r"\\begin\{([A-Za-z*]+)\}(?:\{[^}]*\})?(.*?)\\end\{\1\}", re.S)

    def repl(m: re.Match[str]) -> str:
        name, body = m.group(1), m.group(2)
        left, right = ENVIRONMENT_BRACKETS.get(name, ("", ""))
        rows = [r.strip() for r in re.split(r"\\\\(?:\[[^\]]*\])?", body) if r.strip()]
        cell_sep = ", " if name.endswith("matrix") else " "
        rendered = "; ".join(cell_sep.join(c.strip() for c in row.split("&")) for row in rows)
        return f"{left}{rendered}{right}"

    prev = None
    while prev != text:  # nested environments: innermost first
        prev = text
        text = env_re.sub(repl, text)
    return text


def _drop_brace_labels(text: str) -> str:
    """`\\underbrace{X}_{label}` -> `{X}`: the label cannot be drawn under X in a terminal."""
    pattern = re.compile(r"\\(underbrace|overbrace)(?![A-Za-z])\s*\{")
    while (m := pattern.search(text)) is not None:
        close = _matching_brace(text, m.end() - 1)
        if close < 0:
            return text[: m.start()] + text[m.end() - 1 :]
        end = close + 1
        label = re.match(r"\s*[_^]\s*", text[end:])
        if label:
            start = end + label.end()
            if start < len(text) and text[start] == "{":
                label_close = _matching_brace(text, start)
                end = label_close + 1 if label_close > 0 else start
            else:
                end = start + 1
        text = text[: m.start()] + text[m.end() - 1 : close + 1] + text[end:]
    return text


def _protect_text(arg: str) -> str:
    # Text arguments are literal: escape characters flatlatex would treat as structure.
    return "{" + arg.replace("_", "\\_").replace("^", "\\^") + "}"


def _prepare(expr: str) -> str:
    """Rewrite what flatlatex does not handle into forms it does (or into final Unicode)."""
    text = expr
    text = _rewrite_environments(text)
    text = text.replace("\\\\", "; ")
    text = _replace_command_with_arg(text, DROP_WITH_ARG, lambda _arg: " ")
    text = _drop_brace_labels(text)
    text = _replace_command_with_arg(text, TEXT_COMMANDS, _protect_text)
    text = _replace_command_with_arg(text, BOLD_COMMANDS, lambda arg: "\\mathbf{" + arg + "}")
    text = re.sub(r"\\[dt]frac(?![A-Za-z])", r"\\frac", text)
    text = re.sub(r"\\(" + "|".join(SIZE_COMMANDS) + r")(?![A-Za-z])\s*", "", text)
    text = text.replace("\\{", "⦃").replace("\\}", "⦄")  # restored after conversion
    text = text.replace("\\|", "‖").replace("\\_", "_").replace("\\%", "%").replace("\\#", "#")
    text = text.replace("\\&", "&").replace("\\$", "$")
    text = re.sub(
        r"\\(quad|qquad|enspace)(?![A-Za-z])|\\([,;:! ])", lambda m: SPACES[m.group(1) or m.group(2)], text
    )
    text = text.replace("~", " ")
    _conv, symbols = _converter()

    def command(m: re.Match[str]) -> str:
        name, spaces, following = m.group(1), m.group(2), m.group(3)
        if name in FUNCTION_NAMES:
            return name + (" " if following.isalnum() or following == "\\" else "")
        symbol = FALLBACK_SYMBOLS.get(name) or symbols.get(name)
        if symbol is None:
            return m.group(0)  # structural command (\frac, \hat, ...): flatlatex's job
        if symbol in SPACED_SYMBOLS:
            return f" {symbol} "
        return symbol + spaces

    return _COMMAND_WS_RE.sub(command, text)


def _finish(text: str) -> str:
    """Last pass: nothing that looks like a LaTeX command may survive."""

    def command(m: re.Match[str]) -> str:
        name = m.group(1)
        return FALLBACK_SYMBOLS.get(name, name)

    text = _COMMAND_RE.sub(command, text)
    text = text.replace("\\", "")
    text = text.replace("⦃", "{").replace("⦄", "}")
    text = re.sub(r"[ \t\n]+", " ", text)
    text = re.sub(r"([⟨⌊⌈(\[{]) ", r"\1", text)
    text = re.sub(r" ([⟩⌋⌉)\]}])", r"\1", text)
    text = re.sub(r"‖ ?([^‖]*?) ?‖", r"‖\1‖", text)
    text = re.sub(r"\( ", "(", text)
    return unicodedata.normalize("NFC", text.strip())


def _simple_fallback(prepared: str) -> str:
    """Used when flatlatex rejects the input: strip braces, keep the symbols already substituted."""
    text = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", prepared)
    text = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)", text)
    text = text.replace("{", "").replace("}", "")
    return text


@lru_cache(maxsize=4096)
def latex_to_unicode(expr: str) -> str:
    """Convert one LaTeX math expression (without the `$` delimiters) to readable Unicode."""
    prepared = _prepare(expr)
    conv, _symbols = _converter()
    try:
        flat = conv.convert(prepared)
    except Exception:  # noqa: BLE001 - flatlatex raises its own syntax errors (and the odd IndexError)
        flat = _simple_fallback(prepared)
    return _finish(flat)


class MathSpan(str):
    """A piece of text produced from a math span; `display` is True for `$$...$$`."""

    display: bool

    def __new__(cls, value: str, display: bool = False) -> MathSpan:
        obj = super().__new__(cls, value)
        obj.display = display
        return obj


# $$...$$ first, then $...$ with pandoc's rule: no space just inside the dollars and the closing
# dollar not followed by a digit (so "costs $5 and $6" stays text). \$ is a literal dollar.
_MATH_RE = re.compile(
    r"(?<!\\)\$\$(?P<display>.+?)(?<!\\)\$\$"
    r"|(?<![\\$])\$(?P<inline>[^\s$](?:[^$]*?[^\s$\\])?)\$(?![\d$])",
    re.S,
)


def split_math(text: str) -> list[str | MathSpan]:
    """Split text into plain strings and converted `MathSpan` pieces, in order."""
    parts: list[str | MathSpan] = []
    pos = 0
    for m in _MATH_RE.finditer(text):
        if m.start() > pos:
            parts.append(text[pos : m.start()].replace("\\$", "$"))
        if m.group("display") is not None:
            parts.append(MathSpan(latex_to_unicode(m.group("display").strip()), display=True))
        else:
            parts.append(MathSpan(latex_to_unicode(m.group("inline")), display=False))
        pos = m.end()
    if pos < len(text):
        parts.append(text[pos:].replace("\\$", "$"))
    return parts


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")


def _markdown_escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def convert_math(text: str, *, markdown: bool = False) -> str:
    """Replace every `$...$` / `$$...$$` span in `text` by its Unicode form.

    With `markdown=True` the result is meant for a Markdown renderer: converted math is
    backslash-escaped so `*` or `_` in a formula are not read as emphasis, and a display
    formula on its own line becomes an indented block of its own.
    """
    if "$" not in text:
        return text
    out: list[str] = []
    for part in split_math(text):
        if isinstance(part, MathSpan):
            if not markdown:
                out.append(str(part))
            elif part.display:
                out.append(f"\n\n> {_markdown_escape(str(part))}\n\n")
            else:
                out.append(_markdown_escape(str(part)))
        else:
            out.append(part)
    result = "".join(out)
    if markdown:
        result = re.sub(r"\n{3,}", "\n\n", result)
    return result
