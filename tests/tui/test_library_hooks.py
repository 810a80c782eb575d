"""Libraries whose private API the app hooks: each is pinned in pyproject.toml to the versions the
hook was written for, the hook still finds what it replaces, and Rich is patched when the app starts,
not when `tui.app` is imported.

Every private name of Textual, fsrs, textual-serve, aiohttp, Rich and flatlatex that product code reads,
calls, overrides or imports is listed here with an existence check and, where it can run alone, a smoke
call that does what our code relies on; a scan of tui/ and quizbank/ fails on one that is not listed.
After upgrading one of them, run this file first (docs/architecture.md, "Private API").
"""

from __future__ import annotations

import functools
import inspect
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from typing import Any

import pytest
from support.paths import ROOT
from support.pilot import pilot_test

# library -> the module that hooks its private API
HOOKED = {
    "rich": "tui/cjkwrap.py",
    "flatlatex": "tui/mathtext.py",
    "textual-serve": "tui/serve.py",
    "textual": "tui/keyorder.py",
    "fsrs": "quizbank/progress/scheduler.py",
}


def _requirement(name: str) -> str:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    found = [d for d in deps if re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0].lower() == name]
    assert len(found) == 1, f"{name} is not (or twice) in pyproject.toml's dependencies"
    return found[0]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


@pytest.mark.parametrize("name", sorted(HOOKED))
def test_a_hooked_library_is_pinned_and_the_installed_one_is_inside_the_pin(name: str) -> None:
    spec = _requirement(name)
    lower = re.search(r">=\s*([\d.]+)", spec)
    upper = re.search(r"<\s*([\d.]+)", spec)
    exact = re.search(r"==\s*([\d.]+)", spec)
    assert exact or (lower and upper), f"{spec!r}: {HOOKED[name]} hooks private API, so pin it to a range"
    assert (ROOT / HOOKED[name]).exists()
    installed = _version(metadata.version(name))
    if exact:
        assert installed == _version(exact.group(1))
    else:
        assert _version(lower.group(1)) <= installed < _version(upper.group(1))


def test_the_rich_word_hook_exists_and_wraps_chinese_between_characters() -> None:
    from rich import _wrap

    from tui import cjkwrap

    # the module-level pattern Rich's words() reads on every call: Rich's own, or ours once installed
    assert getattr(_wrap, "re_word", None) is cjkwrap.WORDS or _wrap.re_word.pattern == r"\s*\S+\s*"
    saved = _wrap.re_word
    try:
        assert cjkwrap.install() and _wrap.re_word is cjkwrap.WORDS
        assert [w for _, _, w in _wrap.words("位置编码，很好 ok")] == [
            "位",
            "置",
            "编",
            "码，",
            "很",
            "好 ",
            "ok",
        ]
        assert _wrap.divide_line("位置编码位置编码", 4) == [2, 4, 6]  # two 2-cell characters a line
    finally:
        _wrap.re_word = saved


def test_the_flatlatex_private_methods_it_overrides_exist() -> None:
    import flatlatex

    from tui.mathtext import convert_math

    for name in (
        "_converter__indexed",
        "_converter__exponent",
        "_converter__latexfun_frac",
        "_converter__latexfun_sqrt",
    ):
        assert callable(getattr(flatlatex.converter, name, None)), name
    assert convert_math(r"$\theta_m$") == "θₘ"  # a subscript flatlatex has no table entry for


