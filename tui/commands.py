"""Command palette (Ctrl+P): the app's own actions first (with their keys), then jump to any
question (by id or text), topic or demo.

Registered on the app with `COMMANDS = App.COMMANDS | {PosencCommands}`. Candidates are bank text,
so they are shown as plain `Content` (never parsed as markup) with the fuzzy-matched characters
highlighted.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from .appref import posenc_app
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
    except Exception:  # noqa: BLE001 - the palette lists what it can
        demos = []
    for demo in demos:
        yield (
            "demo",
            f"{demo.name}  {demo_title(demo, lang)}",
            tr("palette.open_demo", lang),
            partial(app.open_demo, demo.name),
        )


# The app's own actions, listed first: (label key, help key, key shown, what it calls). A
# callable name that the app does not have (yet) is left out.
APP_COMMANDS: tuple[tuple[str, str, str, str], ...] = (
    ("key.quiz", "palette.quiz", "z", "open_quiz_setup"),
    ("key.study", "palette.study", "s", "open_study"),
    ("key.mock", "palette.mock", "m", "_open_mock"),
    ("key.drills", "palette.drills", "c", "open_drills"),
    ("key.export", "palette.export", "", "open_export"),
    ("key.switch_language", "palette.language", "l", "action_toggle_language"),
    ("key.demo_lab", "palette.demo_lab", "d", "open_demo"),
    ("key.stats", "palette.stats", "t", "open_stats"),
    ("key.glossary", "palette.glossary", "", "_open_glossary"),
    ("key.search", "palette.search", "/", "action_search"),
    ("key.reload", "palette.reload", "r", "action_reload"),
    ("key.help", "palette.help", "?", "action_help"),
)
APP_COMMAND_BOOST = 1.0  # added to a fuzzy score (0..1): the app's actions rank above Textual's


def command_targets(app: Any) -> Iterator[tuple[str, str, str, Callable[[], None]]]:
    """The app's actions the palette runs directly, as (kind, label, help, callback); the label
    carries the action's key."""
    lang = app.language
    for label_key, help_key, key, name in APP_COMMANDS:
        if name == "_open_mock":
            callback: Callable[[], None] | None = partial(_open_mock, app)
        elif name == "_open_glossary":
            callback = partial(_open_glossary, app)
        else:
            method = getattr(app, name, None)
            callback = method if callable(method) else None
        if callback is None:
            continue
        label = tr(label_key, lang) + (f"  [{key}]" if key else "")
        yield ("command", label, tr(help_key, lang), callback)


def drill_targets(app: Any) -> Iterator[tuple[str, str, str, Callable[[], None]]]:
    """Each coding drill as a jump target (searched, not listed on an empty query)."""
    open_drills = getattr(app, "open_drills", None)
    if not callable(open_drills):
        return
    from quizbank.drills import drills

    lang = app.language
    for drill in drills():
        yield (
            "drill",
            f"{drill.name}  {drill.text('title', lang)}",
            tr("palette.open_drill", lang),
            partial(open_drills, drill.name),
        )


def _open_mock(app: Any) -> None:
    if app.require_banks():
        from .screens.mock import MockSetupScreen

        app.push_screen(MockSetupScreen())


def _open_glossary(app: Any) -> None:
    from .screens.glossary import GlossaryScreen

    app.push_screen(GlossaryScreen())


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
        targets = itertools.chain(
            command_targets(self.app), search_targets(self.app), drill_targets(self.app)
        )
        for n, (kind, label, help_text, callback) in enumerate(targets):
            if n % 32 == 31:
                await asyncio.sleep(0)  # let the UI breathe between batches
            score = matcher.match(label)
            if score > 0:
                prefix = tr(f"search.{kind}", posenc_app(self).language)
                yield Hit(
                    score + (APP_COMMAND_BOOST if kind == "command" else 0.0),
                    Content.assemble((f"{prefix}: ", "dim"), _highlight(matcher, label)),
                    callback,
                    text=label,
                    help=help_text,
                )

    async def discover(self) -> Hits:
        targets = itertools.chain(command_targets(self.app), search_targets(self.app))
        for kind, label, help_text, callback in targets:
            if kind == "command":  # a positive score puts them above every provider's discovery hits
                yield Hit(
                    APP_COMMAND_BOOST,
                    Content.assemble(
                        (f"{tr('search.command', posenc_app(self).language)}: ", "dim"), Content(label)
                    ),
                    callback,
                    text=label,
                    help=help_text,
                )
            elif kind != "question":
                prefix = tr(f"search.{kind}", posenc_app(self).language)
                yield DiscoveryHit(
                    Content.assemble((f"{prefix}: ", "dim"), Content(label)),
                    callback,
                    text=label,
                    help=help_text,
                )
