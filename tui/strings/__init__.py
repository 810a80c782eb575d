"""Every user-interface string, English and Chinese: `key: (english, chinese)`, one module per area of the app
(`common`, `bindings`, `home`, `quiz`, `browse`, `lab`, `help`, `search`, `mock`, `drill`, `stats`, `study`),
assembled here into the one table `STRINGS`.

Data only: `tui.i18n.tr` looks keys up here. Screens never add strings of their own at import, so the
table is whole whichever screens were imported (tests/tui/test_i18n.py checks every key the code names).
A key belongs to one area: one defined in two is an error at import (`assemble`).
"""

from __future__ import annotations

from collections.abc import Mapping

from . import bindings, browse, common, drill, help, home, lab, mock, quiz, search, stats, study

__all__ = ["AREAS", "STRINGS", "assemble"]

AREAS: dict[str, dict[str, tuple[str, str]]] = {
    "common": common.STRINGS,
    "bindings": bindings.STRINGS,
    "home": home.STRINGS,
    "quiz": quiz.STRINGS,
    "browse": browse.STRINGS,
    "lab": lab.STRINGS,
    "help": help.STRINGS,
    "search": search.STRINGS,
    "mock": mock.STRINGS,
    "drill": drill.STRINGS,
    "stats": stats.STRINGS,
    "study": study.STRINGS,
}


def assemble(areas: Mapping[str, Mapping[str, tuple[str, str]]]) -> dict[str, tuple[str, str]]:
    """One table of the areas' strings, in area order; a key that two areas define raises ValueError."""
    table: dict[str, tuple[str, str]] = {}
    area_of: dict[str, str] = {}
    for area, strings in areas.items():
        twice = sorted(f"{key} ({area_of[key]}, {area})" for key in strings if key in area_of)
        if twice:
            raise ValueError(f"UI string keys defined in two areas: {', '.join(twice)}")
        table.update(strings)
        area_of.update(dict.fromkeys(strings, area))
    return table


STRINGS = assemble(AREAS)
