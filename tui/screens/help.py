"""Help (`?`): every binding, grouped by where it works, with the user's remaps applied."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..i18n import tr
from ..keys import DESCRIPTION_KEYS, bind

__all__ = ["HelpScreen", "help_groups"]


def _bindings_of(cls: Any) -> list[Binding]:
    return [b for b in getattr(cls, "BINDINGS", []) if isinstance(b, Binding)]


def help_groups(app: Any) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """[(group title, [(keys, description, binding id)])] in the current language."""
    from .browse import BrowseScreen
    from .demo_lab import DemoLabScreen
    from .home import HomeScreen
    from .quiz import QuizScreen, QuizSetupScreen, QuizSummaryScreen

    lang = app.language
    keymap: dict[str, str] = dict(getattr(app, "_keymap", {}) or {})

    def rows(bindings: list[Binding]) -> list[tuple[str, str, str]]:
        out = []
        for b in bindings:
            if b.id is None:
                continue
            keys = keymap.get(b.id)
            shown = replace(b, key=keys, key_display=None) if keys else b
            display = (
                ", ".join(app.get_key_display(replace(shown, key=k.strip())) for k in shown.key.split(","))
                if shown.key_display is None
                else shown.key_display
            )
            description = (
                tr(DESCRIPTION_KEYS.get(b.id, ""), lang) if b.id in DESCRIPTION_KEYS else b.description
            )
            out.append((display, description, b.id))
        return out

    palette = bind("ctrl+p", "command_palette", "palette", "key.palette")
    groups = [
        ("help.global", rows(_bindings_of(type(app)) + [palette])),
        ("help.home", rows(_bindings_of(HomeScreen))),
        ("help.setup", rows(_bindings_of(QuizSetupScreen))),
        ("help.quiz", rows(_bindings_of(QuizScreen))),
        ("help.question", _question_rows(lang)),
        ("help.summary", rows(_bindings_of(QuizSummaryScreen))),
        ("help.browse", rows(_bindings_of(BrowseScreen))),
        ("help.lab", rows(_bindings_of(DemoLabScreen))),
    ]
    for module_name, class_name, title in (
        ("study", "StudyScreen", "key.study"),
        ("stats", "StatsScreen", "key.stats"),
    ):
        try:
            module = __import__(f"tui.screens.{module_name}", fromlist=[class_name])
            cls = getattr(module, class_name)
        except Exception:
            continue
        found = rows(_bindings_of(cls))
        if found:
            groups.append((title, found))
    return [(tr(title, lang), entries) for title, entries in groups if entries]


def _question_rows(lang: str) -> list[tuple[str, str, str]]:
    zh = lang == "zh"
    return [
        (
            "1–9",
            "选择（单选立即作答，多选切换）" if zh else "choose (mcq answers at once, multi toggles)",
            "posenc.choose1",
        ),
        ("↑ ↓ enter", "移动并选择" if zh else "move and pick", "posenc.choice_pick"),
        ("t / f", "判断题：正确 / 错误" if zh else "true / false", "posenc.answer_true"),
        (
            "enter",
            "在输入框中：检查（填空时前往下一空）" if zh else "in an input: check (cloze: next blank)",
            "",
        ),
        ("esc", "离开输入框" if zh else "leave an input", "posenc.leave_input"),
        (
            "1–4, y / n",
            "开放题显示答案后自评（1 没答出，2–4 答对）"
            if zh
            else "open question, after reveal: grade yourself (1 missed, 2–4 right)",
            "posenc.self_yes",
        ),
    ]


class HelpScreen(ModalScreen[None]):
    """Every key, grouped. Esc, q or ? closes."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen #help-box {
        width: 90%;
        max-width: 100;
        height: 90%;
        border: round $accent;
        background: $surface;
        padding: 0 2;
    }
    """
    BINDINGS = [
        Binding("escape,q,question_mark", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static("", id="help-text", markup=False)

    def on_mount(self) -> None:
        box = self.query_one("#help-box", VerticalScroll)
        box.border_title = tr("help.title", self.app.language)
        box.border_subtitle = tr("help.close", self.app.language)
        self.watch(self.app, "language", self._render_help)
        box.focus()

    def _render_help(self) -> None:
        lang = self.app.language
        box = self.query_one("#help-box", VerticalScroll)
        box.border_title = tr("help.title", lang)
        box.border_subtitle = tr("help.close", lang)
        lines: list[Content] = []
        for title, entries in help_groups(self.app):
            if lines:
                lines.append(Content(""))
            lines.append(Content.styled(title, "bold $text-accent"))
            width = max(len(keys) for keys, _d, _i in entries)
            for keys, description, binding_id in entries:
                lines.append(
                    Content.assemble(
                        ("  " + keys.ljust(width + 2), "bold $text-warning"),
                        (description, ""),
                        (f"   {binding_id}" if binding_id else "", "dim"),
                    )
                )
        lines += [Content(""), Content.styled(tr("help.remap", lang), "dim italic")]
        self.query_one("#help-text", Static).update(Content("\n").join(lines))

    def action_close(self) -> None:
        self.dismiss(None)
