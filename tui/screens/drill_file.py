"""The Drill screen's file: `<data dir>/drills/NAME.py`, the candidate's code, which the screen's editor holds.

`DrillFile` is a mixin for `DrillScreen` (as `QuestionMarks` is for the question screens). It reads the file, or
creates it from the starter; saves it atomically (`quizbank.atomicio`) when asked, and half a second after an
edit (the autosave, which never writes over a change made on disk since: another editor); and polls its mtime
once a second, loading and re-grading a change made on disk. The file is read through
`quizbank.drills.loading.read_source`: a regular file of at most 256 KiB. A regular file refused on reading
(too large) is left as it is: no save writes over it until a load succeeds. A pipe or a device is never
written into.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import Screen
from textual.widgets import TextArea

from ..appenv import workspace_override
from ..appref import posenc_app
from ..i18n import tr

# The mixin is only ever mixed into the Drill screen: to mypy it is a Screen (self.app, self.notify), at run
# time a plain class first in the screen's bases.
if TYPE_CHECKING:
    _ScreenMixin = Screen
else:
    _ScreenMixin = object

__all__ = ["POLL_SECONDS", "DrillFile", "drill_workspace", "error_line"]

POLL_SECONDS = 1.0


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


class DrillFile(_ScreenMixin):
    """Mixin for the Drill screen: its file (see the module docstring). The screen's editor is `_editor`
    (`#drill-code`); the screen's `drill_name`, `drill` and `_start_grading` are the drill shown and its grade."""

    drill_name: str
    _editor: TextArea
    _saved_mtime: float | None = None  # the file's mtime at the last save or load
    _save_timer: Any = None  # the pending autosave
    # a regular file refused on reading (too large): never written over, or the candidate's file is lost
    _kept_path: Path | None = None

    @property
    def drill(self) -> Any:
        """The drill shown (the screen's)."""
        raise NotImplementedError

    def _start_grading(self) -> None:
        """Grade the file (the screen's)."""
        raise NotImplementedError

    @property
    def path(self) -> Path:
        return drill_workspace(self.app) / f"{self.drill_name}.py"

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
                tr("drill.read_failed", posenc_app(self).language, error=error_line(exc)), severity="warning"
            )
            self._keep_if_regular(path)
            try:  # said now: the file poll says it again only once the file changes
                self._saved_mtime = path.stat().st_mtime
            except OSError:
                pass
            return self.drill.starter
        except (OSError, UnicodeDecodeError) as exc:
            self.notify(
                tr("drill.save_failed", posenc_app(self).language, error=error_line(exc)), severity="warning"
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
                tr("drill.save_failed", posenc_app(self).language, error=error_line(exc)), severity="error"
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
                tr("drill.read_failed", posenc_app(self).language, error=error_line(exc)), severity="warning"
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


def _read_text(path: Path) -> str:
    """The drill file's text: a regular file of at most 256 KiB (`read_source`), else OSError."""
    from quizbank.drills.loading import read_source

    return read_source(path).decode("utf-8")


def error_line(exc: BaseException) -> str:
    """An error as one line to show: its message's first line (or its type), control characters escaped."""
    from quizbank.safetext import escape_unsafe

    lines = str(exc).strip().splitlines()
    return escape_unsafe(lines[0] if lines else type(exc).__name__, one_line=True)
