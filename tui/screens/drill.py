"""Drill: a coding exercise graded against posenc_ref.

The statement is on the left; on the right an editor (Textual's `TextArea` with Python
highlighting) holds the user's file `<data dir>/drills/NAME.py`, created from the starter and
saved atomically as it changes. `ctrl+r` saves and grades it in a thread worker ("drill-grade")
that runs `quizbank.drills.grade_file` with the screen's warm grader (a grading child started ahead, torch
already imported) and posts `DrillGraded`. One grade at a time: a new `ctrl+r` cancels the running one,
which kills its processes before the next starts. Each
case is shown with ✓/✗, its message and time. `e` opens the file in $EDITOR (the app suspends);
the screen polls the file's mtime and re-grades whenever it changes on disk. `h` reveals the hints
one at a time; `v` shows the model solution, only after an attempt and after a confirmation.
Attempts go to the progress store; a first pass creates the Study card `drill:NAME`.

Where running code is off (`posenc serve --public`), the grader refuses (`quizbank.drills.CodeOff`) and the
screen says why; it asks nothing of its own, so Ctrl+R, `e`, the file poll and a Study card all meet the same
refusal. The file is read through `quizbank.drills.loading.read_source`: a regular file of at most 256 KiB.
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
from textual.widgets import Header, Markdown, Select, Static, TextArea

from ..appenv import code_off, workspace_override
from ..appref import posenc_app
from ..cells import fit_path
from ..help_section import HelpSection
from ..i18n import count, tr
from ..keys import bind, focused_takes_text
from ..richtext import markdown_source
from ..widgets.key_footer import KeyFooter
from ..widgets.text_area import SafeTextArea
from .base import LocalizedScreen
from .confirm import ConfirmScreen

# a solved drill's Study card id (= quizbank.progress.store.DRILL_CARD_PREFIX)
DRILL_CARD_PREFIX = "drill:"

__all__ = ["DrillCard", "DrillScreen", "drill_attempts_line", "drill_workspace"]

POLL_SECONDS = 1.0
WARM_AFTER_SECONDS = 1.0  # a screen left at once starts no grading child


def drill_workspace(app: Any) -> Path:
    """`<data dir>/drills`: beside the progress store (or where it would be); under `posenc serve`, the
    folder the server chose for this tab's app (tui/appenv.py)."""
    if (override := workspace_override()) is not None:
        return override
    store = getattr(app, "store", None)
    if store is not None and getattr(store, "path", None) is not None:
        return Path(store.path).parent / "drills"
    data_dir = getattr(app, "data_dir", None)
    if data_dir:
        return Path(data_dir).expanduser() / "drills"
    from quizbank.progress.store import default_data_dir

    return default_data_dir() / "drills"


def drill_attempts_line(attempts: list[Any], lang: str) -> str:
    """One Stats line for the drill attempts (oldest first), or '' when there are none."""
    if not attempts:
        return ""
    from quizbank.drills import DRILL_NAMES

    last = attempts[-1]
    return tr(
        "drill.stats",
        lang,
        attempts=len(attempts),
        attempts_text=count(len(attempts), "attempt"),
        solved=len({a.drill for a in attempts if a.passed}),
        total=len(DRILL_NAMES),
        name=last.drill,
        passed=last.cases_passed,
        cases=last.cases_total,
    )


def _python_language() -> str | None:
    """ "python" when tree-sitter and its Python grammar are installed; else plain text."""
    try:
        has_grammar = importlib.util.find_spec("tree_sitter_python") is not None
        has_core = importlib.util.find_spec("tree_sitter") is not None
    except (ImportError, ValueError):
        return None
    return "python" if has_grammar and has_core else None


