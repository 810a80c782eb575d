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
        (["--token", "x" * 20], {}, "--token is not accepted: every local user can read a command line"),
        (
            ["--max-peer-connections", "0"],
            {},
            "--max-peer-connections must be 1 to --max-connections (64), not 0",
        ),
        (["--max-peer-connections", "65"], {}, "--max-peer-connections must be 1 to --max-connections"),
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


def _serve_args(*argv: str):
    from tui.cli import build_parser

    return build_parser("serve").parse_args(["serve", *argv])


def test_a_token_file_is_read_and_checked(tmp_path: Path) -> None:
    import os

    from tui.serve_settings import UsageError, settings_from_args

    def why(path: Path, env: dict[str, str] | None = None) -> str:
        try:
            settings_from_args(_serve_args("--token-file", str(path)), env or {})
        except UsageError as error:
            return str(error)
        return "accepted"

    good = tmp_path / "token"
    good.write_text("file-token-0123456789\n")
    assert settings_from_args(_serve_args("--token-file", str(good)), {}).token == "file-token-0123456789"
    # the file wins over the variable
    env = {"POSENC_SERVE_TOKEN": "env-token-0123456789"}
    assert settings_from_args(_serve_args("--token-file", str(good)), env).token == "file-token-0123456789"
    assert settings_from_args(_serve_args(), env).token == "env-token-0123456789"

    (tmp_path / "empty").write_text(" \n")
    (tmp_path / "big").write_text("a" * 5000)
    (tmp_path / "short").write_text("short\n")
    (tmp_path / "binary").write_bytes(b"\xff" * 20)
    os.mkfifo(tmp_path / "fifo")  # opened without blocking, then refused
    assert why(tmp_path / "missing") == f"--token-file {tmp_path / 'missing'}: no such file"
    assert why(tmp_path / "empty") == f"--token-file {tmp_path / 'empty'}: the file is empty"
    assert (
        why(tmp_path / "big")
        == f"--token-file {tmp_path / 'big'}: 5000 bytes; a token file holds at most 4096"
    )
    assert why(tmp_path) == f"--token-file {tmp_path}: not a regular file"
    assert why(tmp_path / "fifo") == f"--token-file {tmp_path / 'fifo'}: not a regular file"
    assert why(tmp_path / "binary") == f"--token-file {tmp_path / 'binary'}: not UTF-8 text"
    assert (
        why(tmp_path / "short") == f"--token-file {tmp_path / 'short'}: must be 16-256 characters long, not 5"
    )


def test_a_bad_token_file_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    from tui.cli import main

    try:
        code = main(["serve", "--token-file", str(tmp_path / "missing")])
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err == f"posenc serve: --token-file {tmp_path / 'missing'}: no such file\n"


def test_secure_cookie_behind_a_tls_proxy_named_by_allow_host() -> None:
    """X-Forwarded-Proto: https makes the cookie Secure only when the Host is an --allow-host name (the
    proxy's); from anyone else the header is not believed."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from tui.serve_guard import Guard

    guard = Guard(TOKEN, 8000, "127.0.0.1", ["study.example"])

    async def page(request: web.Request) -> web.Response:
        return web.Response(text="page")

    async def cookies() -> dict[str, tuple[int, str]]:
        app = web.Application(middlewares=[guard.middleware(lambda why: None)])
        app.router.add_get("/", page)
        found = {}
        async with TestClient(TestServer(app)) as client:
            asks = {
                "proxy, https": {"Host": "study.example", "X-Forwarded-Proto": "https"},
                "proxy, https first of two": {"Host": "study.example", "X-Forwarded-Proto": "HTTPS, http"},
                "proxy, http": {"Host": "study.example", "X-Forwarded-Proto": "http"},
                "proxy, no header": {"Host": "study.example"},
                "loopback, https": {"Host": "127.0.0.1", "X-Forwarded-Proto": "https"},
            }
            for name, headers in asks.items():
                response = await client.get(f"/?token={TOKEN}", headers=headers)
                found[name] = (response.status, response.headers.get("Set-Cookie", ""))
        return found

    found = asyncio.run(cookies())
    assert {name: status for name, (status, _) in found.items()} == dict.fromkeys(found, 200)
    secure = {name: "; Secure" in cookie for name, (_, cookie) in found.items()}
    assert secure == {
        "proxy, https": True,
        "proxy, https first of two": True,
        "proxy, http": False,
        "proxy, no header": False,
        "loopback, https": False,
    }
    assert all("HttpOnly" in cookie and "SameSite=Strict" in cookie for _, cookie in found.values())


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


@pytest.mark.slow
@pytest.mark.parametrize("token_file", [False, True])
def test_the_token_is_on_no_command_line_and_in_no_apps_environment(tmp_path: Path, token_file: bool) -> None:
    """Neither `ps` (the server's command line) nor a drill (its app's environment, the app's command line)
    shows the token, whether it came in POSENC_SERVE_TOKEN or from --token-file."""
    from test_serve import process_table

    server, port = start_server(tmp_path, token_file=token_file)
    try:
        spare = ready_spare(server, tmp_path)
        assert status(f"http://127.0.0.1:{port}/?token={TOKEN}") == 200  # the token is the server's
        commands = {pid: row[3] for pid, row in process_table().items()}
        assert TOKEN not in commands[server.pid] and TOKEN not in commands[spare]
        with open(f"/proc/{spare}/environ", "rb") as fh:
            environ = fh.read().split(b"\0")
        assert not [v for v in environ if TOKEN.encode() in v or v.startswith(b"POSENC_SERVE_")]
        assert any(v.startswith(b"POSENC_DRILL_WORKSPACE=") for v in environ)  # it is the app's environment
        if token_file:  # nothing to find in the server's own environment either
            with open(f"/proc/{server.pid}/environ", "rb") as fh:
                assert TOKEN.encode() not in fh.read()
    finally:
        assert stop_server(server) == 0
