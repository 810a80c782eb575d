"""YAML indentation mistakes said as such, with the lines around them (for quizbank.yamlsafe).

libyaml reports a line that does not line up with its block as "did not find expected key", "did not find
expected '-' indicator" or "expected <block end>", and a key pushed under a `key: value` line as "mapping
values are not allowed". `indentation_error` turns those into one `YAML indentation error: ...` line
(which line, how many spaces, what lines up with what) and an excerpt printed under it
(`Problem.excerpt`): the line above, the line itself (marked `>`) and the line below, numbered as an
editor numbers them.
"""

from __future__ import annotations

__all__ = ["indentation_error"]

# What libyaml says when a line does not line up with the block it should belong to.
_BLOCK_PROBLEMS = ("did not find expected key", "did not find expected '-' indicator", "expected <block end>")


def indentation_error(problem: str, data: bytes, mark: tuple[int, int]) -> tuple[str, str] | None:
    """An indentation mistake said as one: (the message, the lines above and below); None for other errors.

    A block-structure error at the first character of a line is a line that does not line up with its
    siblings. "mapping values are not allowed" on a line indented deeper than a `key: value` line above it
    is a key pushed under a value (or text with ': ' that continues on that line)."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line starts no line of its own
    number, col = mark
    if not 0 < number <= len(lines):
        return None
    line = lines[number - 1]
    if line.strip() == "":
        return None
    here = len(line) - len(line.lstrip(" "))
    above = next(
        (
            (i + 1, text)
            for i in range(number - 2, -1, -1)
            if (text := lines[i]).strip() and not text.lstrip().startswith("#")
        ),
        None,
    )
    if above is None or line[here : here + 1] == "\t":
        return None
    item, item_above = line[here:].startswith("- "), above[1].lstrip(" ").startswith("- ")
    raw_prev = len(above[1]) - len(above[1].lstrip(" "))
    # a key lines up with the key after the '- ' of an item above it, an item with the '-'
    prev = raw_prev + (len(above[1][raw_prev:]) - len(above[1][raw_prev:].lstrip("- ")) if not item else 0)
    if any(problem.startswith(p) for p in _BLOCK_PROBLEMS) and col == here + 1:
        if here == raw_prev and item != item_above:
            detail = (
                f"line {number} lines up with line {above[0]} above it ({_spaces(here)}), but one is a '-' "
                "list item and the other a key; a key of the mapping that holds the list goes left of the "
                "'-', a key of an item's own mapping lines up with the text after '- '"
            )
        else:
            detail = (
                f"line {number} is indented {_spaces(here)}, line {above[0]} above it {_spaces(prev)}; keys of "
                "one mapping (and the '-' items of one list) start in the same column"
            )
    elif problem.startswith("mapping values are not allowed") and here > prev and _has_value(above[1]):
        detail = (
            f"line {number} is indented {_spaces(here)}, deeper than line {above[0]} ({prev}), which already "
            "has its value; line it up with the key above (or, if it continues that text, quote the text: "
            "it contains ': ')"
        )
    else:
        return None
    return f"YAML indentation error: {detail}", _excerpt(lines, number)


def _spaces(n: int) -> str:
    return f"{n} space{'' if n == 1 else 's'}"


def _has_value(line: str) -> bool:
    """`key: value` or `- value` (not `key:` or `-`, which open a block below them)."""
    text = line.split(" #", 1)[0].rstrip()
    if text.lstrip().startswith("- ") and ":" not in text:
        return True
    key, sep, value = text.partition(": ")
    return bool(sep) and value.strip() not in ("", "|", ">", "|-", ">-", "|+", ">+")


def _excerpt(lines: list[str], number: int) -> str:
    """The line `number` (marked) with the lines above and below it, numbered as an editor does."""
    shown = range(max(1, number - 1), min(len(lines), number + 1) + 1)
    width = len(str(shown[-1]))
    return "\n".join(f"{'>' if n == number else ' '} {n:>{width}} | {lines[n - 1].rstrip()}" for n in shown)
