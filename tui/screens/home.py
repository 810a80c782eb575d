"""Home: the topic tree (question counts, due and mastery), entry points, and load problems.

This is the first screen, so it imports only Textual. Its first paint is light (a "loading banks" line and
a footer without keys). The body (topic tree, menu, status) then comes with the topics of the cached banks'
preview (`app.bank_preview`), laid out at once (each layout of the screen costs about as much as the body's
mount), and the footer's keys right after that paint; with no preview within BODY_WAIT_S, they come without
topics, still loading. `banks_version` changes (the full bank, the progress store) refill the tree only when the banks or
the language changed: the store adds its progress columns to the rows already there.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Label, OptionList, Static, Tree
from textual.widgets.option_list import Option
from textual.widgets.tree import TreeNode

from ..appref import posenc_app
from ..cells import fit_cells, pack_items
from ..help_section import HelpSection
from ..i18n import count, tr
from ..keys import bind
from ..widgets.key_footer import KeyFooter
from ..widgets.title_bar import TitleBar
from .base import LocalizedScreen

MAX_QUESTION_LABEL = 70
MAX_TITLE_LABEL = 200  # a topic title is cut to the tree's width (`_fit_title`); this only bounds the work
QUIT_WINDOW = 3.0  # seconds within which a second `q` on Home quits
BODY_WAIT_S = 0.5  # the longest the body waits for the banks' preview after the first paint

# (menu option id, i18n label key, key hint)
MENU = (
    ("menu-quiz", "key.quiz", "z"),
    ("menu-browse", "key.browse", "b"),
    ("menu-demo", "key.demo_lab", "d"),
    ("menu-study", "key.study", "s"),
    ("menu-stats", "key.stats", "t"),
    ("menu-mock", "key.mock", "m"),
    ("menu-drills", "key.drills", "c"),
    ("menu-help", "key.help", "?"),
)


def _append_file_problems(text: Text, path: str, problems: list[Any], *, limit: int, style: str) -> None:
    """A file's path (wrapping between folders, never inside a name), then each problem as
    `line:col: message` under it, at most `limit` of them."""
    from quizbank.safetext import escape_unsafe

    text.append(f"• {escape_unsafe(str(path), one_line=True)}\n", style=style)
    for problem in problems[:limit]:
        where = f"{problem.line}:{problem.col}: " if getattr(problem, "line", 0) > 0 else ""
        warning = "warning: " if getattr(problem, "severity", "") == "warning" else ""
        text.append(f"  {where}{warning}{escape_unsafe(str(problem.message))}\n", style="dim")
        for line in str(
            getattr(problem, "excerpt", "") or ""
        ).splitlines():  # the lines around a YAML mistake
            text.append(f"    {escape_unsafe(line)}\n", style="dim")
    if len(problems) > limit:
        text.append(f"  … +{len(problems) - limit}\n", style="dim")


EXPAND_ARROW_CELLS = 2  # the tree's "▶ " before a topic


# Without these characters `richtext.plain` has no math, code, emphasis or blank to convert: a title is
# then shown as it is, and Home lists the topics without importing `tui.richtext` (~3 ms, with mathtext).
_MARKUP_CHARS = frozenset("$`*_{")


def _flat(text: str, limit: int) -> str:
    if _MARKUP_CHARS.isdisjoint(text):
        flat = text.replace("\n", " ").strip()
    else:
        from ..richtext import plain

        flat = plain(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


class HomeScreen(LocalizedScreen):
    """Topic tree and entry points. `Enter` browses a topic or opens a question."""

    HELP_SECTION = HelpSection("help.home", 10)

    CSS_PATH = Path(__file__).with_name("home.tcss")
    # The menu on the right shows these keys, so the footer leaves them out (room for the
    # global keys at 80 columns).
    BINDINGS = [
        bind("z", "quiz", "home.quiz", "key.quiz", show=False),
        bind("b", "browse", "home.browse", "key.browse", show=False),
        bind("d", "demo_lab", "home.demo_lab", "key.demo_lab", show=False),
        bind("s", "study", "home.study", "key.study", show=False),
        bind("t", "stats", "home.stats", "key.stats", show=False),
        bind("m", "mock", "home.mock", "key.mock", show=False),
        bind("c", "drills", "home.drills", "key.drills", show=False),
        bind("q", "confirm_quit", "home.quit", "key.quit_home", show=False),
    ]

    # Textual's Screen repaints all of itself when the focus moves; the focused widgets restyle themselves
    # (Focus/Blur), so Home skips that repaint, which came after the layout that lists the topics (~10 ms).
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    class ProgressReady(Message):
        """Posted by the progress worker with {topic_id: TopicProgress}."""

        def __init__(self, summary: dict[str, Any], version: int, status: Any = None) -> None:
            super().__init__()
            self.summary = summary
            self.version = version
            self.status = status  # quizbank.question_status.QuestionStatus (marks on question rows)

    def __init__(self) -> None:
        super().__init__()
        self._topics_logged = False
        self._summary: dict[str, Any] = {}
        self._quit_armed_at: float | None = None
        self._fitted_width = 0  # the topic list's width the titles were last cut to
        self._filled: tuple[Any, str] | None = None  # (bank view, language) the tree lists
        # the body's widgets, once mounted (held here: a query walks the whole screen, ~1 ms each)
        self._topic_tree: Tree[tuple[str, str | None]] | None = None
        self._topic_info: Static | None = None
        self._status_box: Static | None = None
        self._problems_box: Static | None = None
        self._menu_list: OptionList | None = None
        self._topics_title: Label | None = None
        self._body_lock = asyncio.Lock()
        self._keys_asked = False  # the footer's keys are built (or asked for: `_show_keys_after_paint`)

    def compose(self) -> ComposeResult:
        # The first paint shows only this light "loading" state; the body (tree, menu, status) and the
        # footer's keys are mounted with the topics (see `_ensure_body`).
        yield TitleBar()
        # The body's two panes are mounted in here, in the splash's place, not on the screen: a mount on the
        # screen repaints all of it once more after the layout that shows the topics (~10 ms).
        # (the splash is static: an animation would take the UI thread from the loader)
        with Horizontal(id="home-body"):
            yield Static(tr("loading.banks", posenc_app(self).language), id="splash-status", markup=False)
        yield KeyFooter(held=True)

    def _body(self) -> tuple[tuple[Vertical, Vertical], tuple[Any, ...]]:
        """The body's two panes, and their parts that change (tree, topic info, status, problems, menu, topics
        title)."""
        lang = posenc_app(self).language
        tree: Tree[tuple[str, str | None]] = Tree(Text(tr("home.topics", lang)), id="topic-tree")
        tree.show_root = False
        tree.auto_expand = False
        tree.guide_depth = 3
        menu = OptionList(
            *[Option(self._menu_label(key, hint), id=option_id) for option_id, key, hint in MENU], id="menu"
        )
        info = Static("", id="topic-info", markup=False)
        status = Static("", id="status", markup=False)
        problems = Static("", id="problems", markup=False)
        title = Label(self._columns_title(), classes="pane-title", id="topics-title")
        panes = (
            Vertical(title, tree, info, id="topics-pane"),
            Vertical(
                Label(tr("home.start", lang), classes="pane-title", id="start-title"),
                menu,
                Label(tr("home.status", lang), classes="pane-title", id="status-title"),
                VerticalScroll(status, problems, id="status-scroll"),
                id="side-pane",
            ),
        )
        return panes, (tree, info, status, problems, menu, title)

    async def _ensure_body(self) -> bool:
        """Mount the body, once; returns True if it is there. No repaint comes before the topics are in the
        tree (the caller goes on without waiting): one layout for both."""
        async with self._body_lock:  # the preview and the fallback timer may ask at once
            if self._topic_tree is not None:
                return True
            panes, parts = self._body()
            with posenc_app(self).batch_update():
                await self.query_one("#home-body", Horizontal).mount(*panes)
                await self.query_one("#splash-status").remove()
                # keys typed as the topics appear go to them; focused before the footer's keys are built
                # (`_show_keys_after_paint`), which list the tree's (focused after, the footer built its keys twice)
                self.set_focus(parts[0])
            (
                self._topic_tree,
                self._topic_info,
                self._status_box,
                self._problems_box,
                self._menu_list,
                self._topics_title,
            ) = parts
        tree = self._topic_tree
        self.watch(tree, "show_vertical_scrollbar", self._refit_titles, init=False)
        if posenc_app(self).bank_view is None and not posenc_app(self).banks_error:
            self._status_box.update(tr("loading.banks", posenc_app(self).language))
        return True

    def _menu_label(self, key: str, hint: str) -> Content:
        return Content.assemble((f" {hint} ", "bold $text-accent"), " ", tr(key, posenc_app(self).language))

    async def on_mount(self) -> None:  # type: ignore[override]  # Textual awaits an async handler
        super().on_mount()  # the footer's language; relabel / banks_reloaded on a change
        self.watch(self.app, "bank_preview", self._preview_arrived, init=False)
        self.call_after_refresh(self._painted)
        if posenc_app(self).bank_view is not None or posenc_app(self).banks_error:
            await self._rebuild()

    async def _painted(self) -> None:
        first_paint = getattr(self.app, "first_paint", None)
        if first_paint is not None:
            first_paint()
        if posenc_app(self).is_running:  # (not when a benchmark exits at the first paint)
            self.set_timer(BODY_WAIT_S, self._body_still_loading)

    async def _body_still_loading(self) -> None:
        """No preview (no cache) within BODY_WAIT_S: the body, still loading, and the footer's keys."""
        await self._ensure_body()
        self._show_keys_after_paint()

    def _show_keys_after_paint(self) -> None:
        """Build the footer's keys (once) after the next paint: the topics come first (building the keys,
        a dozen widgets each styled, took a tenth of the time to the topics)."""
        if not self._keys_asked:
            self._keys_asked = True
            self.call_after_refresh(self.query_one(KeyFooter).show_keys)

    def on_screen_resume(self) -> None:
        if posenc_app(self).bank_view is not None:
            self._refresh_progress()

    def on_screen_suspend(self) -> None:
        """Leaving Home disarms the quit: its "press q again" toast would be wrong on the next screen,
        where q means Back."""
        if self._quit_armed_at is not None:
            self._quit_armed_at = None
            posenc_app(self).clear_notifications()

    # ------------------------------------------------------------------ data

    def banks_reloaded(self) -> None:
        self.call_next(self._rebuild)

    async def _preview_arrived(self) -> None:
        if posenc_app(self).bankset is None and posenc_app(self).bank_preview is not None:
            await self._rebuild()
            self.call_after_refresh(
                posenc_app(self).preview_painted
            )  # the bank loader goes on after this paint

    def relabel(self) -> None:
        lang = posenc_app(self).language
        if self._status_box is None or self._menu_list is None:
            self.query_one("#splash-status", Static).update(tr("loading.banks", lang))
            return
        if posenc_app(self).bank_view is None and not posenc_app(self).banks_error:
            self._status_box.update(tr("loading.banks", lang))
        self.query_one("#topics-title", Label).update(self._columns_title())
        self.query_one("#start-title", Label).update(tr("home.start", lang))
        self.query_one("#status-title", Label).update(tr("home.status", lang))
        menu = self._menu_list
        for option_id, key, hint in MENU:
            menu.replace_option_prompt(option_id, self._menu_label(key, hint))
        self.call_next(self._rebuild)  # the topic tree and status, in the new language

    async def _rebuild(self) -> None:
        app = posenc_app(self)
        if app.bank_view is None and not app.banks_error:
            return
        await self._ensure_body()
        # read after the mount: the full load may have failed (and dropped the preview) while it ran
        lang, bankset = app.language, app.bank_view
        tree, status, info = self._topic_tree, self._status_box, self._topic_info
        assert tree is not None and status is not None and info is not None
        if bankset is None:
            tree.clear()  # nothing loaded: no topics (a preview shown before the failure included)
            self._filled = None
            info.update("")
            status.update(tr("banks.failed", lang, error=app.banks_error))
            status.add_class("error")
            self._show_keys_after_paint()
            return
        status.remove_class("error")
        if self._filled is None or self._filled[0] is not bankset or self._filled[1] != lang:
            self._fill_tree(tree, bankset)  # (the progress store opening changes only the columns)
            self._filled = (bankset, lang)
        self._update_status()
        if not self._topics_logged:  # bench/startup.py: time to the topics on screen
            self._topics_logged = True
            self.call_after_refresh(posenc_app(self).bench_event, "topics_listed")
        self._show_keys_after_paint()
        self.call_after_refresh(self._refit_titles)  # the titles fitted to the tree as laid out
        self.call_after_refresh(self._refresh_progress)  # after the topics are painted
        self.call_after_refresh(self._refresh_info)  # the type counts of the new banks

    def _refresh_info(self) -> None:
        node = self._topic_tree.cursor_node if self._topic_tree is not None else None
        if node is not None and node.data is not None:
            self._show_info(node.data)

    def _topic_label(self, title: str, count: int, topic_id: str | None, *, leaf: bool = False) -> Text:
        """Fixed-width columns first (questions, due, mastery), then the title, so a narrow
        terminal crops the end of the title rather than the numbers. A leaf row is indented by
        the width of the expand arrow so the columns line up."""
        parts: list[tuple[str, str] | str] = [("  " if leaf else "", ""), (f"{count:>3} ", "dim")]
        if self._summary:
            progress = self._summary.get(topic_id) if topic_id else self._total_progress()
            due = progress.due if progress is not None else 0
            mastery = progress.mastery if progress is not None else None
            parts.append((f"{due:>3}↻ ", "bold #e0af68" if due else "dim"))
            parts.append((f"{round(mastery * 100):>3}% " if mastery is not None else "   · ", "#9ece6a"))
        used = sum(cell_len(part if isinstance(part, str) else part[0]) for part in parts) + 1
        parts += [" ", (self._fit_title(title, used + (0 if leaf else EXPAND_ARROW_CELLS)), "bold")]
        return Text.assemble(*parts)

    def _fit_title(self, title: str, used: int) -> str:
        """`title` cut with "…" to what the topic tree shows beside `used` cells of columns (a narrow
        terminal cut it mid-word, with no sign that it was cut)."""
        width = self._topic_tree.scrollable_content_region.width if self._topic_tree is not None else 0
        self._fitted_width = width
        room = width - used
        return title if width <= 0 else fit_cells(title, room)

    def _columns_title(self) -> str:
        lang = posenc_app(self).language
        key = "home.columns_progress" if self._summary else "home.columns"
        return f"{tr('home.topics', lang)}  ·  {tr(key, lang)}"

    def _total_progress(self) -> Any:
        if not self._summary:
            return None
        due = sum(p.due for p in self._summary.values())
        studied = sum(p.studied for p in self._summary.values())
        questions = sum(p.studied + p.new for p in self._summary.values())
        # mastery is per question (unseen ones count as 0), so topics weigh by their size
        weighted = sum(
            p.mastery * (p.studied + p.new) for p in self._summary.values() if p.mastery is not None
        )
        from types import SimpleNamespace

        return SimpleNamespace(due=due, mastery=(weighted / questions) if studied else None)

    def _fill_tree(self, tree: Tree, bankset: Any) -> None:
        lang = posenc_app(self).language
        cursor_data = tree.cursor_node.data if tree.cursor_node is not None else None
        expanded = {n.data for n in self._walk(tree.root) if n.is_expanded and n.data is not None}
        tree.clear()
        total = sum(len(t.question_ids) for t in bankset.topics)
        tree.root.add_leaf(
            self._topic_label(tr("home.all", lang), total, None, leaf=True), data=("all", None)
        )
        for topic in bankset.topics:
            data = ("topic", topic.id)
            node = tree.root.add(
                self._topic_label(
                    _flat(topic.title.get(lang), MAX_TITLE_LABEL), len(topic.question_ids), topic.id
                ),
                data=data,
                allow_expand=bool(topic.question_ids),
            )
            if data in expanded:  # others get their question rows when first expanded (faster start)
                self._add_question_rows(node)
                node.expand()
        self._restore_cursor(tree, cursor_data)

    def _add_question_rows(self, node: TreeNode) -> None:
        bankset = posenc_app(self).bank_view
        if node.children or bankset is None or node.data is None or node.data[0] != "topic":
            return
        topic = next((t for t in bankset.topics if t.id == node.data[1]), None)
        for qid in topic.question_ids if topic is not None else ():
            question = bankset.questions.get(qid)
            if question is not None:
                node.add_leaf(self._question_label(qid, question), data=("question", qid))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded) -> None:
        self._add_question_rows(event.node)

    def _walk(self, node: TreeNode) -> list[TreeNode]:
        out = [node]
        for child in node.children:
            out.extend(self._walk(child))
        return out

    def _restore_cursor(self, tree: Tree, data: Any) -> None:
        if data is None:
            tree.move_cursor(tree.root.children[0] if tree.root.children else None)
            return
        for node in self._walk(tree.root):
            if node.data == data:
                if node.parent is not None and not node.parent.is_expanded and node.parent is not tree.root:
                    node.parent.expand()
                self.call_after_refresh(tree.move_cursor, node)
                return
        tree.move_cursor(tree.root.children[0] if tree.root.children else None)

    def _update_status(self) -> None:
        app = posenc_app(self)
        lang = app.language
        bankset = app.bank_view
        if bankset is None:  # nothing loaded (yet): the status says loading or the failure, not counts
            return
        # every question has its topic: counted without the preview's question objects (built on first read)
        n_topics, n_questions = len(bankset.topics), len(bankset.topic_of)
        lines = [
            tr(
                "home.counts",
                lang,
                topics=n_topics,
                questions=n_questions,
                topics_text=count(n_topics, "topic"),
                questions_text=count(n_questions, "question"),
            )
        ]
        if app.store is not None:
            from quizbank.safetext import escape_unsafe

            store_path = escape_unsafe(str(getattr(app.store, "path", "")), one_line=True)
            lines.append(tr("home.store", lang, path=store_path))
            lines.append(tr("home.mastery_means", lang))
        elif app.store_error:
            lines.append(tr("store.off", lang, error=app.store_error))
        lines.append("")
        lines.append(tr("home.hint", lang))
        assert self._status_box is not None and self._problems_box is not None
        self._status_box.update("\n".join(lines))
        problems = self._problems_box
        problem_text = self._problem_text()
        problems.update(problem_text)
        problems.display = bool(problem_text)

    def _problem_text(self) -> Text:
        app = posenc_app(self)
        lang = app.language
        bankset = app.bank_view
        from quizbank.safetext import escape_unsafe  # file names and notices come from disk

        text = Text()
        skipped = list(getattr(bankset, "skipped", []) or [])
        if skipped:
            text.append(tr("home.skipped", lang) + "\n", style="bold #f7768e")
            for path, problems in skipped:
                _append_file_problems(text, path, problems, limit=5, style="#f7768e")
        # a skipped file's problems are listed above: never twice
        listed = {(str(p.path), p.line, p.col, p.message) for _path, ps in skipped for p in ps}
        loaded_problems = [
            p
            for p in getattr(bankset, "problems", []) or []
            if (str(getattr(p, "path", "")), getattr(p, "line", 0), getattr(p, "col", 0), str(p.message))
            not in listed
        ]
        if loaded_problems:
            text.append(tr("home.problems", lang) + "\n", style="bold #e0af68")
            by_file: dict[str, list[Any]] = {}
            for problem in loaded_problems[:20]:
                by_file.setdefault(str(problem.path), []).append(problem)
            for path, problems in by_file.items():
                _append_file_problems(text, path, problems, limit=20, style="#e0af68")
        if app.store_notices:
            text.append(tr("home.notices", lang) + "\n", style="bold #e0af68")
            for notice in app.store_notices:
                text.append(f"• {escape_unsafe(str(notice))}\n", style="dim")
        text.rstrip()
        return text

    def _refresh_progress(self) -> None:
        store = posenc_app(self).store
        bankset = posenc_app(self).bank_view
        if store is None or bankset is None:
            return
        topics = {t.id: list(t.question_ids) for t in bankset.topics}
        self._progress_worker(store, topics, posenc_app(self).banks_version)

    @work(thread=True, name="home-progress", group="home-progress", exclusive=True, exit_on_error=False)
    def _progress_worker(self, store: Any, topics: dict[str, list[str]], version: int) -> None:
        try:
            summary = store.topic_summary(topics)
        except Exception:  # noqa: BLE001 - progress counts are optional: Home works without them
            return
        try:
            from quizbank.question_status import load_status

            status = load_status(store)
        except Exception:  # noqa: BLE001 - marks are optional: the counts still show
            status = None  # marks are optional: the counts still show
        self.post_message(self.ProgressReady(summary, version, status))

    def _question_label(self, qid: str, question: Any) -> Text:
        """A question row: its status mark (new · seen ○ wrong ✗ due ↻, ⚑ flagged), id and prompt."""
        from quizbank.question_status import MARK_GLYPHS

        status = getattr(self, "_status", None)
        mark = MARK_GLYPHS[status.mark(qid)] if status is not None else " "
        flag = "⚑" if status is not None and qid in status.flagged else " "
        urgent = mark in (MARK_GLYPHS["wrong"], MARK_GLYPHS["due"])
        return Text.assemble(
            (mark, "bold #e0af68" if urgent else "dim"),
            (flag + " ", "bold #e0af68"),
            (f"{qid}  ", "dim"),
            _flat(question.prompt.get(posenc_app(self).language), MAX_QUESTION_LABEL),
        )

    def on_home_screen_progress_ready(self, message: ProgressReady) -> None:
        self._summary = message.summary
        self._status = message.status
        self._relabel_topics()

    def on_resize(self) -> None:
        self.call_after_refresh(self._relabel_topics)  # titles are fitted to the tree's new width
        self.call_after_refresh(self._refresh_info)  # the type counts packed to the new width

    def _relabel_topics(self) -> None:
        tree = self._topic_tree
        if tree is None or self._topics_title is None:
            return
        self._topics_title.update(self._columns_title())
        bankset = posenc_app(self).bank_view
        if bankset is None:
            return
        titles = {t.id: t for t in bankset.topics}
        lang = posenc_app(self).language
        for node in tree.root.children:
            if node.data is None:
                continue
            kind, topic_id = node.data
            if kind == "all":
                total = sum(len(t.question_ids) for t in bankset.topics)
                label = self._topic_label(tr("home.all", lang), total, None, leaf=True)
            elif topic_id in titles:
                topic = titles[topic_id]
                label = self._topic_label(
                    _flat(topic.title.get(lang), MAX_TITLE_LABEL), len(topic.question_ids), topic_id
                )
            else:
                continue
            if label != node.label:  # (an unchanged label would repaint the tree all the same)
                node.set_label(label)
            if kind == "topic":
                for leaf in node.children:
                    qid = leaf.data[1] if leaf.data is not None else None
                    if qid is not None and qid in bankset.questions:
                        leaf.set_label(self._question_label(qid, bankset.questions[qid]))
        self._update_status()

    # ------------------------------------------------------------------ navigation

    def _highlighted(self) -> tuple[str, str | None]:
        node = self._topic_tree.cursor_node if self._topic_tree is not None else None
        if node is None or node.data is None:
            return ("all", None)
        kind, value = node.data
        if kind == "question":
            view = posenc_app(self).bank_view
            return ("topic", view.topic_of.get(value)) if view is not None else ("all", None)
        return kind, value

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        self._show_info(event.node.data)

    def _show_info(self, data: Any) -> None:
        """Describe the highlighted topic (description, mix of types) or question (its prompt)."""
        bankset = posenc_app(self).bank_view
        if self._topic_info is None or bankset is None or data is None:
            return
        lang = posenc_app(self).language
        kind, value = data
        parts: list[Content] = []
        if kind == "question" and value in bankset.questions:
            question = bankset.questions[value]
            kind = tr(f"type.{question.type}", lang)
            parts.append(Content.styled(f"{value} · {kind}", "bold $text-accent"))
            parts.append(Content(_flat(question.prompt.get(lang), 400)))
        else:
            topics = bankset.topics if kind == "all" else [t for t in bankset.topics if t.id == value]
            if not topics:
                return
            if kind == "topic":
                topic = topics[0]
                parts.append(Content.styled(_flat(topic.title.get(lang), 120), "bold $text-accent"))
                if topic.description is not None:
                    parts.append(Content(_flat(topic.description.get(lang), 600)))
            types: dict[str, int] = {}
            for topic in topics:
                for qid in topic.question_ids:  # (a preview builds no question for this)
                    kind = bankset.question_type(qid)
                    if kind is not None:
                        types[kind] = types.get(kind, 0) + 1
            mix = pack_items(
                [f"{tr(f'type.{name}', lang)} {count}" for name, count in sorted(types.items())],
                self._topic_info.content_region.width or 1000,
            )
            parts.append(Content.styled(mix, "dim"))
        self._topic_info.update(Content("\n").join(parts))

    def _refit_titles(self, _shown: bool = False) -> None:
        """The topic list gained or lost its scrollbar (a taller description under it, say): cut
        the titles again to the width it has now."""
        if (
            self._topic_tree is not None
            and self._topic_tree.scrollable_content_region.width != self._fitted_width
        ):
            self._relabel_topics()

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        if event.node.data is None:
            return
        kind, value = event.node.data
        if kind == "question":
            posenc_app(self).try_question(value)  # "try it"; `b` reads it in Browse
        elif kind == "topic":
            posenc_app(self).open_topic(value)
        else:
            self.action_quiz()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        actions = {
            "menu-quiz": self.action_quiz,
            "menu-browse": self.action_browse,
            "menu-demo": self.action_demo_lab,
            "menu-study": self.action_study,
            "menu-stats": self.action_stats,
            "menu-mock": self.action_mock,
            "menu-drills": self.action_drills,
            "menu-help": posenc_app(self).action_help,
        }
        action = actions.get(event.option.id or "")
        if action is not None:
            action()

    def action_quiz(self) -> None:
        kind, topic_id = self._highlighted()
        posenc_app(self).open_quiz_setup((topic_id,) if kind == "topic" and topic_id else ())

    def action_browse(self) -> None:
        if not posenc_app(self).require_banks(self.action_browse):
            return
        node = self._topic_tree.cursor_node if self._topic_tree is not None else None
        if (
            node is not None
            and node.data is not None
            and node.data[0] == "question"
            and node.data[1] is not None
        ):
            posenc_app(self).open_question(node.data[1])  # "read it": the question in Browse, answer shown
            return
        kind, topic_id = self._highlighted()
        if kind != "topic" or topic_id is None:
            if not posenc_app(self).bankset.topics:
                return
            topic_id = posenc_app(self).bankset.topics[0].id
        posenc_app(self).open_topic(topic_id)

    def action_demo_lab(self) -> None:
        posenc_app(self).open_demo()

    def action_study(self) -> None:
        kind, topic_id = self._highlighted()
        posenc_app(self).open_study(topic_id if kind == "topic" else None)

    def action_stats(self) -> None:
        posenc_app(self).open_stats()

    def action_mock(self) -> None:
        """The mock interview setup, on the highlighted topic if one is highlighted."""
        if not posenc_app(self).require_banks(self.action_mock):
            return
        from .mock import MockSetupScreen

        kind, topic_id = self._highlighted()
        posenc_app(self).push_screen(MockSetupScreen((topic_id,) if kind == "topic" and topic_id else ()))

    def action_drills(self) -> None:
        posenc_app(self).open_drills()

    def action_confirm_quit(self) -> None:
        """`q` on Home: there is nothing to go back to, so a first `q` asks and a second one
        within QUIT_WINDOW seconds quits (Ctrl+Q quits at once)."""
        now = time.monotonic()
        if self._quit_armed_at is not None and now - self._quit_armed_at <= QUIT_WINDOW:
            posenc_app(self).exit(0)
            return
        self._quit_armed_at = now
        posenc_app(self).notify(tr("home.quit_again", posenc_app(self).language), timeout=QUIT_WINDOW)
