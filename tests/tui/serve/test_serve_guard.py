"""Who gets into `posenc serve` (tui/serve_guard.py): the token, the Host allow-list, the page's own Origin;
and its settings, each checked with a one-line error (exit 2). The server is a real subprocess."""

from __future__ import annotations

import asyncio
import io
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from test_serve import (
    COLS,
    ROWS,
    TOKEN,
    Tab,
    app_processes,
    events,
    ready_spare,
    shipped_topic_titles,
    start_server,
    stop_server,
)

from tui.serve import MAX_SIZE, clamp_size
from tui.serve_guard import check_host_name, check_token, host_name, new_token
from tui.serve_log import RepeatLog


def status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers or {}), timeout=10
        ) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


# ---------------------------------------------------------------- pure parts


def test_tokens_are_long_random_and_checked() -> None:
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100 and all(len(t) >= 43 and check_token(t) is None for t in tokens)  # 256 bits
    assert "16-256 characters" in check_token("short")
    assert "letters, digits" in check_token("a" * 15 + " ")
    assert check_token("x" * 16) is None and "256" in check_token("x" * 257)


def test_host_names() -> None:
    assert host_name("LocalHost.:8000") == "localhost"
    assert host_name("127.0.0.1:1") == "127.0.0.1"
    assert host_name("[::1]:8000") == host_name("::1") == host_name("[0:0::1]") == "[::1]"
    assert host_name("evil.example") == "evil.example"
    assert [host_name(v) for v in ("", "a b", "[::1", "[::1]x", "x:y", "http://x", "-a.b")] == [None] * 7
    assert check_host_name("study.lan") is None and check_host_name("::1") is None
    assert all(check_host_name(v) for v in ("study.lan:80", "[::1]:80", "http://x", ""))


def test_sizes_are_clamped() -> None:
    assert clamp_size(20000, 20000) == MAX_SIZE == (500, 200)
    assert clamp_size("120", "40") == (120, 40)
    assert clamp_size(-5, 0) == (2, 1)  # never the spare's 1 column
    assert clamp_size("abc", None) == clamp_size(True, [1]) == (80, 24)
    assert clamp_size(float("inf"), 10**400) == (80, 200)


def test_repeated_lines_are_printed_once_with_a_count() -> None:
    out = io.StringIO()
    log = RepeatLog(window_s=60, stream=out)
    for _ in range(1000):
        log.report("eof", "a session failed: EOFError: \x1b[31mgone")
    log.report("other", "something else")
    log.flush()
    assert out.getvalue().splitlines() == [
        "posenc serve: a session failed: EOFError: \\x1b[31mgone",  # escaped: it may hold what a client sent
        "posenc serve: something else",
        "posenc serve: a session failed: EOFError: \\x1b[31mgone (repeated 999 more times)",
    ]


# ---------------------------------------------------------------- settings


