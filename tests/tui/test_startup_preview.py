"""The first second: Home lists the topics, and Search finds questions, from the cached shipped bank's
preview while the full bank is still loading; a key pressed meanwhile runs once it is in."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support.apps import topics_listed
from support.pilot import pilot_test, settle, wait_for
from textual.widgets import Tree

from quizbank import bank_cache


@pilot_test
async def test_topics_and_search_before_the_full_bank(slow_full_load: threading.Event, env: Path) -> None:
    from support.apps import fake_demo_runner, screen_text

    from tui.app import PosencApp
    from tui.screens.quiz import QuizSetupScreen
    from tui.screens.search import SearchScreen

    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await topics_listed(pilot)
        assert app.bankset is None and app.bank_preview is not None  # the full load is held
        tree = app.screen.query_one("#topic-tree", Tree)
        topics = [n for n in tree.root.children if n.data[0] == "topic"]
        assert [n.data[1] for n in topics] == [t.id for t in app.bank_preview.topics]
        assert len(topics) >= 10
        text = screen_text(app)
        assert "Rotary" in text or "RoPE" in text
        assert f"{len(app.bank_preview.questions)} questions" in text

        await pilot.press("slash")
        await pilot.press(*"yarn")
        await wait_for(
            lambda: isinstance(app.screen, SearchScreen) and "context-extension.yarn" in screen_text(app),
            timeout=10,
            state=lambda: screen_text(app),
        )
        found = screen_text(app)
        assert "context-extension.yarn" in found
        await pilot.press("escape")

        await pilot.press("z")  # the quiz needs the full bank: asked now, opened when it is in
        await wait_for(lambda: not app.key_queue.pending)  # `z` handled (workers wait on the held load)
        assert not isinstance(app.screen, QuizSetupScreen)
        slow_full_load.set()
        await wait_for(lambda: isinstance(app.screen, QuizSetupScreen) and app.screen.query("#setup-topics"))
        await pilot.pause()
        assert app.bankset is not None and app.bank_preview is None
        assert len(app.bankset.questions) == len(app.bankset.topic_of)


@pilot_test
async def test_the_topics_mix_of_types_shows_without_building_a_preview_question(
    slow_full_load: threading.Event, env: Path
) -> None:
    """The topic info under the tree counts each type from the preview's ids and types: building every
    preview question for it (~15 ms on the UI thread) came before the topics were painted."""
    from collections import Counter

    from support.apps import fake_demo_runner, screen_text

    from tui.app import PosencApp
    from tui.i18n import tr

    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await topics_listed(pilot)
        preview = app.bank_preview
        assert app.bankset is None and preview is not None
        first = preview.topics[0]
        mix = Counter(preview.question_type(qid) for qid in preview.topic_of)  # the cursor is on "All topics"
        await wait_for(lambda: "All topics" in screen_text(app), 10, lambda: screen_text(app))
        text = screen_text(app)
        for kind, count in mix.items():
            assert f"{tr(f'type.{kind}', 'en')} {count}" in text
        assert not preview.questions_built
        assert sum(mix.values()) == len(preview.topic_of) and len(mix) >= 5
        slow_full_load.set()
        await wait_for(lambda: app.bankset is not None)
        qid = first.question_ids[0]
        assert app.bankset.question_type(qid) == preview.question_type(qid)
        assert app.bankset.question_type("no.such-question") is None


@pilot_test
async def test_the_preview_speaks_the_saved_language(slow_full_load: threading.Event, env: Path) -> None:
    """The store opens after the topics are painted; the saved language is peeked so they are not shown
    in the wrong one first."""
    from support.apps import fake_demo_runner, screen_text

    from quizbank.progress.store import open_store
    from tui.app import PosencApp

    store = open_store(env / "data")
    store.set_setting("language", "zh")
    store.close()
    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await topics_listed(pilot)
        assert app.bankset is None and app.language == "zh"
        text = screen_text(app)
        assert "旋转位置编码" in text and "测验" in text
        assert "Rotary" not in text and "Quiz" not in text
        slow_full_load.set()
        await wait_for(lambda: app.bankset is not None and app.store is not None)
        await pilot.pause()
        assert "测验" in screen_text(app)


def test_peek_setting_reads_a_saved_value_and_nothing_else(tmp_path: Path) -> None:
    from quizbank.progress.paths import DB_NAME, peek_setting
    from quizbank.progress.store import open_store

    assert peek_setting(tmp_path / "none", "language") is None  # no store: nothing is created
    assert not (tmp_path / "none").exists()
    store = open_store(tmp_path / "data")
    assert peek_setting(tmp_path / "data", "language") is None  # never set
    store.set_setting("language", "zh")
    store.set_setting("new_per_day", 35)
    assert peek_setting(tmp_path / "data", "language") == "zh"
    assert peek_setting(tmp_path / "data", "new_per_day") == 35
    store.close()
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / DB_NAME).write_bytes(b"not a database" * 100)
    assert peek_setting(tmp_path / "junk", "language") is None
    assert (
        tmp_path / "junk" / DB_NAME
    ).read_bytes() == b"not a database" * 100  # left for the store to judge


@pilot_test
async def test_a_failed_full_load_is_not_hidden_by_the_preview(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.apps import fake_demo_runner, screen_text

    import quizbank.loader as loader
    from tui.app import PosencApp

    monkeypatch.setenv(bank_cache.CACHE_ENV, str(env / "cache"))
    monkeypatch.delenv("POSENC_BANK_CACHE", raising=False)
    loader.load_banks(use_cache=True)

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(loader, "load_banks", broken)
    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.banks_error is not None)
        await pilot.pause()
        assert app.bank_preview is None and app.bankset is None
        assert not app.screen.query_one(Tree).root.children
        text = " ".join(screen_text(app).replace("▕", " ").split())
        assert "Could not load the question banks: RuntimeError: disk on fire" in text
        assert "mcq" not in text  # no type counts from the preview either


@pilot_test
async def test_a_full_load_that_fails_while_home_mounts_the_preview_is_shown(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The preview arrives, Home starts mounting its body, and the full load fails (dropping the preview)
    before the mount is done: Home says the load failed instead of raising on the preview it no longer has
    (under load this race crashed the app with "NoneType has no attribute 'topics'")."""
    from support.apps import fake_demo_runner, screen_text

    import quizbank.loader as loader
    from tui.app import PosencApp
    from tui.screens.home import HomeScreen

    monkeypatch.setenv(bank_cache.CACHE_ENV, str(env / "cache"))
    monkeypatch.delenv("POSENC_BANK_CACHE", raising=False)
    loader.load_banks(use_cache=True)
    release = threading.Event()

    def broken(*args, **kwargs):
        assert release.wait(30), "the test never let the full load fail"
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(loader, "load_banks", broken)
    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    real_body = HomeScreen._ensure_body

    async def body_after_the_failure(self: HomeScreen) -> bool:
        if app.bank_preview is not None and app.banks_error is None:
            release.set()  # the full load fails now, while the body is being mounted from the preview
            await wait_for(lambda: app.banks_error is not None, timeout=30)
        return await real_body(self)

    monkeypatch.setattr(HomeScreen, "_ensure_body", body_after_the_failure)

    def shown() -> str:
        return " ".join(screen_text(app).replace("▕", " ").split())

    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: "disk on fire" in shown(), timeout=30, state=shown)
        await pilot.pause()
        assert release.is_set()  # the failure came while the body was mounting from the preview
        assert app.bank_preview is None and app.bankset is None
        assert not app.screen.query_one(Tree).root.children
        assert "Could not load the question banks: RuntimeError: disk on fire" in shown()


