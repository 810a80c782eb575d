"""`posenc serve`'s sockets (tui/serve_connections.py): a cap in all and per peer address, a short first
request, a longer keep-alive, refusals closed, and busy refusals logged as one line per address and window.
The process tests run the real server; a second loopback address (127.0.0.2) plays the flooder."""

from __future__ import annotations

import select
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from test_serve import TOKEN, start_server, stop_server

from tui.serve_connections import (
    FIRST_REQUEST_TIMEOUT_S,
    KEEPALIVE_TIMEOUT_S,
    ConnectionCap,
    peer_cap_default,
)

HALF_REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # a head that never ends

# ---------------------------------------------------------------- the counts


def test_the_per_address_default_leaves_a_browser_its_tabs() -> None:
    assert peer_cap_default(64, 8) == 16  # a quarter of the whole
    assert peer_cap_default(12, 8) == 12  # never more than the whole
    assert peer_cap_default(64, 20) == 26  # every tab's websocket and a few page requests
    assert peer_cap_default(200, 8) == 50


def test_caps_per_address_and_in_all_and_refusals_are_summed_per_address() -> None:
    cap = ConnectionCap(max_connections=5, max_per_peer=3)
    assert [cap.admit("10.0.0.1") for _ in range(5)] == [True, True, True, False, False]
    assert [cap.admit("10.0.0.2") for _ in range(3)] == [True, True, False]  # the whole is full
    assert cap.open == 5 and cap.per_peer == {"10.0.0.1": 3, "10.0.0.2": 2}
    cap.release("10.0.0.1")
    assert cap.admit("10.0.0.2") and cap.open == 5
    cap.release("10.0.0.2")
    cap.release("10.0.0.2")
    cap.release("10.0.0.2")
    assert cap.per_peer == {"10.0.0.1": 2}
    assert cap.refusal_lines(10) == [
        "refused 2 connections from 10.0.0.1 (busy: 3 open from that address, --max-peer-connections)"
        " in the last 10 s",
        "refused 1 connection from 10.0.0.2 (busy: 5 open in all, --max-connections) in the last 10 s",
    ]
    assert cap.refusal_lines(10) == []  # counted per window
    # a flood from many addresses names a few and counts the rest
    tiny = ConnectionCap(max_connections=1, max_per_peer=1)
    tiny.admit("10.1.0.0")
    for n in range(100):
        tiny.admit(f"10.1.0.{n + 1}")
    lines = tiny.refusal_lines(10)
    assert (
        len(lines) == 33
        and lines[-1] == "refused 68 connections from other addresses (busy) in the last 10 s"
    )


# ---------------------------------------------------------------- the server