def test_the_printed_address() -> None:
    from tui.serve_settings import ServeSettings

    token = "t" * 16
    assert ServeSettings(port=8000, token=token).url == f"http://127.0.0.1:8000/?token={token}"
    assert ServeSettings(host="::1", port=1, token=token).url == f"http://[::1]:1/?token={token}"
    # a wildcard address is no place to open: this machine's loopback is
    assert ServeSettings(host="0.0.0.0", port=2, token=token).url == f"http://127.0.0.1:2/?token={token}"
    assert ServeSettings(public=True).code_off and not ServeSettings(public=True, allow_code=True).code_off


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["--port", "0"], {}, "--port must be 1-65535, not 0"),
        (["--port", "abc"], {}, "invalid int value: 'abc'"),
        (["--host", "0.0.0.0"], {}, "add --public"),
        (["--host", "a b", "--public"], {}, "--host must be a host name"),
        (["--max-tabs", "0"], {}, "--max-tabs must be at least 1"),
        (["--max-tabs", "10", "--max-connections", "12"], {}, "--max-connections must be at least"),
        (["--token", "short"], {}, "--token must be 16-256 characters"),
        ([], {"POSENC_SERVE_TOKEN": "has spaces in it, sixteen+"}, "POSENC_SERVE_TOKEN may hold only"),
        (["--allow-host", "study.lan:80"], {}, "--allow-host 'study.lan:80': must be a host name"),
        (["--allow-code"], {}, "--allow-code goes with --public"),
        ([], {"POSENC_SERVE_SPARE_MAX_AGE_S": "abc"}, "must be a number of seconds, not 'abc'"),
        ([], {"POSENC_SERVE_SPARE_MAX_AGE_S": "-1"}, "must be a positive number of seconds, not '-1'"),
        ([], {"POSENC_SERVE_SPARE_MAX_AGE_S": "nan"}, "must be a positive number of seconds"),
        ([], {"POSENC_SERVE_SPARE_MAX_AGE": "5"}, "unknown variable POSENC_SERVE_SPARE_MAX_AGE"),
    ],
)
def test_bad_settings_are_one_line_and_exit_2(
    argv: list[str], env: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from tui.cli import main

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        code = main(["serve", "--port", "8000", *argv])
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("posenc serve: ") and message in lines[0], captured.err
    assert captured.out == ""


# ---------------------------------------------------------------- the server


@pytest.mark.slow
def test_only_the_token_the_own_host_and_the_own_origin_get_in(tmp_path: Path) -> None:
    titles = shipped_topic_titles()
    server, port = start_server(tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        spare = ready_spare(server, tmp_path)
        assert status(f"{base}/") == 403
        assert status(f"{base}/?token={TOKEN[:-1]}x") == 403
        assert status(f"{base}/static/js/textual.js") == 403
        assert status(f"{base}/?token={TOKEN}") == 200
        assert status(f"{base}/?token={TOKEN}", {"Host": "evil.example"}) == 403  # DNS rebinding
        assert status(f"{base}/?token={TOKEN}", {"Host": f"evil.example:{port}"}) == 403
        assert status(f"{base}/", {"Authorization": f"token {TOKEN}"}) == 200  # scripts
        assert status(f"{base}/static/?token={TOKEN}") == 403  # no directory listing
        assert status(f"{base}/static/js/textual.js?token={TOKEN}") == 200

        async def sockets() -> dict[str, int | str]:
            import aiohttp

            found: dict[str, int | str] = {}
            ws_base = f"ws://127.0.0.1:{port}/ws?width={COLS}&height={ROWS}"
            async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
                attempts = {
                    "no token": (ws_base, {}),
                    "foreign origin, token": (f"{ws_base}&token={TOKEN}", {"Origin": "http://evil.example"}),
                    "foreign host, token": (f"{ws_base}&token={TOKEN}", {"Host": "evil.example"}),
                }
                for name, (url, headers) in attempts.items():
                    try:
                        ws = await session.ws_connect(url, headers=headers)
                        await ws.close()
                        found[name] = "accepted"
                    except aiohttp.WSServerHandshakeError as error:
                        found[name] = error.status
                # the page's cookie, from another site's page: refused; from the page itself: Home
                async with session.get(f"http://127.0.0.1:{port}/?token={TOKEN}") as response:
                    assert response.status == 200
                try:
                    await session.ws_connect(ws_base, origin="http://evil.example")
                    found["cookie, foreign origin"] = "accepted"
                except aiohttp.WSServerHandshakeError as error:
                    found["cookie, foreign origin"] = error.status
                ws = await session.ws_connect(ws_base, origin=f"http://127.0.0.1:{port}")
                await ws.send_json(["resize", {"width": COLS, "height": ROWS}])
                await Tab(ws).wait_for(*titles)
                found["cookie, own origin"] = "Home"
            return found

        found = asyncio.run(sockets())
        assert found == {
            "no token": 403,
            "foreign origin, token": 403,
            "foreign host, token": 403,
            "cookie, foreign origin": 403,
            "cookie, own origin": "Home",
        }
        # the refused sockets started no app: one tab, and it took the spare
        assert [(e["spare"], e["pid"]) for e in events(tmp_path, "serve_tab")] == [(True, spare)]
        assert len(app_processes(server.pid)) <= 2
    finally:
        assert stop_server(server) == 0
    refusals = [line for line in server.stderr.read().splitlines() if "refused" in line]
    # one line per kind of refusal (token, host, origin), then its repeats as a count
    assert len([line for line in refusals if "repeated" not in line]) == 3, refusals
    assert len(refusals) <= 6, refusals


@pytest.mark.slow
def test_the_printed_address_carries_a_random_token(tmp_path: Path) -> None:
    import subprocess
    import sys

    from test_serve import ROOT, free_port, serve_env

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
        cwd=ROOT,
        env=serve_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        prefix = f"posenc serve: http://127.0.0.1:{port}/?token="
        assert line.startswith(prefix), line
        token = line[len(prefix) :].split()[0]
        assert len(token) >= 43 and check_token(token) is None  # 256 bits, URL-safe
        assert status(f"http://127.0.0.1:{port}/") == 403
        assert status(f"http://127.0.0.1:{port}/?token={token}") == 200
    finally:
        assert stop_server(server) == 0