class DrillCard(Vertical):
    """A solved drill as a Study card (`drill:NAME`): re-implement it from memory. Revealing it opens the Drill
    screen; back in Study, the ratings grade how it went. Offers what Study uses of a `QuestionView`."""

    DEFAULT_CSS = """
    DrillCard { height: auto; padding: 1 2; }
    DrillCard .drill-card-title { text-style: bold; color: $text-accent; }
    DrillCard .drill-card-body { margin-top: 1; }
    """

    class Revealed(Message):
        """The user opened the drill: Study shows the ratings."""

    def __init__(self, question_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.question_id = question_id
        self.drill_name = question_id.removeprefix(DRILL_CARD_PREFIX)
        self.question = None  # no bank question (and so no demo) behind this card
        self.revealed = False

    def compose(self) -> ComposeResult:
        yield Static("", classes="drill-card-title", markup=False)
        yield Static("", classes="drill-card-body", markup=False)

    def on_mount(self) -> None:
        self.render_texts()

    def render_texts(self) -> None:
        from quizbank.drills import DRILL_NAMES, get_drill

        lang = posenc_app(self).language
        name = self.drill_name
        title = get_drill(name).text("title", lang) if name in DRILL_NAMES else name
        self.query_one(".drill-card-title", Static).update(
            tr("drill.card_title", lang, name=name, title=title)
        )
        key = "drill.card_done" if self.revealed else "drill.card_body"
        self.query_one(".drill-card-body", Static).update(tr(key, lang))

    def reveal(self) -> None:
        from quizbank.drills import DRILL_NAMES

        if self.drill_name in DRILL_NAMES:
            posenc_app(self).open_drills(self.drill_name)
        if not self.revealed:
            self.revealed = True
            self.render_texts()
            self.post_message(self.Revealed())

    def focus_input(self) -> None:
        """Nothing to type here (Study calls this on a question view)."""

    def compatible_with(self, question: Any) -> bool:
        return False


class DrillScreen(LocalizedScreen):
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
        self._saved_mtime: float | None = None
        self._save_timer: Any = None
        # a regular file refused on reading (too large): never written over, or the candidate's file is lost
        self._kept_path: Path | None = None
        self._picker_lang = ""
        self._warm: Any = None  # quizbank.drills.WarmGrader: the next grade's child, started ahead
        self._cancel: threading.Event | None = None  # set to cancel the running grade
        self._grade_lock = threading.Lock()  # one grade's processes at a time

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        from quizbank.drills import drills

        lang = posenc_app(self).language
        self._picker_lang = lang  # the language of the selector's titles
        yield Header()
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

    @property
    def path(self) -> Path:
        return drill_workspace(self.app) / f"{self.drill_name}.py"

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

    def _read_or_create(self) -> str:
        from quizbank.drills.loading import SourceFileError

        path = self.path
        try:
            text = _read_text(path)
            self._saved_mtime = path.stat().st_mtime
            return text
        except FileNotFoundError:
            pass
        except SourceFileError as exc:  # not a regular file, or too large: left as it is, not loaded
            self.notify(
                tr("drill.read_failed", posenc_app(self).language, error=_one_line(exc)), severity="warning"
            )
            self._keep_if_regular(path)
            try:  # said now: the file poll says it again only once the file changes
                self._saved_mtime = path.stat().st_mtime
            except OSError:
                pass
            return self.drill.starter
        except (OSError, UnicodeDecodeError) as exc:
            self.notify(
                tr("drill.save_failed", posenc_app(self).language, error=_one_line(exc)), severity="warning"
            )
            return self.drill.starter
        self._write(self.drill.starter)
        return self.drill.starter

    def _keep_if_regular(self, path: Path) -> None:
        """A refused regular file stays as it is: save() leaves it alone until a load succeeds. (A pipe or a
        device is refused by `_write` itself, with a message.)"""
        try:
            if path.is_file():
                self._kept_path = path
        except OSError:
            pass

    def _write(self, text: str) -> bool:
        from quizbank.atomicio import write_text_atomic

        path = self.path
        try:
            if path.exists() and not path.is_file():  # a pipe or a device: writing into it would block
                raise OSError(f"{path.name} is not a regular file")
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, text)
            self._saved_mtime = path.stat().st_mtime
        except OSError as exc:
            self.notify(
                tr("drill.save_failed", posenc_app(self).language, error=_one_line(exc)), severity="error"
            )
            return False
        return True

    def save(self) -> bool:
        """Write the editor's text to the file if it differs from what is there."""
        if self._save_timer is not None:
            self._save_timer.stop()
            self._save_timer = None
        if self._kept_path == self.path:
            return (
                False  # the file on disk was not loaded (too large): writing the editor over it would lose it
            )
        text = self._editor.text
        try:
            if _read_text(self.path) == text:
                return True
        except (OSError, UnicodeDecodeError):
            pass
        return self._write(text)

    @on(TextArea.Changed, "#drill-code")
    def _edited(self) -> None:
        if self._save_timer is not None:
            self._save_timer.stop()
        self._save_timer = self.set_timer(0.5, self._autosave, name="drill-autosave")

    def _autosave(self) -> None:
        """The autosave half a second after an edit; it never writes over a change made on disk since the
        last save or load (another editor): the file poll loads that change instead."""
        self._save_timer = None
        try:
            changed_on_disk = self._saved_mtime is not None and self.path.stat().st_mtime != self._saved_mtime
        except OSError:
            changed_on_disk = False
        if not changed_on_disk:
            self.save()

    def _poll_file(self) -> None:
        """Re-grade when the file changed on disk (an external editor, another terminal)."""
        try:
            mtime = self.path.stat().st_mtime
        except OSError:
            return
        if self._saved_mtime is None or mtime == self._saved_mtime:
            return
        from quizbank.drills.loading import SourceFileError

        try:
            text = _read_text(self.path)
        except SourceFileError as exc:  # said once per change on disk; neither loaded nor graded
            self._saved_mtime = mtime
            self._keep_if_regular(self.path)
            self.notify(
                tr("drill.read_failed", posenc_app(self).language, error=_one_line(exc)), severity="warning"
            )
            return
        except (OSError, UnicodeDecodeError):
            return
        self._saved_mtime = mtime
        self._kept_path = None  # loaded: the editor holds the file now
        if self._save_timer is not None:
            self._save_timer.stop()
            self._save_timer = None
        editor = self.query_one("#drill-code", TextArea)
        if editor.text != text:
            editor.load_text(text)
        self.notify(tr("drill.changed", posenc_app(self).language, path=self.path.name), timeout=3)
        self._start_grading()

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
        from quizbank.safetext import escape_unsafe

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
        seconds = f"{report.elapsed_ms / 1000:.1f}"
        total = len(report.cases)
        if report.passed:
            head = Content.styled(
                tr("drill.passed", lang, total=total, seconds=seconds), "bold $text-success"
            )
        else:
            head = Content.styled(
                tr("drill.failed", lang, passed=report.cases_passed, total=total, seconds=seconds),
                "bold $text-error",
            )
        lines = [head]
        common = report.common_diagnosis
        if common:
            failing = total - report.cases_passed
            mistake = escape_unsafe(common, one_line=True)
            lines.append(
                Content.styled(tr("drill.common_mistake", lang, count=failing, mistake=mistake), "bold")
            )
        for case in report.cases:
            mark = ("✓ ", "$text-success") if case.passed else ("✗ ", "$text-error")
            lines.append(
                Content.assemble(
                    mark,
                    (escape_unsafe(case.name, one_line=True), "bold"),
                    (f"  {case.elapsed_ms:.1f} ms", "dim"),
                )
            )
            message = case.message_without(common) if common and not case.passed else case.message
            if message:
                lines.append(
                    Content.styled(
                        "    " + escape_unsafe(message, one_line=True), "" if not case.passed else "dim"
                    )
                )
        if report.output:
            lines.append(Content.styled(tr("drill.output", lang), "bold"))
            lines.append(Content(escape_unsafe(report.output)))
        widget.update(Content("\n").join(lines))

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
                tr("drill.grade_failed", posenc_app(self).language, error=_one_line(exc)), severity="warning"
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
                self.post_message(self.DrillGraded(name, error=_one_line(exc)))
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
                    tr("store.record_failed", posenc_app(self).language, error=_one_line(exc)),
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
                tr("drill.editor_failed", posenc_app(self).language, error=_one_line(exc)), severity="error"
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


def _read_text(path: Path) -> str:
    """The drill file's text: a regular file of at most 256 KiB (`read_source`), else OSError."""
    from quizbank.drills.loading import read_source

    return read_source(path).decode("utf-8")


def _one_line(exc: BaseException) -> str:
    from quizbank.safetext import escape_unsafe

    lines = str(exc).strip().splitlines()
    return escape_unsafe(lines[0] if lines else type(exc).__name__, one_line=True)
