"""Command palette (Ctrl+P): jump to any question (by id or text), topic or demo.

Registered on the app with `COMMANDS = App.COMMANDS | {PosencCommands}`. Candidates are bank text,
so they are shown as plain `Content` (never parsed as markup) with the fuzzy-matched characters
highlighted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from .i18n import demo_title, tr

__all__ = ["PosencCommands", "search_targets"]

MAX_PROMPT = 56  # fuzzy matching cost grows with the candidate length


def _short(text: str, limit: int = MAX_PROMPT) -> str:
    from .richtext import plain

    flat = plain(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def search_targets(app: Any) -> Iterator[tuple[str, str, str, Callable[[], None]]]:
    """Every jump target as (kind, label, help, callback); kind is "topic", "question" or "demo"."""
    lang = app.language
    bankset = app.bankset
    if bankset is not None:
        for topic in bankset.topics:
            title = _short(topic.title.get(lang))
            yield (
                "topic",
                f"{title}  ({topic.id})",
                tr("palette.browse_topic", lang),
                partial(app.open_topic, topic.id),
            )
        for qid, question in bankset.questions.items():
            yield (
                "question",
                f"{qid}  {_short(question.prompt.get(lang))}",
                tr("palette.open_question", lang, id=qid),
                partial(app.open_question, qid),
            )
    try:
        from posenc_ref.demos import list_demos

        demos = list_demos()
    except Exception:
        demos = []
    for demo in demos:
        yield (
            "demo",
            f"{demo.name}  {demo_title(demo, lang)}",
            tr("palette.open_demo", lang),
            partial(app.open_demo, demo.name),
        )


def _highlight(matcher: Any, text: str) -> Content:
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if not score:
        return content
    for offset in offsets:
        if not text[offset].isspace():
            content = content.stylize("bold $text-accent underline", offset, offset + 1)
    return content


class PosencCommands(Provider):
    """Questions, topics and demos for the command palette."""

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for n, (kind, label, help_text, callback) in enumerate(search_targets(self.app)):
            if n % 32 == 31:
                await asyncio.sleep(0)  # let the UI breathe between batches
            score = matcher.match(label)
            if score > 0:
                prefix = tr(f"search.{kind}", self.app.language)
                yield Hit(
                    score,
                    Content.assemble((f"{prefix}: ", "dim"), _highlight(matcher, label)),
                    callback,
                    text=label,
                    help=help_text,
                )

    async def discover(self) -> Hits:
        for kind, label, help_text, callback in search_targets(self.app):
            if kind != "question":
                prefix = tr(f"search.{kind}", self.app.language)
                yield DiscoveryHit(
                    Content.assemble((f"{prefix}: ", "dim"), Content(label)),
                    callback,
                    text=label,
                    help=help_text,
                )
