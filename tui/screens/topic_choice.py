"""The line over a setup screen's topic list (Quiz, Mock): which topics are chosen, and that the
choice came from the topic under Home's cursor, so it is never taken silently."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..i18n import tr
from ..richtext import plain

__all__ = ["topics_line"]


MAX_NAMES = 3


def topics_line(topics: Sequence[Any], selected: Collection[str], initial: Collection[str], lang: str) -> str:
    """ "Topics: RoPE, the topic under Home's cursor (1 of 14; …)" and the like, for `selected` topic ids
    among `topics` (bank topics), `initial` being what Home's cursor chose."""
    total, n = len(topics), len(selected)
    if n == total:
        return tr("topics.all", lang, total=total)
    if n == 0:
        return tr("topics.none", lang)
    titles = [plain(t.title.get(lang)) for t in topics if t.id in selected]
    names = ("、" if lang == "zh" else ", ").join(titles[:MAX_NAMES]) + ("…" if n > MAX_NAMES else "")
    key = "topics.from_home" if initial and set(selected) == set(initial) else "topics.some"
    return tr(key, lang, names=names, n=n, total=total)