def test_rich_is_patched_when_the_app_starts_not_at_import() -> None:
    code = (
        "from rich import _wrap\n"
        "import tui.app\n"
        "from tui.cjkwrap import WORDS\n"
        "print(_wrap.re_word is WORDS)\n"
        "tui.app.PosencApp(open_store=False, warm_torch=False)\n"
        "print(_wrap.re_word is WORDS)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["False", "True"]


@pilot_test
async def test_a_removed_text_area_has_no_component_styles_and_the_safe_one_renders_blank() -> None:
    """Textual clears `_component_styles` when a widget is removed, and a plain TextArea then raises on
    render (the Study crash, `text-area--gutter`); SafeTextArea renders blank lines instead. If Textual
    fixes this upstream, the first assertion fails: drop the workaround then."""
    from textual.app import App, ComposeResult
    from textual.geometry import Region
    from textual.widgets import TextArea

    from tui.widgets.text_area import SafeTextArea

    class Two(App[None]):
        def compose(self) -> ComposeResult:
            yield TextArea("plain", id="plain")
            yield SafeTextArea("safe", id="safe")

    app = Two()
    async with app.run_test() as pilot:
        plain, safe = app.query_one("#plain", TextArea), app.query_one("#safe", SafeTextArea)
        plain.read_only = safe.read_only = True  # as an open answer on reveal
        await pilot.pause()
        assert plain._component_styles and safe._component_styles
        await plain.remove()
        await safe.remove()
        assert plain._component_styles == {} and safe._component_styles == {}
        with pytest.raises(KeyError, match="text-area--gutter"):
            plain.render_lines(Region(0, 0, 12, 2))
        lines = safe.render_lines(Region(0, 0, 12, 2))
        assert len(lines) == 2 and all(line.cell_length == 12 and line.text == " " * 12 for line in lines)


# ------------------------------------------------------------------------------------------------ Textual
# (class, private name, where we use it)
TEXTUAL_PRIVATE = [
    ("textual.app:App", "_check_bindings", "tui/keyorder.py: dispatch a key's priority bindings"),
    (
        "textual.widget:Widget",
        "_forward_event",
        "tui/keyorder.py: hand a key to the focused widget",
    ),
    ("textual.screen:Screen", "_binding_chain", "tui/keyorder.py: is a key one of the app's priority keys"),
    ("textual.screen:Screen", "_clear_tooltip", "tui/keyorder.py: a key hides the tooltip, as Textual's"),
    ("textual.app:App", "_keymap", "tui/screens/help.py: the keys the user remapped"),
    ("textual.widgets:Input", "_on_key", "tui/widgets/answers/base.py: AnswerInput runs before Input's"),
    ("textual.widgets:Input", "_on_blur", "tui/widgets/answers/base.py: AnswerInput"),
    ("textual.widget:Widget", "_on_mouse_down", "tui/widgets/answers/base.py: AnswerInput"),
    (
        "textual.widgets:TextArea",
        "_on_key",
        "tui/widgets/text_area.py SafeTextArea (Enter indents), tui/widgets/answers/open.py OpenAnswerArea: "
        "theirs run before it",
    ),
    ("textual.screen:Screen", "_on_screen_suspend", "tui/keyorder.py: HeldKeys hands its keys on"),
    ("textual.widget:Widget", "_on_unmount", "tui/keyorder.py: HeldKeys hands its keys on"),
]
# instance attributes (set in __init__ or on mount), checked on live objects below
TEXTUAL_PRIVATE_STATE = {
    "_bindings": "tui/keys.py localize_bindings, tui/widgets/answers/open.py: a node's own BindingsMap",
    "_mounted_event": "tui/keyorder.py: wait until a screen is mounted",
    "_component_styles": "tui/widgets/text_area.py: SafeTextArea draws nothing without them",
    "_closing": "tui/widgets/question_view.py _alive: the view is being removed",
    "_closed": "tui/widgets/question_view.py _alive",
    "_pruning": "tui/widgets/question_view.py _alive",
    "_bindings_ready": "tui/widgets/key_footer.py: Footer shows keys once bindings are ready",
    "_reactive_connect": "tui/widgets/key_footer.py: a FooterKey's data-bound `compact`",
    "_compositor": "tests/support/apps.py screen_text: the screen as text",
    "_selected": "tui/widgets/toggles.py GlyphSelectionList: the values ticked (a SelectionList's dict)",
}


def _attr(spec: str) -> Any:
    import importlib

    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize(
    ("owner", "name", "use"), TEXTUAL_PRIVATE, ids=[f"{o}.{n}" for o, n, _ in TEXTUAL_PRIVATE]
)
def test_each_private_textual_name_we_use_exists(owner: str, name: str, use: str) -> None:
    cls = _attr(owner)
    if name == "_keymap":  # set in App.__init__
        from textual.app import App

        assert isinstance(App()._keymap, dict), use
        return
    found = getattr(cls, name, None)
    assert callable(found) or isinstance(found, property), f"{owner}.{name} is gone ({use})"


def test_the_private_textual_modules_we_import_still_hold_the_classes() -> None:
    from textual.widgets import Checkbox, Footer, RadioButton
    from textual.widgets._footer import FooterKey  # tui/widgets/key_footer.py
    from textual.widgets._toggle_button import ToggleButton  # tui/widgets/toggles.py

    assert issubclass(Checkbox, ToggleButton) and issubclass(RadioButton, ToggleButton)
    assert "FooterKey" in Footer.compose.__code__.co_names  # the footer still builds its keys from them
    assert callable(FooterKey)


@pilot_test
async def test_the_private_textual_names_the_key_queue_uses_do_what_it_needs() -> None:
    from textual.app import App, ComposeResult
    from textual.binding import Binding, BindingsMap
    from textual.widgets import Footer, Input

    from tui.widgets.key_footer import KeyFooter

    pressed: list[str] = []
    handled: list[str] = []

    class Recording(Input):
        # no super(): Textual calls each class's `_on_<event>` along the MRO itself, as AnswerInput and
        # OpenAnswerArea rely on (theirs run first, Input's and TextArea's after)
        def _on_key(self, event: Any) -> None:
            handled.append(event.key)

    class Hooked(App[None]):
        BINDINGS = [Binding("ctrl+x", "note('priority')", priority=True), Binding("f2", "note('plain')")]

        def compose(self) -> ComposeResult:
            yield Recording(id="field")
            yield KeyFooter()

        def action_note(self, what: str) -> None:
            pressed.append(what)

    app = Hooked()
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        field = app.query_one("#field", Input)
        # _mounted_event: an asyncio.Event, set once the screen is mounted
        assert screen._mounted_event.is_set() and screen.is_mounted
        # _binding_chain: (node, BindingsMap) pairs from the focused widget up, the app last
        chain = screen._binding_chain
        assert chain[0][0] is field and chain[-1][0] is app
        assert all(isinstance(bindings, BindingsMap) for _, bindings in chain)
        assert [b.priority for b in chain[-1][1].key_to_bindings["ctrl+x"]] == [True]
        # _bindings: a node's own BindingsMap, key -> [Binding] (localize_bindings rewrites it in place)
        assert [b.action for b in app._bindings.key_to_bindings["f2"]] == ["note('plain')"]
        # _check_bindings(key, priority=True): runs only priority bindings, says whether one ran
        assert await app._check_bindings("ctrl+x", priority=True) is True
        assert await app._check_bindings("f2", priority=True) is False
        await pilot.pause()
        assert pressed == ["priority"]
        # _forward_event: a key handed to the focused widget is typed there
        from support.pilot import terminal_key

        field._forward_event(terminal_key("a"))
        await pilot.pause()
        assert field.value == "a" and handled == ["a"]  # ours ran, then Input's typed the key
        # _clear_tooltip: callable with nothing shown
        screen._clear_tooltip()
        # the widget lifecycle flags question_view reads: all False on a live widget
        assert (field._closing, field._closed, field._pruning) == (False, False, False)
        # Footer's _bindings_ready, and FooterKey's data-bound `compact` (_reactive_connect)
        footer = app.query_one(Footer)
        assert footer._bindings_ready is True
        assert hasattr(footer, "_bindings_ready")
        # _compositor: what tests/support/apps.py screen_text renders
        assert screen._compositor.render_update(full=True) is not None
        await field.remove()
        assert field._closed or field._closing or field._pruning or not field.is_attached


@pilot_test
async def test_a_footer_key_is_data_bound_to_compact_through_reactive_connect() -> None:
    """KeyFooter reads `_reactive_connect` on the keys Footer.compose yields, before they mount (mounting
    clears it)."""
    from textual.app import App, ComposeResult
    from textual.binding import Binding
    from textual.widgets._footer import FooterKey

    from tui.widgets.key_footer import KeyFooter

    seen: list[dict[str, Any] | None] = []

    class Watching(KeyFooter):
        def _fitted(self, widgets: list[Any]) -> list[Any]:
            seen.extend(getattr(w, "_reactive_connect", None) for w in widgets if isinstance(w, FooterKey))
            return super()._fitted(widgets)

    class WithFooter(App[None]):
        BINDINGS = [Binding("f2", "bell", "Bell")]

        def compose(self) -> ComposeResult:
            yield Watching()

    app = WithFooter()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert seen and "compact" in (seen[0] or {})  # the binding key; the palette key has none


@pilot_test
async def test_the_keymap_the_selection_and_the_screen_hooks_do_what_we_need() -> None:
    """`App._keymap` holds what `set_keymap` set (Help shows it); `SelectionList._selected` holds the ticked
    values (GlyphSelectionList draws ✓ from it); Textual calls `_on_screen_suspend` when a screen is covered
    and `_on_unmount` when it is removed, and HeldKeys hands the queued keys on from both."""
    from textual.app import App, ComposeResult
    from textual.screen import Screen
    from textual.widgets import Label

    from tui.keyorder import HeldKeys
    from tui.widgets.toggles import CHECKED, UNCHECKED, GlyphSelectionList

    resumed: list[str] = []

    class FakeQueue:
        pending = False

        def resume(self) -> None:
            resumed.append("resume")

    class Holding(HeldKeys, Screen[None]):
        # Textual calls each class's `_on_<event>` along the MRO: this one, then HeldKeys' own
        def _on_unmount(self) -> None:
            resumed.append("unmount")

        def compose(self) -> ComposeResult:
            yield Label("holding")

    class Other(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Label("other")

    class Ticks(App[None]):
        def compose(self) -> ComposeResult:
            yield GlyphSelectionList(("one", "a", True), ("two", "b"), id="ticks")

    app = Ticks()
    app.key_queue = FakeQueue()  # type: ignore[attr-defined]  # what HeldKeys finds through key_queue(app)
    async with app.run_test() as pilot:
        app.set_keymap({"posenc.next": "f5"})
        assert app._keymap == {"posenc.next": "f5"}
        ticks = app.query_one("#ticks", GlyphSelectionList)
        await pilot.pause()
        assert dict(ticks._selected) == {"a": None}
        assert [ticks.render_line(y).text[1] for y in (0, 1)] == [CHECKED, UNCHECKED]
        holding = Holding()
        await app.push_screen(holding)
        await app.push_screen(Other())  # covers Holding: _on_screen_suspend
        await pilot.pause()
        assert resumed == ["resume"]
        await app.pop_screen()
        await app.pop_screen()  # suspends and removes Holding: _on_screen_suspend, then _on_unmount
        await pilot.pause()
        assert resumed == ["resume", "resume", "unmount", "resume"] and not holding.is_attached


def test_textual_still_dispatches_keys_as_the_key_queue_copies() -> None:
    """`KeyQueue._dispatch` re-does the key and paste branches of Textual's `App.on_event`, which
    `PosencApp.on_event` no longer calls for them. This digest of that method's source changes when Textual
    changes it: then compare the new `App.on_event` with `KeyQueue._dispatch`, carry any new step over
    (docs/architecture.md, "Private API"), and record the new digest here."""
    import hashlib

    from textual.app import App

    from tui.app import PosencApp

    source = inspect.getsource(App.on_event)
    assert hashlib.sha256(source.encode()).hexdigest()[:16] == "3dbf14d694916fe3", source
    ours = inspect.getsource(PosencApp.on_event)
    assert ours.count("key_queue.arrived(event)") == 2 and "super().on_event(event)" in ours


# ---------------------------------------------------------------------------------- textual-serve, aiohttp
# (class, private name, where we use it): `posenc serve` subclasses textual-serve's Server and AppService,
# and tui/serve_connections.py hands out its own aiohttp request handlers.
SERVE_PRIVATE = [
    ("textual_serve.server:Server", "_make_app", "tui/serve.py: PosencServer's routes and guard"),
    ("textual_serve.server:Server", "_process_messages", "tui/serve.py: sizes clamped, bad messages skipped"),
    ("textual_serve.app_service:AppService", "_build_environment", "tui/serve_apps.py: TabApp's environment"),
    ("textual_serve.app_service:AppService", "_open_app_process", "tui/serve_apps.py: a session per tab app"),
    ("aiohttp.web:AppRunner", "_make_server", "tui/serve_connections.py: CappedRunner"),
]
# instance attributes, checked on live objects below
SERVE_PRIVATE_STATE = {
    "_process": "tui/serve_apps.py: the tab app's process",
    "_stdin": "tui/serve_apps.py: the tab app's stdin",
    "_task": "tui/serve_apps.py: the spare's output reader",
    "_loop": "tui/serve_connections.py: aiohttp's Server and RequestHandler loop",
    "_kwargs": "tui/serve_connections.py: the handler options aiohttp's Server keeps",
}


@pytest.mark.parametrize(
    ("owner", "name", "use"), SERVE_PRIVATE, ids=[f"{o}.{n}" for o, n, _ in SERVE_PRIVATE]
)
def test_each_private_serve_name_we_use_exists(owner: str, name: str, use: str) -> None:
    assert callable(getattr(_attr(owner), name, None)), f"{owner}.{name} is gone ({use})"


def test_textual_serve_still_calls_the_hooks_we_override() -> None:
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    from tui.serve_apps import TabApp

    assert "self._open_app_process(" in inspect.getsource(AppService.start)
    assert "self._process_messages(" in inspect.getsource(Server.handle_websocket)
    assert "self._make_app()" in inspect.getsource(Server.serve)

    async def nothing(*_: Any) -> None:
        pass

    tab = TabApp(
        "true",
        write_bytes=nothing,
        write_str=nothing,
        close=nothing,
        download_manager=None,
        groups=set(),
        extra_env=lambda: {"POSENC_HOOK_TEST": "1"},
    )
    assert (tab._process, tab._stdin, tab._task) == (None, None, None)
    env = tab._build_environment(width=100, height=30)  # AppService's, then ours
    assert (env["COLUMNS"], env["ROWS"], env["POSENC_HOOK_TEST"]) == ("100", "30", "1")
    assert env["TEXTUAL_DRIVER"] == "textual.drivers.web_driver:WebDriver"


def test_aiohttp_still_keeps_the_loop_and_options_capped_server_reads() -> None:
    import asyncio

    from aiohttp import web
    from aiohttp.web_protocol import RequestHandler

    async def check() -> None:
        async def handler(request: web.BaseRequest) -> web.StreamResponse:
            return web.Response()

        server = web.Server(handler, keepalive_timeout=7)
        assert server._loop is asyncio.get_running_loop() and server._kwargs == {"keepalive_timeout": 7}
        assert isinstance(server(), RequestHandler)  # what CappedServer.__call__ replaces
        handler_made = RequestHandler(server, loop=server._loop, **server._kwargs)
        assert handler_made._loop is server._loop

    asyncio.run(check())


# ------------------------------------------------------------------------------- every private name listed
# Private modules the product imports, with the module that does.
PRIVATE_MODULES = {
    "rich._wrap": "tui/cjkwrap.py",
    "textual.widgets._footer": "tui/widgets/key_footer.py",
    "textual.widgets._toggle_button": "tui/widgets/toggles.py",
}
FLATLATEX_PRIVATE = {
    "_converter__indexed",
    "_converter__exponent",
    "_converter__latexfun_frac",
    "_converter__latexfun_sqrt",
}
FSRS_PRIVATE = {"_get_fuzzed_interval"}
NOT_LIBRARY_HOOKS = {"_exit": "os._exit, the standard library's documented immediate exit"}


def _listed() -> set[str]:
    return (
        {name for _, name, _ in TEXTUAL_PRIVATE}
        | set(TEXTUAL_PRIVATE_STATE)
        | {name for _, name, _ in SERVE_PRIVATE}
        | set(SERVE_PRIVATE_STATE)
        | FLATLATEX_PRIVATE
        | FSRS_PRIVATE
        | set(NOT_LIBRARY_HOOKS)
    )


def _product_files() -> list[Any]:
    return sorted([*(ROOT / "tui").rglob("*.py"), *(ROOT / "quizbank").rglob("*.py")])


@functools.cache
def _tree(path: Any) -> Any:
    import ast

    return ast.parse(path.read_text(encoding="utf-8"))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_reads() -> dict[str, str]:
    """Private names the product reads or writes on an object without defining them anywhere itself:
    `x._name` and `getattr(x, "_name")`. name -> one place."""
    import ast

    defined: set[str] = set()
    used: dict[str, str] = {}
    for path in _product_files():
        relative = path.relative_to(ROOT)
        for node in ast.walk(_tree(path)):
            where = f"{relative}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.add(node.name)
            elif isinstance(node, ast.Attribute) and _private(node.attr):
                used.setdefault(node.attr, where)
                if (
                    isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                ):
                    defined.add(node.attr)
            elif isinstance(node, ast.AnnAssign | ast.Assign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined.update(t.id for t in targets if isinstance(t, ast.Name))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and _private(node.args[1].value)
            ):
                used.setdefault(node.args[1].value, where)
    return {name: where for name, where in used.items() if name not in defined}


def _private_overrides() -> dict[str, str]:
    """Private methods the product defines that a library base class of the same class already has (the
    library calls ours instead of its own). name -> our class. Module-level classes are looked at through
    their real MRO (so a mixin such as HeldKeys counts for the screens that use it); classes made inside a
    function through the bases their source names."""
    import ast
    import builtins
    import importlib

    ours = ("tui", "quizbank")
    found: dict[str, str] = {}
    for path in _product_files():
        tree = _tree(path)
        module_name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        # only modules with a class that has a base besides builtins (drill modules import torch)
        subclasses = any(
            isinstance(node, ast.ClassDef)
            and any(not (isinstance(b, ast.Name) and hasattr(builtins, b.id)) for b in node.bases)
            for node in tree.body
        )
        module = importlib.import_module(module_name) if subclasses else None
        for cls in [
            v
            for v in (vars(module) if module else {}).values()
            if isinstance(v, type) and v.__module__ == module_name
        ]:
            for klass in cls.__mro__:
                if not klass.__module__.startswith(ours):
                    continue
                for name, value in vars(klass).items():
                    if not _private(name) or not (
                        inspect.isfunction(value) or isinstance(value, property | staticmethod | classmethod)
                    ):
                        continue
                    if any(
                        name in vars(k)
                        for k in cls.__mro__
                        if not k.__module__.startswith((*ours, "builtins"))
                    ):
                        found.setdefault(name, klass.__qualname__)
        imported: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported.update(
                    {
                        (a.asname or a.name.split(".")[0]): (a.asname and a.name) or a.name.split(".")[0]
                        for a in node.names
                    }
                )
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.update({(a.asname or a.name): f"{node.module}.{a.name}" for a in node.names})
        nested = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n not in tree.body]
        for node in nested:
            for base in node.bases:
                dotted = ast.unparse(base).split("[")[0].split(".")
                if dotted[0] not in imported or imported[dotted[0]].startswith(ours):
                    continue
                target = _resolve(".".join([imported[dotted[0]], *dotted[1:]]))
                for item in node.body:
                    if (
                        isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                        and _private(item.name)
                        and hasattr(target, item.name)
                    ):
                        found.setdefault(item.name, node.name)
    return found


def _resolve(dotted: str) -> Any:
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(dotted)


def test_every_private_library_name_the_product_uses_is_listed_here() -> None:
    """A private name of a library that the product reads, overrides or imports, and that no table in this
    file lists, is a hook nobody re-checks on an upgrade: add it to a table, with a smoke call."""
    import ast

    listed = _listed()
    all_reads, all_overrides = _private_reads(), _private_overrides()
    reads = {n: w for n, w in all_reads.items() if n not in listed}
    overrides = {n: c for n, c in all_overrides.items() if n not in listed}
    modules: dict[str, str] = {}
    for path in _product_files():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] if "._" in f".{node.module}" else []
                names += [f"{node.module}.{a.name}" for a in node.names if _private(a.name)]
                for name in names:
                    if name.startswith(("__future__", "tui.", "quizbank.", "posenc_ref.")):
                        continue
                    if PRIVATE_MODULES.get(name) != str(path.relative_to(ROOT)):
                        modules[name] = str(path.relative_to(ROOT))
    assert (reads, overrides, modules) == ({}, {}, {})
    # and the scan sees what it should: one read, one override and one private module of each kind
    assert "_binding_chain" in all_reads and "_keymap" in all_reads
    assert {
        "_on_key",
        "_on_screen_suspend",
        "_get_fuzzed_interval",
        "_make_server",
        "_converter__indexed",
    } <= set(all_overrides)