def _get(sock: socket.socket, path: str) -> tuple[int, bytes]:
    """One HTTP/1.1 request on a kept-alive socket: its status and body (read by its Content-Length)."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"closed before a whole head: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(
        next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[15:]
    )
    while len(body) < length:
        body += sock.recv(65536)
    return int(head.split()[1]), body


def _page_status(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/?token={TOKEN}", timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


@pytest.mark.slow
def test_a_first_request_is_cut_sooner_than_a_kept_alive_socket(tmp_path: Path) -> None:
    server, port = start_server(tmp_path, "--max-tabs", "2", "--max-connections", "8")
    idle: list[socket.socket] = []
    kept = socket.create_connection(("127.0.0.1", port), timeout=30)
    try:
        assert _get(kept, f"/?token={TOKEN}")[0] == 200  # it completed a request: keep-alive from now on
        for _ in range(7):  # the rest of the cap: sockets that send half a request and stop
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.sendall(HALF_REQUEST)
            idle.append(sock)
        opened = time.monotonic()
        # one more connection: answered 503 at once, not queued behind them
        with socket.create_connection(("127.0.0.1", port), timeout=30) as extra:
            reply = extra.recv(200)
        assert reply.startswith(b"HTTP/1.1 503") and b"server busy" in reply, reply
        # the server closes each half-open socket after the first request's timeout...
        assert [sock.recv(100) for sock in idle] == [b""] * len(idle)
        closed_after = time.monotonic() - opened
        assert FIRST_REQUEST_TIMEOUT_S - 1 <= closed_after < KEEPALIVE_TIMEOUT_S - 3, closed_after
        # ...while the kept-alive socket, idle as long, still answers
        status, body = _get(kept, f"/?token={TOKEN}")
        assert status == 200 and b"<title>posenc</title>" in body
        assert _page_status(port) == 200
        # a refusal closes its socket: no keep-alive without the token
        with socket.create_connection(("127.0.0.1", port), timeout=10) as tokenless:
            assert _get(tokenless, "/")[0] == 403
            assert tokenless.recv(100) == b""
    finally:
        kept.close()
        for sock in idle:
            sock.close()
        assert stop_server(server) == 0
    stderr = server.stderr.read().splitlines()
    busy = [line for line in stderr if "(busy" in line]
    assert busy == [
        "posenc serve: refused 1 connection from 127.0.0.1 (busy: 8 open from that address, "
        "--max-peer-connections) in the last 10 s"
    ], stderr
    assert len(stderr) <= 3, stderr  # no line per socket


@pytest.mark.slow
def test_one_flooding_address_cannot_lock_out_the_others(tmp_path: Path) -> None:
    """From 127.0.0.2, 80 half-open sockets, each re-opened as soon as it is closed: the server holds 16 of
    them (64 // 4), refuses the rest at once, and 30 requests from 127.0.0.1 all get the page."""
    server, port = start_server(tmp_path)  # --max-connections 64: 16 per address
    stop = threading.Event()
    reopened = [0]

    def flooder_socket() -> socket.socket:
        sock = socket.socket()
        sock.bind(("127.0.0.2", 0))
        sock.settimeout(10)
        sock.connect(("127.0.0.1", port))
        sock.sendall(HALF_REQUEST)
        return sock

    flood = [flooder_socket() for _ in range(80)]
    thread = None
    try:
        # the refused ones are answered 503 at once; the held ones hear nothing until their timeout
        deadline = time.monotonic() + 2
        answered: dict[socket.socket, bytes] = {}
        while time.monotonic() < deadline and len(answered) < 64:
            ready, _, _ = select.select([s for s in flood if s not in answered], [], [], 0.2)
            for sock in ready:
                answered[sock] = sock.recv(200)
        assert len(answered) == 64 and all(r.startswith(b"HTTP/1.1 503") for r in answered.values())
        for sock in answered:
            sock.close()
        flood = [sock for sock in flood if sock not in answered]

        def keep_flooding() -> None:  # re-open every socket the server closes, at once
            while not stop.is_set():
                ready, _, _ = select.select(flood, [], [], 0.1)
                for sock in ready:
                    sock.recv(200)
                    sock.close()
                    flood.remove(sock)
                    flood.append(flooder_socket())
                    reopened[0] += 1

        thread = threading.Thread(target=keep_flooding, daemon=True)
        thread.start()
        statuses = []
        started = time.monotonic()
        while len(statuses) < 30:  # spread over more than one first-request timeout
            statuses.append(_page_status(port))
            time.sleep(max(0, started + len(statuses) * 0.25 - time.monotonic()))
        assert statuses == [200] * 30
        assert reopened[0] >= 16  # the held sockets were cut and came back meanwhile
    finally:
        stop.set()
        if thread is not None:
            thread.join(timeout=10)
        for sock in list(flood):
            sock.close()
        assert stop_server(server) == 0
    stderr = server.stderr.read().splitlines()
    busy = [line for line in stderr if "(busy" in line]
    assert busy and all(
        line.startswith("posenc serve: refused ")
        and " connections from 127.0.0.2 (busy: 16 open from that address, --max-peer-connections)" in line
        for line in busy
    ), stderr
    assert len(busy) <= 2, stderr  # one line per address and 10 s window, not one per refusal
