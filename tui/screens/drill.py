"""Drill: a coding exercise graded against posenc_ref.

The statement is on the left; on the right an editor (Textual's `TextArea` with Python
highlighting) holds the user's file `<data dir>/drills/NAME.py`, created from the starter and
saved atomically as it changes. `ctrl+r` saves and grades it in a thread worker ("drill-grade")
that runs `quizbank.drills.grade_file` with the screen's warm grader (a grading child started ahead, torch
already imported) and posts `DrillGraded`. One grade at a time: a new `ctrl+r` cancels the running one,
which kills its processes before the next starts. Each
case is shown with ✓/✗, its message and time (`drill_report.py`). `e` opens the file in $EDITOR (the app suspends);
the screen polls the file's mtime and re-grades whenever it changes on disk. `h` reveals the hints
one at a time; `v` shows the model solution, only after an attempt and after a confirmation.
Attempts go to the progress store; a first pass creates the Study card `drill:NAME` (`tui.widgets.drill_card`).

Where running code is off (`posenc serve --public`), the grader refuses (`quizbank.drills.CodeOff`) and the
screen says why; it asks nothing of its own, so Ctrl+R, `e`, the file poll and a Study card all meet the same
refusal. The file itself (reading, saving, the autosave, the poll) is `DrillFile` (`drill_file.py`).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import threading
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Markdown, Select, Static, TextArea

from ..appenv import code_off
from ..appref import posenc_app
from ..cells import fit_path
from ..help_section import HelpSection
from ..i18n import tr
from ..keys import bind, focused_takes_text
from ..richtext import markdown_source
from ..widgets.key_footer import KeyFooter
from ..widgets.text_area import SafeTextArea
from ..widgets.title_bar import TitleBar
from .base import LocalizedScreen
from .confirm import ConfirmScreen
from .drill_file import POLL_SECONDS, DrillFile, error_line
from .drill_report import report_content

__all__ = ["DrillScreen"]

WARM_AFTER_SECONDS = 1.0  # a screen left at once starts no grading child


def _python_language() -> str | None:
    """ "python" when tree-sitter and its Python grammar are installed; else plain text."""
    try:
        has_grammar = importlib.util.find_spec("tree_sitter_python") is not None
        has_core = importlib.util.find_spec("tree_sitter") is not None
    except (ImportError, ValueError):
        return None
    return "python" if has_grammar and has_core else None


class DrillScreen(DrillFile, LocalizedScreen):
    """Statement, hints and solution on the left; the editor and the grade on the right.

    The app's key queue (`tui.keyorder`) hands each key on only once the one before it is handled, so
    text typed right after Enter (which focuses the editor) goes into the file."""

    HELP_SECTION = HelpSection("key.drills", 120)

    CSS_PATH = Path(__file__).with_name("drill.tcss")
    BINDINGS = [
        bind("ctrl+r", "grade", "drill.grade", "drill.key_grade", priority=True),
        bind("e", "external_editor", "drill.editor", "drill.key_editor"),
        bind("h", "hint", "drill.hint", "drill.key_hint"),
        bind("v", "solution", "drill.solution", "drill.key_solution"),
        # `i` is a priority binding: it moves focus to the editor the moment it arrives (`set_focus`, not
        # `focus()`, which waits a turn), so the text typed right after it goes into the file (a key queued
        # on the old focus would run as a command);
        # `action_edit` skips itself when a text field already has focus, so `i` is then a letter.
        bind("i", "edit", "drill.edit", "drill.key_edit", key_display="Enter/i", priority=True),
        bind("enter", "edit", "drill.edit_enter", "drill.key_edit", show=False),
        # Esc likewise leaves the editor the moment it arrives (`check_action` lets it act only then), so a
        # command key typed right after it is a command, not a letter in the file
        bind("escape", "leave_editor", "drill.leave", "drill.key_leave", show=False, priority=True),
    ]

    class DrillGraded(Message):
        """Posted by the grading worker: a report, or an error line; `card_created` on a first pass."""

        def __init__(
            self,
            name: str,
            report: Any = None,
            error: str | None = None,
            card_created: bool = False,
            refused: bool = False,
        ) -> None:
            super().__init__()
            self.name = name
            self.report = report
            self.error = error
            self.card_created = card_created
            self.refused = refused  # running code is off: nothing ran

    def __init__(self, name: str | None = None) -> None:
        super().__init__()
        from quizbank.drills import DRILL_NAMES

        self.drill_name = name if name in DRILL_NAMES else DRILL_NAMES[0]
        self.hints_shown = 0
        self.solution_shown = False
        self.report: Any = None
        self.error: str | None = None
        self.grading = False
        self.refused = False  # the grader refused: running code is off here
        self.attempted = False
        self._picker_lang = ""
        self._warm: Any = None  # quizbank.drills.WarmGrader: the next grade's child, started ahead
        self._cancel: threading.Event | None = None  # set to cancel the running grade
        self._grade_lock = threading.Lock()  # one grade's processes at a time

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        from quizbank.drills import drills

        lang = posenc_app(self).language
        self._picker_lang = lang  # the language of the selector's titles
        yield TitleBar()
        with Horizontal(id="drill-body"):
            with VerticalScroll(id="drill-left"):
                yield Select(
                    [(Content(f"{d.name}  {d.text('title', lang)}"), d.name) for d in drills()],
                    value=self.drill_name,
                    allow_blank=False,
                    id="drill-pick",
                )
                yield Static("", id="drill-title", markup=False)
                yield Static("", id="drill-meta", markup=False)
                yield Markdown("", id="drill-statement", open_links=False)
                yield Static("", id="drill-keys", classes="hint", markup=False)
                yield Static("", id="drill-hints", markup=False)
                yield Markdown("", id="drill-solution", open_links=False)
            with Vertical(id="drill-right"):
                yield Static("", id="drill-file", markup=False)
                editor = SafeTextArea.code_editor("", language=_python_language(), id="drill-code")
                editor.cursor_blink = posenc_app(self).cursor_blink
                self._editor = (
                    editor  # kept: the last save on leaving runs after the screen's children are gone
                )
                yield editor
                with VerticalScroll(id="drill-results-scroll"):
                    yield Static("", id="drill-results", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        self.load_drill(self.drill_name)
        self.call_after_refresh(self._render_file)  # cut to the width it was laid out with
        self.set_interval(POLL_SECONDS, self._poll_file, name="drill-poll")
        self.set_timer(WARM_AFTER_SECONDS, self._start_warm, name="drill-warm-start")
        # focus starts outside the editor, so that a key meant for the app (l, q) never lands in the file
        self.set_focus(self.leave_input_target())

    def leave_input_target(self) -> Any:
        return self.query_one("#drill-results-scroll")

    @property
    def drill(self) -> Any:
        from quizbank.drills import get_drill

        return get_drill(self.drill_name)

    # ------------------------------------------------------------------ the file

    def load_drill(self, name: str) -> None:
        """Show drill `name`: its texts, and its file (created from the starter if missing)."""
        self.drill_name = name
        self.hints_shown = 0
        self.solution_shown = False
        self.report = None
        self.error = None
        self.attempted = self._stored_attempts() > 0
        self._kept_path = None
        text = self._read_or_create()
        editor = self.query_one("#drill-code", TextArea)
        editor.load_text(text)
        self.relabel()

    # (here, not in DrillFile: Textual finds `@on` handlers only on its own classes, and the mixin is not one)
    @on(TextArea.Changed, "#drill-code")
    def _edited(self) -> None:
        if self._save_timer is not None:
            self._save_timer.stop()
        self._save_timer = self.set_timer(0.5, self._autosave, name="drill-autosave")

    # ------------------------------------------------------------------ texts

    def relabel(self) -> None:
        lang = posenc_app(self).language
        drill = self.drill
        self.sub_title = tr("drill.title", lang)
        self._relabel_picker(lang)
        self.query_one("#drill-title", Static).update(
            Content.styled(drill.text("title", lang), "bold $text-accent")
        )
        self.query_one("#drill-meta", Static).update(
            Content.styled(
                tr(
                    "drill.meta",
                    lang,
                    name=drill.name,
                    topic=drill.topic,
                    stars="★" * drill.difficulty,
                    minutes=drill.minutes,
                ),
                "dim",
            )
        )
        statement = self.query_one("#drill-statement", Markdown)
        source = markdown_source(drill.text("statement", lang))
        if statement.source != source:
            statement.update(source)
        self.query_one("#drill-keys", Static).update(tr("drill.keys_hint", lang, function=drill.function))
        self._render_hints()
        self._render_solution()
        self._render_file()
        self._render_results()

    def _render_file(self) -> None:
        """ "Your file: <path>", the path cut at its start ("…/drills/rope-half.py") to the line's width:
        a long data dir (a `posenc serve` workspace) cut the file name off its end."""
        from quizbank.safetext import escape_unsafe

        lines = self.query("#drill-file").results(Static)
        line = next(iter(lines), None)
        if line is None:
            return  # (left meanwhile)
        lang = posenc_app(self).language
        path = escape_unsafe(str(self.path), one_line=True)
        room = line.content_region.width - cell_len(tr("drill.file", lang, path=""))
        shown = fit_path(path, room) if line.content_region.width > 0 else path
        line.update(Content.styled(tr("drill.file", lang, path=shown), "dim"))

    def on_resize(self) -> None:
        self.call_after_refresh(self._render_file)

    def _relabel_picker(self, lang: str) -> None:
        """The drill selector's titles in `lang` (it keeps the drill shown; no Changed reaches `_picked`)."""
        from quizbank.drills import drills

        if self._picker_lang == lang:
            return
        picker = self.query_one("#drill-pick", Select)
        with picker.prevent(Select.Changed):
            picker.set_options([(Content(f"{d.name}  {d.text('title', lang)}"), d.name) for d in drills()])
            picker.value = self.drill_name
            # the value may be the one it had (the first drill): no watcher runs and the closed selector
            # keeps the old language's title; run it
            picker.mutate_reactive(Select.value)  # type: ignore[misc]  # (Textual's own idiom)
        self._picker_lang = lang

    def _render_hints(self) -> None:
        lang = posenc_app(self).language
        hints = self.drill.hints
        parts = []
        for i in range(min(self.hints_shown, len(hints))):
            parts.append(
                Content.styled(tr("drill.hint", lang, n=i + 1, total=len(hints)), "bold $text-warning")
            )
            parts.append(Content(hints[i].get(lang) or hints[i]["en"]))
        widget = self.query_one("#drill-hints", Static)
        widget.update(Content("\n").join(parts) if parts else "")
        widget.display = bool(parts)

    def _render_solution(self) -> None:
        widget = self.query_one("#drill-solution", Markdown)
        widget.display = self.solution_shown
        if self.solution_shown:
            source = f"**{tr('drill.solution', posenc_app(self).language)}**\n\n```python\n{self.drill.solution}```\n"
            if widget.source != source:
                widget.update(source)

    def _render_results(self) -> None:
        lang = posenc_app(self).language
        widget = self.query_one("#drill-results", Static)
        if self.refused or code_off():
            widget.update(Content.styled(tr("drill.code_off", lang), "bold $text-warning"))
            return
        if self.grading:
            widget.update(Content.styled(tr("drill.grading", lang), "$text-warning"))
            return
        if self.error is not None:
            widget.update(Content.styled(tr("drill.grade_failed", lang, error=self.error), "$text-error"))
            return
        report = self.report
        if report is None:
            widget.update(Content.styled(tr("drill.not_graded", lang), "dim"))
            return
        widget.update(report_content(report, lang))

    # ------------------------------------------------------------------ actions

    @on(Select.Changed, "#drill-pick")
    def _picked(self, event: Select.Changed) -> None:
        if event.value is Select.NULL or event.value == self.drill_name:
            return
        self.save()
        self.load_drill(str(event.value))

    def select_drill(self, name: str) -> None:
        from quizbank.drills import DRILL_NAMES

        if name in DRILL_NAMES and name != self.drill_name:
            self.save()
            self.query_one("#drill-pick", Select).value = name

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        focused_editor = isinstance(self.focused, TextArea)
        if action == "external_editor" and getattr(self.app, "is_web", False):
            return False  # in a browser (posenc serve) there is no terminal to hand to $EDITOR
        if action in ("external_editor", "hint", "solution") and focused_editor:
            return False  # the editor types these letters
        if action == "leave_editor":
            return focused_editor
        if action == "edit":
            return not focused_editor
        return True

    def action_leave_editor(self) -> None:
        self.set_focus(self.leave_input_target())

    def action_edit(self) -> None:
        if focused_takes_text(self.app) or posenc_app(self).screen is not self:
            raise SkipAction()  # typing in a field (or a dialog is open): `i` is a letter there
        # at once (focus() waits a turn): the keys typed right after `i`, already on their way, are text
        self.set_focus(self.query_one("#drill-code", TextArea))

    def action_grade(self) -> None:
        self.save()
        self._start_grading()

    def _start_warm(self) -> None:
        """Start the warm grader: a grading child importing torch now, and torch here in a worker."""
        if self._warm is not None or not self.is_attached or code_off():  # code off: nothing to warm
            return
        from quizbank.drills import WarmGrader

        self._warm = WarmGrader()
        self._refill()
        self._warm_parent()

    def _refill(self) -> None:
        # On the main thread on purpose: the child dies with the thread that started it.
        if self._warm is None:
            return
        from quizbank.drills import CodeOff

        try:
            self._warm.refill()
        except CodeOff:  # no grading child: the next grade says why
            pass
        except OSError as exc:  # no grading child ahead: the next grade starts one itself
            self.notify(
                tr("drill.grade_failed", posenc_app(self).language, error=error_line(exc)), severity="warning"
            )

    @work(thread=True, name="drill-warm", group="drill-warm", exit_on_error=False)
    def _warm_parent(self) -> None:
        from quizbank.drills import WarmGrader

        WarmGrader.warm_parent()

    def _start_grading(self) -> None:
        if self._cancel is not None:
            self._cancel.set()  # the running grade stops and kills its processes
        self._cancel = cancel = threading.Event()
        self.grading = True
        self.error = None
        self._render_results()
        supervisor = self._warm.take() if self._warm is not None else None
        self._grade(self.drill_name, str(self.path), supervisor, cancel)

    @work(thread=True, name="drill-grade", group="drill-grade", exit_on_error=False)
    def _grade(self, name: str, path: str, supervisor: Any, cancel: threading.Event) -> None:
        from quizbank.drills import CodeOff, GradeCancelled, grade_file

        with self._grade_lock:  # the cancelled grade before this one has stopped its processes
            if cancel.is_set():
                if supervisor is not None and self._warm is not None:
                    self._warm.put_back(supervisor)
                elif supervisor is not None:
                    supervisor.close()
                return
            try:
                report = grade_file(name, path, supervisor=supervisor, cancel=cancel)
            except GradeCancelled:
                return
            except CodeOff:  # posenc serve --public without --allow-code: nothing was run
                self.post_message(self.DrillGraded(name, refused=True))
                return
            except Exception as exc:  # noqa: BLE001 - a worker reports any failure
                self.post_message(self.DrillGraded(name, error=error_line(exc)))
                return
            finally:
                if supervisor is not None and self._warm is not None:
                    self._warm.put_back(supervisor)  # kept only if it ran nothing (a syntax error)
            if cancel.is_set():  # a newer Ctrl+R arrived as this grade ended: that one is the answer
                return
        created = False
        store = posenc_app(self).store
        if store is not None:
            try:
                created = store.record_drill_attempt(
                    name, report.passed, report.cases_passed, len(report.cases), report.elapsed_ms
                )
            except Exception as exc:  # noqa: BLE001 - grading worked; only the record is lost
                posenc_app(self).call_from_thread(
                    posenc_app(self).notify,
                    tr("store.record_failed", posenc_app(self).language, error=error_line(exc)),
                )
        self.post_message(self.DrillGraded(name, report, card_created=created))

    def on_drill_screen_drill_graded(self, message: DrillGraded) -> None:
        self._refill()
        if message.name != self.drill_name:
            return  # another drill was picked meanwhile
        self.grading = False
        self.refused = message.refused
        self.report = message.report
        self.error = message.error
        if message.report is not None:
            self.attempted = True
        self._render_results()
        if message.card_created:
            self.notify(tr("drill.card", posenc_app(self).language, name=self.drill_name), timeout=6)

    def action_hint(self) -> None:
        if self.hints_shown >= len(self.drill.hints):
            self.notify(tr("drill.no_more_hints", posenc_app(self).language))
            return
        self.hints_shown += 1
        self._render_hints()
        self.query_one("#drill-hints", Static).scroll_visible()

    def action_solution(self) -> None:
        if self.solution_shown:
            return
        if not self.attempted:
            self.notify(tr("drill.solution_locked", posenc_app(self).language), severity="warning")
            return

        def shown(show: bool | None) -> None:
            if show:
                self.solution_shown = True
                self._render_solution()
                self.query_one("#drill-solution", Markdown).scroll_visible()

        lang = posenc_app(self).language
        confirm = ConfirmScreen(
            tr("drill.confirm_question", lang),
            tr("drill.confirm_detail", lang),
            yes=tr("drill.yes", lang),
            no=tr("drill.no", lang),
        )
        posenc_app(self).push_screen(confirm, shown)

    def action_external_editor(self) -> None:
        """Open the file in $VISUAL / $EDITOR; the mtime poll re-grades when it comes back changed."""
        if not self.save():
            return
        command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            with posenc_app(self).suspend():
                subprocess.run([*shlex.split(command), str(self.path)], check=False)
        except Exception as exc:  # noqa: BLE001 - no terminal to give (headless), editor missing, bad $EDITOR
            self.notify(
                tr("drill.editor_failed", posenc_app(self).language, error=error_line(exc)), severity="error"
            )
            return
        self._poll_file()

    def _stored_attempts(self) -> int:
        store = posenc_app(self).store
        if store is None:
            return 0
        try:
            return len(store.drill_attempts(self.drill_name))
        except Exception:  # noqa: BLE001 - a count is decoration: the screen works without it
            return 0

    def on_unmount(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
        if self._warm is not None:
            self._warm.close()
        try:
            self.save()
        except Exception:  # noqa: BLE001 - the screen is going away; a failed save was already reported
            pass