@functools.cache
def _assigned_in(klass: type) -> frozenset[str]:
    """The private names a class's own source assigns on `self` (read once per class: it is slow)."""
    try:
        return frozenset(re.findall(r"self\.(_[a-z]\w*)\s*[:=]", inspect.getsource(klass)))
    except (OSError, TypeError):
        return frozenset()


def test_our_textual_subclasses_set_no_private_attribute_textual_uses() -> None:
    """A `self._name = ...` in a subclass of a Textual class must not reuse a name its Textual bases keep
    (PosencApp once kept its store flag in `_closing`, which is Textual's `MessagePump._closing`)."""
    import ast
    import importlib

    from textual.message_pump import MessagePump

    deliberate = {("KeyFooter", "_bindings_ready")}  # KeyFooter sets Footer's flag on purpose
    clashes = []
    for path in sorted((ROOT / "tui").rglob("*.py")):
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            cls = getattr(module, node.name, None)
            if not (isinstance(cls, type) and issubclass(cls, MessagePump)):
                continue
            textual = [k for k in cls.__mro__ if k.__module__.startswith("textual.")]
            names = {n for k in textual for n in vars(k)}
            for klass in textual:
                names |= _assigned_in(klass)
            for sub in ast.walk(node):
                targets = sub.targets if isinstance(sub, ast.Assign) else [getattr(sub, "target", None)]
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                        and target.attr.startswith("_")
                        and target.attr in names
                        and (node.name, target.attr) not in deliberate
                    ):
                        clashes.append(f"{path.relative_to(ROOT)}:{sub.lineno} {node.name}.{target.attr}")
    assert clashes == [], "\n".join(clashes)


