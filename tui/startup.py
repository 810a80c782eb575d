"""The app's start-up: what happens between Home's first paint and a ready app.

`AppStartup` is a mixin of `PosencApp` (`tui.app`). After Home's first paint (`first_paint`), named thread
workers load the banks (`load-banks`: the cached preview first, `BankPreviewReady`, then the full bank,
`BanksLoaded`), open the progress store (`open-store`, `StoreOpened`) and, once Home lists the topics
(`preview_painted`), start the demo process and warm torch up there (`torch-warmup`, `TorchWarmed`). Workers
never touch widgets: they post the messages of `tui.messages`, which the handlers here take on the UI thread.
The loader and the store worker wait (at most PREVIEW_PAINT_WAIT_S) for the topics to be painted, so the UI
thread has the GIL to itself for that paint.
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.reactive import reactive

from . import collector
from .demo_host import DemoHost
from .i18n import count, tr
from .keyorder import KeyQueue
from .keys import current_keymap, keymap_errors
from .messages import BankPreviewReady, BanksLoaded, StoreOpened, TorchWarmed, one_line

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[int]
else:
    _AppBase = object

__all__ = ["BENCH_EXIT_ENV", "PREVIEW_PAINT_WAIT_S", "AppStartup"]

BENCH_EXIT_ENV = "POSENC_BENCH_EXIT"  # "paint": exit right after the first paint
PREVIEW_PAINT_WAIT_S = 0.5  # the longest the bank loader waits for Home to paint the preview


class AppStartup(_AppBase):
    """The start-up workers and the handlers of their messages (mixed into `PosencApp`, which sets the state
    below in its `__init__`)."""

    if TYPE_CHECKING:  # set by PosencApp
        language: reactive[str]
        banks_version: reactive[int]
        bank_preview: reactive[Any]
        key_queue: KeyQueue
        bank_paths: list[str]
        data_dir: str | None
        include_shipped: bool
        include_user: bool
        forced_language: str | None
        warm_torch: bool
        should_open_store: bool
        bankset: Any
        banks_error: str | None
        _after_banks: Callable[[], None] | None
        _preview_shown: threading.Event
        store: Any
        _store_lock: threading.Lock
        _store_closing: bool
        _opened_store: Any
        store_error: str | None
        store_notices: list[str]
        store_ready: bool
        instant_submit: bool
        torch_ready: bool
        torch_error: str | None
        first_paint_at: float | None
        demo_host: DemoHost | None
        _warm_up_started: bool

        def bench_event(self, event: str, **fields: Any) -> None: ...
        def _language_changed(self) -> None: ...

    def first_paint(self) -> None:
        """Called by the Home screen after its first refresh: start the background work."""
        if self.first_paint_at is not None:
            return
        self.first_paint_at = time.time()
        self.bench_event("first_paint", t=self.first_paint_at)
        # Everything made so far (Textual, the first screen) lives as long as the app: a full garbage
        # collection over it would cost ~40 ms while Home lists the topics. Freeze it out of the collector.
        gc.freeze()
        if os.environ.get(BENCH_EXIT_ENV) == "paint":
            self.exit(0)
            return
        # `posenc` held the collector off from its start (tui.collector): it runs again once the topics are
        # listed (`preview_painted`), the banks are in, or at the latest:
        self.set_timer(PREVIEW_PAINT_WAIT_S, collector.release)
        self.load_banks()
        if self.should_open_store:
            self.open_progress_store()
        else:
            self.store_ready = True
        if self.warm_torch:  # once the topics are shown (`preview_painted`), the banks in, or at the latest:
            self.set_timer(PREVIEW_PAINT_WAIT_S, self._start_warm_up)

    def _start_warm_up(self) -> None:
        """Start the demo process and warm torch up, once, after Home has listed the topics: the process start
        (importing ctypes, a fork: ~25 ms of this thread) and torch's import (a core for a second) must not
        delay them. Called on the UI thread, so the demo process dies with the app (`tui.demo_host`)."""
        if self._warm_up_started or not self.warm_torch or self.first_paint_at is None:
            return
        self._warm_up_started = True
        if self.demo_host is not None:
            self.demo_host.start()
        self.warm_up_torch()

    @work(thread=True, name="load-banks", group="banks", exclusive=True, exit_on_error=False)
    def load_banks(self, reload: bool = False) -> None:
        """Thread worker: load every bank, then post BanksLoaded. At startup, when the bank
        cache applies, its plain preview is posted first (BankPreviewReady, ~50 ms, no pydantic): Home
        lists the topics from it while the rest (~0.4 s, mostly pydantic) loads here."""
        start = time.perf_counter()
        self._import_legacy_predictions()  # before the preview: that file is no topic any more
        if not reload and self._post_preview():
            # the UI thread paints the topics first: this thread would otherwise hold the GIL for it
            self._preview_shown.wait(PREVIEW_PAINT_WAIT_S)
        self._preview_shown.set()  # (no preview) the store worker need not wait
        from . import richtext  # noqa: F401  (Home's topic info and Search need it: imported off the UI thread)

        try:
            from quizbank.loader import load_banks

            bankset = load_banks(
                self.bank_paths,
                include_shipped=self.include_shipped,
                include_user=self.include_user,
                use_cache=True,  # unchanged files load from quizbank.bank_cache
            )
        except Exception as exc:  # noqa: BLE001 - the loader reports file problems itself; this is the unexpected
            self.post_message(BanksLoaded(None, one_line(exc), reload=reload))
            return
        elapsed = (time.perf_counter() - start) * 1000
        self.post_message(BanksLoaded(bankset, None, reload=reload, elapsed_ms=elapsed))

    def _import_legacy_predictions(self) -> None:
        """Saved predictions were once a bank file in the user's folder: move them into the store before
        any load lists them (`quizbank.predictions.move_legacy_file`; without that file, one stat)."""
        if not (self.include_user and self.should_open_store):
            return
        from quizbank.bankfiles import LEGACY_PREDICTIONS_FILE, user_bank_dir

        folder = user_bank_dir()
        if not (folder / LEGACY_PREDICTIONS_FILE).is_file():
            return  # (the usual case: quizbank.predictions, ~5 ms of imports, is not needed before the topics)
        from quizbank.predictions import move_legacy_file

        try:
            moved = move_legacy_file(self.data_dir, folder)
        except Exception as exc:  # noqa: BLE001 - the file stays a bank until the next start tries again
            self.notify(tr("predict.import_failed", self.language, error=one_line(exc)), severity="warning")
            return
        if moved is not None:
            n = moved.added + moved.present
            self.notify(tr("predict.imported", self.language, n=n, file=str(moved.set_aside)), timeout=8)

    def _post_preview(self) -> bool:
        """Post the banks' preview, if the bank cache answers this load. Returns whether it did."""
        try:
            from quizbank.bank_preview import read_preview

            preview = read_preview(
                self.bank_paths, include_shipped=self.include_shipped, include_user=self.include_user
            )
        except Exception:  # noqa: BLE001 - the preview is an optimisation: the full load decides
            return False
        if preview is None:
            return False
        language = None
        if self.forced_language is None and self.should_open_store:
            # the store opens after this paint: list the topics in the language the user chose last time
            from quizbank.progress.paths import peek_setting

            saved = peek_setting(self.data_dir, "language")
            language = saved if saved in ("en", "zh") else None
        self.post_message(BankPreviewReady(preview, language))
        return True

    def preview_painted(self) -> None:
        """Home calls this once the preview's topics are on screen: the loader goes on, torch warms up."""
        collector.release()
        self._preview_shown.set()
        self._start_warm_up()

    @work(thread=True, name="open-store", group="store", exclusive=True, exit_on_error=False)
    def open_progress_store(self) -> None:
        """Thread worker: open the progress store (thread-safe), then post StoreOpened. It starts once
        Home shows the topics (or the banks are in): the progress columns can follow a moment later."""
        self._preview_shown.wait(PREVIEW_PAINT_WAIT_S)
        try:
            from quizbank.progress.store import StoreError, open_store
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            self.post_message(StoreOpened(None, one_line(exc)))
            return
        try:
            store = open_store(self.data_dir)
        except StoreError as exc:
            self.post_message(StoreOpened(None, str(exc)))
            return
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure
            self.post_message(StoreOpened(None, one_line(exc)))
            return
        with self._store_lock:
            if self._store_closing:  # the app ended while the store opened: nobody would close it
                store.close()
                return
            self._opened_store = store  # shutdown closes it, even before StoreOpened arrives
        self.post_message(StoreOpened(store, None, list(getattr(store, "notices", []))))

    def on_unmount(self) -> None:
        """The app is ending: every screen has unmounted (a mock interview saved itself), so close the
        progress store. A worker still writing finishes first (the store's lock); a later one finds no store."""
        with self._store_lock:
            self._store_closing = True
            store, self._opened_store, self.store = self._opened_store, None, None
        if store is not None:
            store.close()

    @work(thread=True, name="torch-warmup", group="warmup", exclusive=True, exit_on_error=False)
    def warm_up_torch(self) -> None:
        """Thread worker: get torch imported and a device picked before the first demo, in the
        demo host process (default) or, with an in-process runner, here."""
        start = time.perf_counter()
        try:
            if self.demo_host is not None:
                device = self.demo_host.warm()
            else:
                import torch

                from posenc_ref.device import pick_device

                device = str(pick_device("auto"))
                torch.zeros(8, device=device).sum().item()
        except Exception as exc:  # noqa: BLE001 - a worker reports any failure: torch is then unusable
            self.post_message(TorchWarmed((time.perf_counter() - start) * 1000, None, one_line(exc)))
            return
        self.post_message(TorchWarmed((time.perf_counter() - start) * 1000, device))

    @work(thread=True, name="migrate-replaced", group="store-migrate", exclusive=True, exit_on_error=False)
    def migrate_replaced_ids(self) -> None:
        """Thread worker: move progress from merged-away question ids to their replacements (idempotent)."""
        store, bankset = self.store, self.bankset
        if store is None or bankset is None or not getattr(bankset, "replaced_by", None):
            return
        try:
            moved = store.migrate_replaced_ids(bankset.replaced_by)
        except Exception as exc:  # noqa: BLE001 - progress stays where it was; the next start tries again
            self.call_from_thread(self.notify, one_line(exc), severity="warning")
            return
        if moved:
            self.call_from_thread(self._progress_migrated)

    def _progress_migrated(self) -> None:
        self.banks_version += 1  # screens showing progress refresh with the moved history

    def on_bank_preview_ready(self, message: BankPreviewReady) -> None:
        if self.bankset is None:
            if message.language is not None and message.language != self.language and self.store is None:
                self.set_reactive(type(self).language, message.language)
                self._language_changed()
            self.bank_preview = message.preview
        else:
            self._preview_shown.set()

    def on_banks_loaded(self, message: BanksLoaded) -> None:
        collector.release()
        self._preview_shown.set()
        self._start_warm_up()
        pending, self._after_banks = self._after_banks, None
        if pending is not None:
            self.key_queue.resume()  # after `pending` below: the keys go to the screen it opens
        if message.bankset is None:
            self.banks_error = message.error
            self.bank_preview = None  # the preview must not hide that the load failed
            if message.reload:
                self.notify(tr("reload.failed", self.language, error=message.error), severity="error")
            elif pending is not None:
                self.notify(tr("banks.failed", self.language, error=message.error), severity="error")
            self.banks_version += 1
            return
        self.bankset = message.bankset
        self.bank_preview = None
        self.banks_error = None
        self.bench_event("banks_loaded", ms=message.elapsed_ms)
        self.migrate_replaced_ids()
        if message.reload:
            self.notify(
                tr(
                    "reload.done",
                    self.language,
                    topics=len(self.bankset.topics),
                    questions=len(self.bankset.questions),
                    topics_text=count(len(self.bankset.topics), "topic"),
                    questions_text=count(len(self.bankset.questions), "question"),
                ),
                timeout=3,
            )
        self.banks_version += 1
        if pending is not None:
            pending()  # what was asked for while the banks loaded

    def on_store_opened(self, message: StoreOpened) -> None:
        if self._store_closing:
            return
        self.store = message.store
        self.store_error = message.error
        self.store_notices = message.notices
        self.store_ready = True
        for notice in message.notices:
            self.notify(notice, severity="warning", timeout=10)
        if self.store is not None:
            if self.forced_language is None:
                # "" (not None) as the default: the store would answer None with its own
                # built-in "en" and override the locale's choice on a fresh store
                saved = self._setting("language", "")
                if saved in ("en", "zh") and saved != self.language:
                    self.language = saved  # every screen's watcher re-labels (Home may be listing topics)
            self.apply_keymap(self._setting("keymap", {}) or {})
            self.instant_submit = bool(self._setting("instant_submit", False))
            self.migrate_replaced_ids()
        self.banks_version += 1  # Home shows progress (due, mastery) once the store is there

    def on_torch_warmed(self, message: TorchWarmed) -> None:
        self.torch_ready = message.error is None
        self.torch_error = message.error
        self.bench_event("torch_warm", ms=message.elapsed_ms, error=message.error)

    def _setting(self, key: str, default: Any) -> Any:
        try:
            return self.store.get_setting(key, default)
        except Exception:  # noqa: BLE001 - an unreadable setting falls back to its default
            return default

    def apply_keymap(self, keymap: Any) -> None:
        """Apply user remaps {binding id: "keys"} from the "keymap" setting (bad ones are reported)."""
        error = keymap_errors(keymap)
        if error:
            self.notify(tr("keymap.bad", self.language, error=error), severity="warning")
            return
        if keymap:
            self.set_keymap(current_keymap(keymap))
