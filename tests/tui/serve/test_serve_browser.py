"""`posenc serve` in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright.

Never `playwright install`: the test uses the system browser through `executable_path` and skips,
saying so, when it is absent (`.ci/run` installs it as root). The page's xterm.js terminal draws on a
canvas, so the screen is read from xterm's own buffer: an init script keeps the Terminal object that
textual-serve's script creates. POSENC_UPDATE_DOCS=1 also saves the Home screenshot as docs/serve.png.
The page gets the server's spare app (started at another size): every cell of xterm must be painted.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from support.chromium import CHROMIUM, CHROMIUM_ARGS
from support.paths import ROOT
from test_serve import TOKEN, events, ready_spare, shipped_topic_titles, start_server, stop_server, wait_until

VIEWPORT = {"width": 1280, "height": 800}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not os.access(CHROMIUM, os.X_OK),
        reason=f"no Chromium at {CHROMIUM}: install it with `apt-get install chromium` "
        "(or set POSENC_CHROMIUM) to run the browser test",
    ),
]

# Keep the xterm Terminal that the page's script assigns to `this.terminal` (read back as window.posencTerm).
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    if (value && value.buffer && typeof value.onData === "function") { window.posencTerm = value; }
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""

SCREEN_TEXT = """() => {
  const term = window.posencTerm;
  if (!term) return "";
  const buffer = term.buffer.active, lines = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i);
    if (line) lines.push(line.translateToString(true));
  }
  return lines.join("\\n");
}"""


# xterm's size, its last row, and the cells of its first and last columns that the app left unpainted
# (Textual paints every cell with its theme's background; a blank xterm cell has the default one).
PAINTED = """() => {
  const term = window.posencTerm;
  if (!term) return null;
  const buffer = term.buffer.active, bare = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    for (const x of [0, term.cols - 1]) {
      const cell = line && line.getCell(x);
      if (!cell || cell.isBgDefault()) bare.push([x, y]);
    }
  }
  const last = buffer.getLine(buffer.viewportY + term.rows - 1);
  return {cols: term.cols, rows: term.rows, bare, last: last ? last.translateToString(true) : ""};
}"""


def painted(page, changed_from: tuple[int, int] | None = None, timeout_ms: float = 30_000) -> dict:
    """Wait until the app fills xterm (at a size other than `changed_from`) with its footer on the last row."""
    page.wait_for_function(
        f"""old => {{ const p = ({PAINTED})();
          return p && p.bare.length === 0 && p.last.includes("Help") && !(old && p.cols === old[0] && p.rows === old[1]); }}""",
        arg=changed_from,
        timeout=timeout_ms,
        polling=50,
    )
    return page.evaluate(PAINTED)


def open_page(playwright, tmp_path: Path):
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "chromium-profile"),  # a fresh profile every run
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport=VIEWPORT,
    )
    context.add_init_script(KEEP_TERMINAL)
    page = context.pages[0] if context.pages else context.new_page()
    return context, page


def wait_for_text(page, needles: list[str], timeout_ms: float = 60_000) -> str:
    try:
        page.wait_for_function(
            f"needles => {{ const text = ({SCREEN_TEXT})(); return needles.every(n => text.includes(n)); }}",
            arg=needles,
            timeout=timeout_ms,
            polling=50,
        )
    except Exception as exc:  # say what the screen showed instead, and whether the tab's socket closed
        raise AssertionError(
            f"waited for {needles!r} (page classes: {page.evaluate('document.body.className')!r}); "
            f"the screen shows:\n{page.evaluate(SCREEN_TEXT)}"
        ) from exc
    return page.evaluate(SCREEN_TEXT)


def test_home_and_help_in_headless_chromium(tmp_path: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path)
    try:
        spare = ready_spare(server, tmp_path)
        with sync_api.sync_playwright() as playwright:
            context, page = open_page(playwright, tmp_path)
            try:
                refused = page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
                assert refused is not None and refused.status == 403  # no token, no cookie yet
                page.goto(f"http://127.0.0.1:{port}/?token={TOKEN}", wait_until="load")
                assert page.title() == "posenc"
                assert page.url == f"http://127.0.0.1:{port}/"  # the cookie holds the token now
                wait_for_text(page, ["posenc", *titles])
                # no click: the page focuses the terminal itself, so the footer's keys show and work at once
                home = wait_for_text(page, ["? Help", "/ Search"], 10_000)
                assert page.evaluate("() => document.activeElement === window.posencTerm.textarea")
                # the spare took the page's size: the whole of xterm is the app, footer on the last row
                assert [(e["spare"], e["pid"]) for e in events(tmp_path, "serve_tab")] == [(True, spare)]
                size = painted(page)
                assert size["cols"] > 100 and size["rows"] > 30, size
                # the terminal modes the spare set before the page existed reached this xterm
                modes = page.evaluate(
                    "() => { const t = window.posencTerm; return [t.buffer.active.type, t.modes.mouseTrackingMode,"
                    " t.modes.bracketedPasteMode]; }"
                )
                assert modes == ["alternate", "any", True], modes
                page.wait_for_function(  # the terminal fades in (0.3 s)
                    "() => getComputedStyle(document.querySelector('.textual-terminal')).opacity === '1'"
                )
                page.screenshot(path=str(tmp_path / "home.png"))
                if os.environ.get("POSENC_UPDATE_DOCS") == "1":
                    shutil.copyfile(tmp_path / "home.png", ROOT / "docs" / "serve.png")

                # a bigger window: xterm grows, and the app repaints all of it (new cells start blank)
                page.set_viewport_size({"width": VIEWPORT["width"] + 240, "height": VIEWPORT["height"] + 160})
                bigger = painted(page, changed_from=(size["cols"], size["rows"]))
                assert bigger["cols"] > size["cols"] and bigger["rows"] > size["rows"], (size, bigger)

                page.keyboard.type("?")
                shown = wait_for_text(page, ["Everywhere", "posenc.search", "posenc.language"], 30_000)
                assert "Everywhere" not in home and "posenc.search" not in home
                assert "Keys" in shown
                page.screenshot(path=str(tmp_path / "help.png"))
            finally:
                context.close()
    finally:
        assert stop_server(server) == 0
    for name in ("home.png", "help.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_public_server_runs_no_code_from_a_mock_interview_drill(tmp_path: Path) -> None:
    """`posenc serve --public` without --allow-code: code pasted into the mock interview's drill item is never
    run (red team, fourth round: it used to write files as the server's user). The grader's entry refuses,
    the item says why in the Drill screen's words, and nothing is recorded."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    markers = tmp_path / "markers"  # writable by the candidate's own uid (as root, docs/drills.md)
    markers.mkdir(mode=0o777)
    markers.chmod(0o777)
    marker = markers / "written-by-drill-code"
    server, port = start_server(tmp_path, "--public")
    try:
        with sync_api.sync_playwright() as playwright:
            context, page = open_page(playwright, tmp_path)
            try:
                page.goto(f"http://127.0.0.1:{port}/?token={TOKEN}", wait_until="load")
                wait_for_text(page, ["? Help", "/ Search"])
                page.keyboard.type("m")  # mock setup: 30 minutes over every topic puts a drill in the middle
                wait_for_text(page, ["Mock interview", "Minutes"], 30_000)  # the setup screen, not Home
                page.keyboard.press("s")
                text = ""
                hint = "Ctrl+R grades it (you may grade again)"  # a drill item's hint
                item = 0
                for _ in range(30):  # item by item to the drill: Esc leaves any text box, n moves on
                    # the next item (a follow-up of a skipped item is dropped, so the number may jump)
                    try:
                        page.wait_for_function(
                            f"""last => {{ const m = ({SCREEN_TEXT})().match(/Item (\\d+)\\//);
                                           return m && Number(m[1]) > last; }}""",
                            arg=item,
                            timeout=30_000,
                        )
                    except Exception as exc:
                        raise AssertionError(f"no item after {item}:\n{page.evaluate(SCREEN_TEXT)}") from exc
                    item = int(re.search(r"Item (\d+)/", page.evaluate(SCREEN_TEXT)).group(1))
                    try:  # an item takes a moment to paint: give a drill 8 s to show its hint
                        page.wait_for_function(
                            f"h => ({SCREEN_TEXT})().split(/\\s+/).join(' ').includes(h)",
                            arg=hint,
                            timeout=8_000,
                        )
                    except Exception:  # noqa: BLE001 - best effort: close whatever is open
                        page.keyboard.press("Escape")
                        # not a wait for the app: ESC and `n` in one read of the terminal's bytes are Alt+N
                        # (Textual tells them apart by a pause after ESC, as every terminal program does)
                        page.wait_for_timeout(300)
                        page.keyboard.type("n")
                        continue
                    text = " ".join(page.evaluate(SCREEN_TEXT).split())
                    break
                assert hint in text, text[-2000:]
                # typed at once: keys wait until the item is mounted and its editor has focus
                # the path goes on a line of its own: a long line's end scrolls out of the editor's view once
                # Enter brings the cursor back to column 0 (tmp_path under xdist is long enough to do that)
                page.keyboard.type(f"import pathlib; marker = pathlib.Path({str(marker)!r})")
                page.keyboard.press("Enter")
                page.keyboard.type("marker.write_text('ran')")
                page.keyboard.press("Enter")
                try:
                    wait_for_text(
                        page, ["marker.write_text('ran')"], 60_000
                    )  # (with code on, torch warms first)
                    page.keyboard.press("Control+r")
                    shown = wait_for_text(page, ["Grading is off on this"], 30_000)
                except Exception:
                    print(page.evaluate(SCREEN_TEXT))
                    raise
                assert "--allow-code" in shown  # refused at the grader's entry, before anything could run
            finally:
                context.close()
    finally:
        assert stop_server(server) == 0
    assert not marker.exists()
    assert not list((tmp_path / "data").rglob("grade-*")), "no grading folder was made"


def test_the_drill_editor_indents_and_goes_to_either_end_in_the_browser(tmp_path: Path) -> None:
    """The drill editor through xterm.js: Ctrl+End and Ctrl+Home reach the app (the browser sends them as
    `ESC [1;5F` and `ESC [1;5H`), and Enter keeps the indentation, one level deeper after a `:`. The file
    the editor saves says what was typed where."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    server, port = start_server(tmp_path)
    try:
        with sync_api.sync_playwright() as playwright:
            context, page = open_page(playwright, tmp_path)
            try:
                page.goto(f"http://127.0.0.1:{port}/?token={TOKEN}", wait_until="load")
                wait_for_text(page, ["? Help", "/ Search"])
                page.keyboard.type("c")  # Home: coding drills
                wait_for_text(page, ["Not graded yet", "Enter/i Edit"], 30_000)
                page.keyboard.press("i")
                wait_for_text(page, ["^r Grade  ^q Quit"], 30_000)  # the editor's footer: it has focus
                page.keyboard.press("Control+End")
                page.keyboard.press("Enter")
                page.keyboard.type("if x:")
                page.keyboard.press("Enter")
                page.keyboard.type("return x")
                page.keyboard.press("Control+Home")
                page.keyboard.type("# top")
                drills = tmp_path / "data" / "drills"

                def saved() -> tuple[str, str] | None:
                    files = sorted(drills.rglob("*.py"))
                    text = files[0].read_text(encoding="utf-8") if files else ""
                    return (files[0].stem, text) if text.startswith("# top") else None

                name, text = wait_until(saved, "the editor to save the file", 30)
            finally:
                context.close()
    finally:
        assert stop_server(server) == 0
    from quizbank.drills import get_drill

    # the starter ends in a newline: Ctrl+End is on the empty line after it, at no indentation
    assert text == "# top" + get_drill(name).starter + "\nif x:\n    return x", text[-80:]