# ------------------------------------------------------------------------------------------------ fsrs
def test_fsrs_still_fuzzes_through_the_private_method_the_seeded_scheduler_overrides() -> None:
    """`SeededScheduler` overrides `Scheduler._get_fuzzed_interval` and reads `fsrs.scheduler.FUZZ_RANGES`:
    fsrs must still call the method when it fuzzes, with `interval=` a timedelta, and keep the ranges."""
    from datetime import UTC, datetime, timedelta

    from fsrs import Card, Rating, Scheduler
    from fsrs.scheduler import FUZZ_RANGES

    from quizbank.progress.scheduler import SeededScheduler

    assert callable(getattr(Scheduler, "_get_fuzzed_interval", None))
    assert [(r["start"], r["factor"]) for r in FUZZ_RANGES] == [(2.5, 0.15), (7.0, 0.1), (20.0, 0.05)]
    calls: list[timedelta] = []

    class Spy(SeededScheduler):
        def _get_fuzzed_interval(self, *, interval: timedelta) -> timedelta:
            calls.append(interval)
            return super()._get_fuzzed_interval(interval=interval)

    def review_three_times(scheduler: SeededScheduler) -> list[datetime]:
        card, when, dues = Card(), datetime(2025, 1, 1, tzinfo=UTC), []
        for index in range(6):
            card = scheduler.review_seeded("q", index, card, Rating.Easy, when)
            dues.append(card.due)
            when = card.due
        return dues

    first = review_three_times(Spy(enable_fuzzing=True))
    assert calls and all(isinstance(c, timedelta) for c in calls)  # fsrs called our override
    assert review_three_times(Spy(enable_fuzzing=True)) == first  # and its draw is ours: seeded


