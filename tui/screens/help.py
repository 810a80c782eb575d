"""Help (`?`): every binding, grouped by where it works, with the user's remaps applied."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..i18n import tr
from ..keys import DESCRIPTION_KEYS

__all__ = ["HelpScreen", "help_groups"]

# Where the footer's short label is not enough on its own (the footer shows the language to
# switch to; the help says what the key does).
HELP_DESCRIPTIONS = {"posenc.language": "help.language"}
MAX_DESCRIPTION = 40  # cells; a longer description pushes its binding id to the right


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
            description_key = HELP_DESCRIPTIONS.get(b.id) or DESCRIPTION_KEYS.get(b.id)
            description = tr(description_key, lang) if description_key else b.description
            out.append((display, description, b.id))
        return out

    groups = [
        ("help.global", rows(_bindings_of(type(app)))),
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
            "选择（单选立即作答，多选切换）" if zh else "choose (mcq answers, multi toggles)",
            "posenc.choose1",
        ),
        ("↑ ↓ enter", "移动并选择" if zh else "move and pick", "posenc.choice_pick"),
        ("t / f", "判断题：正确 / 错误" if zh else "true / false", "posenc.answer_true"),
        (
            "enter",
            "输入框中：检查（填空：下一空）" if zh else "in an input: check (cloze: next blank)",
            "",
        ),
        ("esc", "离开输入框" if zh else "leave an input", "posenc.leave_input"),
        (
            "1–4, y / n",
            "开放题看答案后自评：1 没答出，2–4 答对"
            if zh
            else "open question, revealed: rate 1 (missed) – 4",
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
        groups = help_groups(self.app)
        # one set of columns for every group: keys, description (CJK counts double), binding id
        key_width = max(cell_len(keys) for _t, entries in groups for keys, _d, _i in entries)
        text_width = min(
            MAX_DESCRIPTION, max(cell_len(text) for _t, entries in groups for _k, text, _i in entries)
        )
        for title, entries in groups:
            if lines:
                lines.append(Content(""))
            lines.append(Content.styled(title, "bold $text-accent"))
            for keys, description, binding_id in entries:
                lines.append(
                    Content.assemble(
                        ("  " + keys + " " * (key_width - cell_len(keys) + 2), "bold $text-warning"),
                        (description + " " * max(2, text_width - cell_len(description) + 2), ""),
                        (binding_id, "dim"),
                    )
                )
        lines += [Content(""), Content.styled(tr("help.remap", lang), "dim italic")]
        self.query_one("#help-text", Static).update(Content("\n").join(lines))

    def action_close(self) -> None:
        self.dismiss(None)
