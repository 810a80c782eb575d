"""The posenc study app (Textual).

Startup is built for a fast first paint: this module imports only Textual. The Home screen
mounts in a light "loading banks" state; after the first refresh, the start-up workers (`tui.startup`,
mixed in as `AppStartup`) load the banks (the cached preview first, then pydantic + YAML, ~100 ms+), open
the progress store and, once Home lists the topics, start the demo process and import torch there (~1 s)
to warm it for the first demo. Workers never touch widgets: they post messages (`tui.messages`) that the
app handles on the UI thread.

API used by other screens (Study, Stats) and widgets:

* `app.bankset` - the loaded `quizbank.loader.BankSet` (None while loading or if loading failed);
  `app.banks_version` (reactive int) increments on every (re)load: watch it to refresh.
* `app.bank_view` - the bankset, or before it is in, the cached banks' plain preview
  (`quizbank.bank_preview`: topics, prompts, answers) that Home and Search show meanwhile;
  `app.bank_preview` (reactive) is set when that preview arrives.
* `app.require_banks(retry)` - False while the banks load or after they failed; `retry` then runs
  once they are in, so a key pressed during the first second is not lost.
* `app.store` - the `ProgressStore`, or None when it could not open (`app.store_error` says why).
* `app.language` - reactive "en" / "zh"; `l` toggles it everywhere and the choice is saved.
* `app.open_question(question_id)`, `app.open_topic(topic_id)`, `app.open_demo(name)` - jump.
* `app.record_attempt(question_id, grade, duration_ms)` - record a quiz answer in a worker.
* `app.demo_runner` - callable `(name, params) -> DemoResult` used by `DemoPanel`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen

from . import cjkwrap, collector
from .commands import PosencCommands
from .demo_host import DemoHost
from .i18n import default_language, tr
from .keyorder import KeyQueue
from .keys import bind, focused_takes_text, localize_bindings
from .messages import one_line
from .startup import AppStartup

if TYPE_CHECKING:
    from quizbank.grading import Grade

__all__ = ["PosencApp", "run_app"]

BENCH_LOG_ENV = "POSENC_BENCH_LOG"  # append JSON events (first paint, demo results, key latency)
INPROCESS_ENV = "POSENC_DEMO_INPROCESS"  # "1": run demos (and torch) in the UI process
THEME = "tokyo-night"


class PosencApp(AppStartup, App[int], inherit_bindings=False):
    """Interview prep and live reference for position encoding in Transformers."""

    # The default (Home) screen's CSS is listed here: Textual loads a screen's CSS_PATH only when
    # the screen is pushed, not for the default screen.
    # Absolute paths, so subclasses defined elsewhere (tests, benchmarks) find them too.
    CSS_PATH = [Path(__file__).with_name("app.tcss"), Path(__file__).parent / "screens" / "home.tcss"]
    TITLE = "posenc"
    # Screens get -narrow below 90 columns, so side panes give the main content more room at 80x24.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (90, "-normal")]
    COMMANDS = App.COMMANDS | {PosencCommands}
    ENABLE_COMMAND_PALETTE = True
    # Screen keys come first in the footer, then these (most useful first: a narrow footer
    # crops the end). `q` goes back; on Home it asks for a second `q` before quitting.
    # Textual's own app bindings are not inherited (they would come first): ctrl+q and the
    # palette are redefined here with ids, and ctrl+c keeps its "how to quit" hint.
    BINDINGS = [
        bind("question_mark", "help", "help", "key.help", key_display="?"),
        bind("slash", "search", "search", "key.search", key_display="/"),
        bind("l", "toggle_language", "language", "key.language"),
        bind("r", "reload", "reload", "key.reload"),
        bind("q", "back", "back", "key.back"),
        bind("ctrl+q", "quit", "quit", "key.quit", priority=True),
        bind("escape", "leave_input", "leave_input", "key.leave_input", show=False),
        # Replaces Textual's own palette binding, so it has an id and a localized description.
        bind("ctrl+p", "command_palette", "palette", "key.palette", show=False, priority=True),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    language: reactive[str] = reactive("en", init=False)
    banks_version: reactive[int] = reactive(0, init=False)
    # (no repaint: Home's watcher mounts what changes; a repaint of the whole screen cost ~10 ms before the topics)
    bank_preview: reactive[Any] = reactive(None, init=False, always_update=True, repaint=False)

    def __init__(
        self,
        bank_paths: Sequence[str] = (),
        data_dir: str | None = None,
        *,
        include_shipped: bool = True,
        include_user: bool = True,
        language: str | None = None,
        seed: int | None = None,
        demo_runner: Callable[[str, dict[str, Any]], Any] | None = None,
        warm_torch: bool = True,
        open_store: bool = True,
        cursor_blink: bool = True,
    ) -> None:
        """
        Args:
            bank_paths: extra bank files or folders (`posenc --bank`).
            data_dir: progress store folder (`--data-dir`); None uses POSENC_DATA_DIR or the platform dir.
            include_shipped / include_user: passed to `load_banks` (tests turn them off).
            language: force a language instead of the saved setting.
            seed: fixed quiz shuffle seed (tests, snapshots); None draws one per session.
            demo_runner: `(name, params) -> DemoResult`; default `posenc_ref.demos.run_demo`.
            warm_torch: import torch in a background worker after the first paint.
            open_store: open the progress store (tests of pure UI can turn it off).
            cursor_blink: False for snapshots.
        """
        cjkwrap.install()  # Rich (in this process) wraps Chinese between characters, not only at spaces
        # The theme before `App.__init__` builds the stylesheet from its colours: set on mount, it re-parsed and
        # re-applied all the CSS before the first paint (~13 ms).
        self.set_reactive(App.theme, THEME)
        super().__init__()
        self.add_class(f"-theme-{THEME}", update=False)  # (what `App._watch_theme` adds)
        self.key_queue = KeyQueue(self)  # every key, one at a time, in the order typed (tui.keyorder)
        self.bank_paths = [str(p) for p in bank_paths]
        self.data_dir = data_dir
        self.include_shipped = include_shipped
        self.include_user = include_user
        self.forced_language = language
        self.fixed_seed = seed
        self._demo_runner = demo_runner
        self.warm_torch = warm_torch
        self.should_open_store = open_store
        self.cursor_blink = cursor_blink
        self.bankset: Any = None
        self.banks_error: str | None = None
        self._after_banks: Callable[[], None] | None = None  # see require_banks
        # set once Home shows the preview's topics (or there is none): the loader and the store worker
        # wait for it, so the UI thread has the GIL to itself for that paint
        self._preview_shown = threading.Event()
        self.store: Any = None
        self._store_lock = threading.Lock()  # the open-store worker and shutdown agree on who closes it
        self._store_closing = False
        self._opened_store: Any = None
        self.store_error: str | None = None
        self.store_notices: list[str] = []
        self.store_ready = False
        self.instant_submit = False  # the "instant_submit" setting: quiz mcq/truefalse answer on one key
        self.torch_ready = False
        self.torch_error: str | None = None
        self.first_paint_at: float | None = None
        self._bench_log = os.environ.get(BENCH_LOG_ENV) or None
        # Demos run in a child process (tui/demo_host.py) unless a runner is injected or
        # POSENC_DEMO_INPROCESS=1: the UI process then never imports torch.
        self.demo_host: DemoHost | None = (
            None if demo_runner is not None or os.environ.get(INPROCESS_ENV) == "1" else DemoHost()
        )
        self._launched = time.time()
        self._warm_up_started = False
        self.set_reactive(PosencApp.language, language or default_language())

    # ------------------------------------------------------------------ startup

    def get_default_screen(self) -> Screen:
        from .screens.home import HomeScreen

        return HomeScreen()

    def _presized(self, screen: Any) -> Any:
        """A new screen gets its width class (-narrow / -normal) now: Textual adds it on the screen's
        first Resize, after mounting, which restyled the whole new screen once more."""
        if isinstance(screen, Screen) and not screen.is_attached:
            breakpoints = screen.HORIZONTAL_BREAKPOINTS
            breakpoints = (self.HORIZONTAL_BREAKPOINTS if breakpoints is None else breakpoints) or []
            for threshold, name in sorted(breakpoints, reverse=True):
                if self.size.width >= threshold:
                    screen.add_class(name, update=False)
                    break
        return screen

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        return super().push_screen(self._presized(screen), *args, **kwargs)

    def switch_screen(self, screen: Any) -> Any:
        return super().switch_screen(self._presized(screen))

    def on_mount(self) -> None:
        self.sub_title = tr("app.subtitle", self.language)
        localize_bindings(self, self.language)
        self.watch(self, "app_focus", self._app_focus_changed, init=False)

    def _app_focus_changed(self, focus: bool) -> None:
        """A browser tab (posenc serve) starts blurred, and a footer composed then stays empty. A key or
        a click gives the app focus without a focus event: re-list the screen's keys then, so the footer
        shows them (Textual re-lists them only on a focus event)."""
        if focus:
            self._follow_saved_language()
            self.screen.refresh_bindings()

    def _follow_saved_language(self) -> None:
        """Another tab (posenc serve: the spare tab started ahead too) may have switched the language since
        this app read it: a tab that gets focus follows the last saved choice (one read-only query)."""
        if self.forced_language is not None or self.store is None:
            return
        from quizbank.progress.paths import peek_setting

        saved = peek_setting(self.data_dir, "language")
        if saved in ("en", "zh") and saved != self.language:
            self.language = saved

    def bench_event(self, event: str, **fields: Any) -> None:
        """Append one JSON line to $POSENC_BENCH_LOG (used by bench/startup.py); no-op otherwise. It names
        this process: under `posenc serve` every tab's app and the spare write to one log."""
        if not self._bench_log:
            return
        record = {"event": event, "t": time.time(), "pid": os.getpid(), **fields}
        with open(self._bench_log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if not self.app_focus:
                self.app_focus = True
            await self.key_queue.arrived(event)  # dispatched from there, in order (tui.keyorder)
            return
        if isinstance(event, events.Paste) and not event.is_forwarded:
            await self.key_queue.arrived(event)  # in line with the keys typed before it
            return
        await super().on_event(event)

    def on_key(self, event: events.Key) -> None:
        """In bench mode, log each key's latency: from the key event to the repaint after the
        binding it triggered (keys reach the app after bindings ran; typing into an Input does not)."""
        if self._bench_log is not None:
            screen = type(self.screen).__name__  # where the key was pressed (it may switch screens)
            self.screen.call_after_refresh(self._log_key_latency, event.key, event.time, screen)

    def _log_key_latency(self, key: str, started: float, screen: str) -> None:
        self.bench_event(
            "key",
            key=key,
            ms=(time.monotonic() - started) * 1000,
            screen=screen,
            shown=type(self.screen).__name__,
        )

    async def action_quit(self) -> None:
        """Ctrl+Q: quit at once, unless the screen holds work it must ask about first (`confirm_quit()`
        returns True once it has asked; the mock interview does)."""
        ask = getattr(self.screen, "confirm_quit", None)
        if callable(ask) and ask():
            return
        self.exit()

    @property
    def bank_view(self) -> Any:
        """What Home and Search list: the loaded bankset, else the preview (or None)."""
        return self.bankset if self.bankset is not None else self.bank_preview

    @property
    def holds_keys(self) -> bool:
        """True while an action asked for before the banks were in waits for them (`require_banks`): the
        keys typed after it wait in the key queue (`tui.keyorder`) and go to where that action leads."""
        return self._after_banks is not None

    # ------------------------------------------------------------------ language

    def action_toggle_language(self) -> None:
        self.language = "zh" if self.language == "en" else "en"
        if self.store is not None:
            try:
                self.store.set_setting("language", self.language)
            except Exception as exc:  # noqa: BLE001 - shown, never raised: the UI must not crash
                self.notify(tr("store.setting_failed", self.language, error=one_line(exc)), severity="error")

    def watch_language(self) -> None:
        self._language_changed()

    def _language_changed(self) -> None:
        self.sub_title = tr("app.subtitle", self.language)
        for screen in self.screen_stack:
            localize_bindings(screen, self.language)
            for node in screen.walk_children():
                localize_bindings(node, self.language)
        localize_bindings(self, self.language)
        self.refresh_bindings()

    # ------------------------------------------------------------------ actions

    def action_back(self) -> None:  # type: ignore[override]  # Textual takes sync or async
        """Close the current screen. On the first screen nothing is closed: Home binds `q` to
        its quit confirmation instead (Ctrl+Q quits at once)."""
        if len(self.screen_stack) > 1:
            self.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_input":
            from textual.widgets import Input  # lazily: Home does not need it for its first paint

            return isinstance(self.focused, Input)
        if action in ("help", "search", "toggle_language", "reload", "back") and focused_takes_text(self):
            return False  # a letter key the focused field would type: not offered in the footer
        if action == "back":
            return len(self.screen_stack) > 1
        return True

    def action_leave_input(self) -> None:
        """Esc in a text field: leave it, so single-key bindings (q, d, n, ...) work again. The
        screen may name where focus goes (`leave_input_target()`); else nothing is focused."""
        target_of = getattr(self.screen, "leave_input_target", None)
        target = target_of() if callable(target_of) else None
        self.screen.set_focus(target)

    def action_command_palette(self) -> None:
        """The command palette, with a placeholder in the app language."""
        from textual.command import CommandPalette

        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]  # App[int]
            self.push_screen(
                CommandPalette(placeholder=tr("palette.placeholder", self.language), id="--command-palette")
            )

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))  # it starts at this screen's section

    def action_search(self) -> None:
        from .screens.search import SearchScreen

        if not isinstance(self.screen, SearchScreen):
            self.push_screen(SearchScreen(), callback=lambda jump: jump() if jump is not None else None)

    def action_reload(self) -> None:
        self.load_banks(reload=True)

    def require_banks(self, retry: Callable[[], None] | None = None) -> bool:
        """True if banks are loaded. Otherwise False: after a failed load the user is told why; while they
        load, `retry` (the action asked for) runs once they are in, or the user is told to wait; the keys typed
        after it wait for it too (`holds_keys`)."""
        if self.bankset is not None:
            return True
        if self.banks_error or retry is None:
            self.notify(self.banks_error or tr("not.ready", self.language), severity="warning")
        else:
            self._after_banks = retry  # the latest request wins
            if self.bank_preview is None:
                self.notify(tr("not.ready", self.language), timeout=2)
        return False

    def open_question(self, question_id: str) -> None:
        """Show one question in Browse (its topic, scrolled to it, with its demo beside it)."""
        if not self.require_banks(partial(self.open_question, question_id)):
            return
        if question_id not in self.bankset.questions:
            self.notify(tr("question.missing", self.language, id=question_id), severity="warning")
            return
        from .screens.browse import BrowseScreen

        topic_id = self.bankset.topic_of[question_id]
        if isinstance(self.screen, BrowseScreen) and self.screen.topic_id == topic_id:
            self.screen.select_question(question_id)
        else:
            self.push_screen(BrowseScreen(topic_id, question_id))

    def try_question(self, question_id: str) -> None:
        """Try it: one question in quiz mode (`o` there reads it in Browse instead)."""
        if not self.require_banks(partial(self.try_question, question_id)):
            return
        if question_id not in self.bankset.questions:
            self.notify(tr("question.missing", self.language, id=question_id), severity="warning")
            return
        from quizbank.quiz_session import QuizConfig, QuizSession, new_seed

        from .screens.quiz import QuizScreen

        seed = self.fixed_seed if self.fixed_seed is not None else new_seed()
        self.push_screen(QuizScreen(QuizSession(QuizConfig(count=1, seed=seed), [question_id]), try_it=True))

    def open_topic(self, topic_id: str) -> None:
        """Browse a topic from its first question."""
        if not self.require_banks(partial(self.open_topic, topic_id)):
            return
        from .screens.browse import BrowseScreen

        if not any(t.id == topic_id for t in self.bankset.topics):
            self.notify(tr("topic.missing", self.language, id=topic_id), severity="warning")
            return
        self.push_screen(BrowseScreen(topic_id))

    def open_demo(self, name: str | None = None) -> None:
        """Open the Demo lab, optionally on demo `name`."""
        from .screens.demo_lab import DemoLabScreen

        self._start_warm_up()  # asked for before the topics were listed: the demos need it now

        if isinstance(self.screen, DemoLabScreen):
            if name:
                self.screen.select_demo(name)
            return
        self.push_screen(DemoLabScreen(name))

    def open_drills(self, name: str | None = None) -> None:
        """Open the Drill screen, optionally on drill `name`."""
        from .screens.drill import DrillScreen

        if isinstance(self.screen, DrillScreen):
            if name:
                self.screen.select_drill(name)
            return
        self.push_screen(DrillScreen(name))

    def open_quiz_setup(self, topics: Sequence[str] = ()) -> None:
        if not self.require_banks(partial(self.open_quiz_setup, topics)):
            return
        from .screens.quiz import QuizSetupScreen

        self.push_screen(QuizSetupScreen(tuple(topics)))

    def open_study(self, topic_id: str | None = None) -> None:
        if not self.require_banks(partial(self.open_study, topic_id)):
            return
        try:
            from .screens.study import StudyScreen
        except ImportError as exc:
            self.notify(
                tr("module.missing", self.language, what="Study", error=one_line(exc)), severity="warning"
            )
            return
        self.push_screen(StudyScreen(topic_id))

    def open_stats(self) -> None:
        if not self.require_banks(self.open_stats):
            return
        try:
            from .screens.stats import StatsScreen
        except ImportError as exc:
            self.notify(
                tr("module.missing", self.language, what="Stats", error=one_line(exc)), severity="warning"
            )
            return
        self.push_screen(StatsScreen())

    # ------------------------------------------------------------------ demos and progress

    @property
    def demo_runner(self) -> Callable[[str, dict[str, Any]], Any]:
        """`(name, params) -> DemoResult`; runs on a worker thread."""
        if self._demo_runner is not None:
            return self._demo_runner
        if self.demo_host is not None:
            return self.demo_host.run
        from posenc_ref.demos import run_demo

        return run_demo

    def record_attempt(
        self,
        question_id: str,
        grade: Grade,
        duration_ms: int,
        *,
        schedule: bool = False,
        instance: dict[str, Any] | None = None,
    ) -> None:
        """Record a quiz answer in the store (in a worker: the UI never waits on the disk). `schedule`: a
        quiz answer also updates the Study card (unless the "quiz_schedules" setting is off). `instance`:
        the seed and parameters of a generated question's showing."""
        if self.store is None:
            return
        self._record_attempt_worker(
            question_id, grade.correct, grade.response, duration_ms, schedule, instance
        )

    @work(thread=True, group="record", exit_on_error=False)
    def _record_attempt_worker(
        self,
        question_id: str,
        correct: bool | None,
        response: str,
        duration_ms: int,
        schedule: bool = False,
        instance: dict[str, Any] | None = None,
    ) -> None:
        try:
            if instance is None:
                self.store.record_attempt(question_id, correct, response, duration_ms)
            else:
                self.store.record_attempt(question_id, correct, response, duration_ms, instance=instance)
            if schedule and correct is not None and self.store.get_setting("quiz_schedules", True):
                # the rule (wrong: Again; right on a due card: Good) is the store's: quizbank/progress/cards.py
                self.store.review_quiz_answer(
                    question_id, correct, duration_ms=duration_ms, instance=instance
                )
        except Exception as exc:  # noqa: BLE001 - shown, never raised: the UI must not crash
            self.notify(tr("store.record_failed", self.language, error=one_line(exc)), severity="error")


def run_app(bank_paths: Sequence[str] = (), data_dir: str | None = None, language: str | None = None) -> int:
    """Entry point of `posenc` with no subcommand (`language`: `posenc --lang`, else the saved setting).
    Returns the process exit code."""
    if data_dir is not None:
        data_dir = str(Path(data_dir).expanduser())
    app = PosencApp(bank_paths, data_dir, language=language)
    try:
        app.run()
    finally:
        collector.release()  # (an app that ended before its topics were listed)
        if app.demo_host is not None:
            app.demo_host.close()
    return app.return_code or 0