def test_fsrs_optimizer_fits_without_its_pandas_and_tqdm_extras() -> None:
    """`quizbank.progress.optimize._optimizer` imports `fsrs.optimizer` with stand-ins for pandas and tqdm
    when they are missing (the `fsrs[optimizer]` extra): `compute_optimal_parameters` must still use
    neither (tqdm only with `disable=`, pandas only in `compute_optimal_retention`), the module must still
    bind `torch` and `Optimizer` at the top, and the stand-ins must be gone from `sys.modules` after."""
    import fsrs.optimizer as module

    source = inspect.getsource(module)
    fit = source[
        source.index("def compute_optimal_parameters") : source.index("def _compute_probs_and_costs")
    ]
    assert "pd." not in fit and "tqdm(" in fit and "disable=(not verbose)" in fit
    assert "import pandas as pd" in source and "from tqdm import tqdm" in source
    code = (
        "import sys\nfrom quizbank.progress.optimize import _optimizer\nOptimizer = _optimizer()\n"
        "print(sorted(set(sys.modules) & {'pandas', 'tqdm'}) if 'pandas' not in sys.modules else 'real')\n"
        "print(Optimizer([]).compute_optimal_parameters()[20])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    lines = done.stdout.splitlines()
    assert lines[-2] in ("[]", "real")  # no stand-in left behind (or the real extras are installed)
    assert float(lines[-1]) == 0.1542  # the real Optimizer ran: too few reviews, so fsrs's default decay
