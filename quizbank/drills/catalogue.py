"""The drill catalogue: every drill in catalogue order, looked up by name. No torch.

Drills are found, not listed: each package under `drills/topics/` holds a `drills.py` whose `DRILLS` tuple is
imported here (its `cases.py`, which imports torch, is not). A drill added to a topic, or a new topic package,
needs no edit here. The one hand-kept list is `FIXED_DRILL_NAMES`: the ten drills other tools grade against
first, whose names and order are part of the interface. Catalogue order is those ten, then every other drill
by topic package name and, within a topic, in its `DRILLS` order.
"""

from __future__ import annotations

from collections.abc import Iterable

from .model import Drill
from .topics import topic_modules

# The frozen interface: these names, in this order, come first (tests/quizbank/drills check the contract).
FIXED_DRILL_NAMES: tuple[str, ...] = (
    "sinusoidal-pe",
    "rope-half",
    "rope-interleaved",
    "alibi-slopes",
    "alibi-bias",
    "t5-bucket",
    "rope-attention-gqa",
    "ntk-inv-freq",
    "yarn-inv-freq",
    "llama3-inv-freq",
)


def catalogue_order(found: Iterable[Drill], fixed: tuple[str, ...] = FIXED_DRILL_NAMES) -> tuple[Drill, ...]:
    """`fixed` first, then the rest as found. ValueError for a name found twice or a fixed one missing."""
    by_name: dict[str, Drill] = {}
    for drill in found:
        if drill.name in by_name:
            raise ValueError(f"drill {drill.name!r} is defined twice")
        by_name[drill.name] = drill
    missing = [name for name in fixed if name not in by_name]
    if missing:
        raise ValueError(f"the fixed drills {missing} are defined in no topic")
    return tuple(by_name[n] for n in fixed) + tuple(d for d in by_name.values() if d.name not in fixed)


_DRILLS: tuple[Drill, ...] = catalogue_order(d for module in topic_modules("drills") for d in module.DRILLS)
_BY_NAME: dict[str, Drill] = {d.name: d for d in _DRILLS}
DRILL_NAMES: tuple[str, ...] = tuple(_BY_NAME)


def drills() -> list[Drill]:
    return list(_DRILLS)


def get_drill(name: str) -> Drill:
    """The drill called `name`; KeyError (with the valid names) otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown drill {name!r}; the drills are {', '.join(DRILL_NAMES)}") from None