# When the full bank is let in, relative to `m` and Enter typed 0.1 s apart as the topics appear from the
# preview: before `m`, between the two keys, right after Enter, or a moment after both.
RELEASES = ("before_m", "between", "after_enter", "later")


@pytest.mark.parametrize("release", RELEASES)
@pilot_test
async def test_keys_typed_as_the_topics_appear_keep_their_order(
    release: str, slow_full_load: threading.Event, env: Path
) -> None:
    """`m` then Enter typed as Home lists the preview's topics: `m` opens Mock setup once the full bank is
    in, and Enter goes to Mock setup after it (it starts the interview), never to the topic tree first
    (Enter on "All topics" is a quiz)."""
    import asyncio

    from support.apps import fake_demo_runner
    from support.pilot import post_keys

    from tui.app import PosencApp
    from tui.screens.mock import MockInterviewScreen

    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    opened: list[str] = []
    push = app.push_screen

    def recording_push(screen, *args, **kwargs):
        opened.append(type(screen).__name__)
        return push(screen, *args, **kwargs)

    app.push_screen = recording_push  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            lambda: bool(app.screen.query("#topic-tree")) and bool(app.screen.query_one(Tree).root.children)
        )
        if release == "before_m":
            slow_full_load.set()
        await post_keys(app, ["m"])
        await asyncio.sleep(0.1)
        if release == "between":
            slow_full_load.set()
        await post_keys(app, ["enter"])
        if release == "after_enter":
            slow_full_load.set()
        await asyncio.sleep(0.1)
        slow_full_load.set()
        await wait_for(
            lambda: isinstance(app.screen, MockInterviewScreen),
            timeout=30,
            state=lambda: f"screen {type(app.screen).__name__}, opened {opened}",
        )
        assert opened == ["MockSetupScreen"]
        await settle(pilot)


