"""Build a `Drill` from its parts; the starter file is derived from the signature."""

from __future__ import annotations

import re

from .model import Drill


def starter_source(name: str, title: str, signature: str, doc: str, imports: str) -> str:
    return (
        f'"""Drill {name}: {title}.\n\nCheck it with: posenc drill check {name} <this file>\n"""\n\n'
        f"{imports}\n\n\ndef {signature}:\n"
        f'    """{doc}"""\n'
        "    raise NotImplementedError\n"
    )


def drill(
    *,
    name: str,
    topic: str,
    difficulty: int,
    minutes: int,
    signature: str,
    doc: str,
    title: dict[str, str],
    statement: dict[str, str],
    hints: tuple[dict[str, str], ...],
    solution: str,
    imports: str = "import torch",
) -> Drill:
    function = signature.split("(", 1)[0]
    # A blank line before each Chinese bullet: the app joins CJK soft line breaks, which must not glue a
    # bullet onto the line above.
    statement = {**statement, "zh": re.sub(r"\n(?=- )", "\n\n", statement["zh"])}
    return Drill(
        name=name,
        topic=topic,
        difficulty=difficulty,
        function=function,
        title=title,
        statement=statement,
        hints=hints,
        starter=starter_source(name, title["en"], signature, doc, imports),
        solution=solution,
        minutes=minutes,
    )
