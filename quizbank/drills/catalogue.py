"""The drill catalogue: every drill in catalogue order, looked up by name. No torch."""

from __future__ import annotations

from .data.extra import EXTRA
from .data.fixed import FIXED
from .model import Drill

_DRILLS: tuple[Drill, ...] = FIXED + EXTRA
_BY_NAME: dict[str, Drill] = {d.name: d for d in _DRILLS}
DRILL_NAMES: tuple[str, ...] = tuple(d.name for d in _DRILLS)
FIXED_DRILL_NAMES: tuple[str, ...] = tuple(d.name for d in FIXED)


def drills() -> list[Drill]:
    return list(_DRILLS)


def get_drill(name: str) -> Drill:
    """The drill called `name`; KeyError (with the valid names) otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown drill {name!r}; the drills are {', '.join(DRILL_NAMES)}") from None