@pilot_test
async def test_the_body_and_the_topics_are_laid_out_together_and_the_footer_keys_after(
    slow_full_load: threading.Event, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After Home's light first paint, its body and the preview's topics come in one layout (no frame shows the
    body without the topics: each was a layout of the whole screen), and the footer's keys only after the
    topics are painted (building them took a tenth of the time to the topics)."""
    from support.apps import fake_demo_runner

    import tui.screens.home as home
    from tui.app import PosencApp
    from tui.widgets.key_footer import KeyFooter

    monkeypatch.setattr(home, "BODY_WAIT_S", 60.0)  # the preview brings the body, not the fallback timer
    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    layouts: list[tuple[bool, bool, bool]] = []  # (footer keys, body, topics) at each layout of Home
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen

        def laid_out(_screen: object) -> None:
            trees = list(screen.query("#topic-tree").results(Tree))
            keys = bool(screen.query_one(KeyFooter).children)
            layouts.append((keys, bool(trees), bool(trees) and bool(trees[0].root.children)))

        screen.screen_layout_refresh_signal.subscribe(screen, laid_out, immediate=True)
        await topics_listed(pilot)
        slow_full_load.set()
        await wait_for(lambda: app.bankset is not None)
        await pilot.pause()
    assert set(layouts) <= {(False, False, False), (False, True, True), (True, True, True)}, layouts
    assert (False, True, True) in layouts and (True, True, True) in layouts, layouts
    assert layouts.index((False, True, True)) < layouts.index((True, True, True)), layouts


@pilot_test
async def test_the_topics_are_rendered_once_on_their_way_to_the_screen(
    slow_full_load: threading.Event, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The body is mounted in a container of Home's and nothing asks for a repaint of the whole screen (the
    preview's arrival, the mount, the focus on the tree): the layout that lists the topics renders each line once.
    Each of those had the screen render all of it a second time, right after that layout."""
    from support.apps import fake_demo_runner

    import tui.screens.home as home
    from tui.app import PosencApp

    monkeypatch.setattr(home, "BODY_WAIT_S", 60.0)
    rendered: list[int] = []
    real = Tree.render_lines

    def counted(self: Tree, crop: object) -> object:
        rendered.append(len(self.root.children))
        return real(self, crop)  # type: ignore[arg-type]

    monkeypatch.setattr(Tree, "render_lines", counted)
    at_listed: list[list[int]] = []  # the renders when Home reports the topics on screen (bench/startup.py)

    def bench_event(self: PosencApp, event: str, **_fields: object) -> None:
        if event == "topics_listed":
            at_listed.append(list(rendered))

    monkeypatch.setattr(PosencApp, "bench_event", bench_event)
    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await topics_listed(pilot)
        await wait_for(lambda: bool(at_listed))
        assert at_listed == [[len(app.bank_preview.topics) + 1]]  # one render, with every topic and "All"
        slow_full_load.set()
        await wait_for(lambda: app.bankset is not None)


@pilot_test
async def test_the_store_opening_keeps_the_topic_rows(
    slow_full_load: threading.Event, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The progress store opens after the topics are listed: it adds the progress columns to the same rows
    (the tree is refilled only when the banks or the language change)."""
    from support.apps import fake_demo_runner
    from support.holds import hold

    import quizbank.progress.store as store_module
    from tui.app import PosencApp

    store_held = hold(monkeypatch, store_module, "open_store", "the store's opening")
    app = PosencApp([], str(env / "data"), demo_runner=fake_demo_runner, warm_torch=False, cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await topics_listed(pilot)
        tree = app.screen.query_one("#topic-tree", Tree)
        rows = list(tree.root.children)
        assert app.store is None
        store_held.set()
        await wait_for(lambda: app.store is not None and "↻" in str(tree.root.children[1].label))
        assert list(tree.root.children) == rows and all(a is b for a, b in zip(tree.root.children, rows))
        slow_full_load.set()
        await wait_for(lambda: app.bankset is not None)
        await pilot.pause()


@pilot_test
async def test_the_demo_process_starts_once_the_topics_are_listed(
    slow_full_load: threading.Event, env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starting the demo process (a fork, ~25 ms of the UI thread) and torch's import (a core for a second) wait
    until Home lists the preview's topics; then they start, on the UI thread, before the full bank is in."""
    import tui.app as app_module
    import tui.startup as startup_module
    from tui.app import PosencApp

    calls: list[tuple[str, bool, bool, bool]] = []  # (call, topics listed, full bank in, on the UI thread)

    class FakeHost:
        def __init__(self) -> None:
            self.device: str | None = None

        def _note(self, what: str) -> None:
            trees = list(app.screen.query("#topic-tree").results(Tree)) if app.is_running else []
            on_ui = threading.current_thread() is threading.main_thread()
            calls.append((what, bool(trees and trees[0].root.children), app.bankset is not None, on_ui))

        def start(self) -> None:
            self._note("start")

        def warm(self) -> str:
            self._note("warm")
            return "cpu"

        def close(self) -> None:
            pass

    monkeypatch.setattr(app_module, "DemoHost", FakeHost)
    monkeypatch.delenv(app_module.INPROCESS_ENV, raising=False)
    # the bounded wait for the paint (0.5 s) lets the warm-up go first on a machine too busy to paint in time;
    # here the order itself is under test
    monkeypatch.setattr(startup_module, "PREVIEW_PAINT_WAIT_S", 120.0)
    app = PosencApp([], str(env / "data"), cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await topics_listed(pilot)
        await wait_for(lambda: app.torch_ready)
        assert app.bankset is None  # the full load is still held
        slow_full_load.set()
        await wait_for(lambda: app.bankset is not None)
        await pilot.pause()
    assert calls[0] == ("start", True, False, True)
    assert calls[1][:3] == ("warm", True, False) and len(calls) == 2
