"""How many sockets `posenc serve` holds open, for whom, and for how long.

One client must not lock the others out by opening sockets and sending nothing (or half a request):

- **A cap in all** (`--max-connections`) and **a cap per peer address** (`--max-peer-connections`): a socket
  past either gets a 503 and is closed before anything of it is read. A browser holds its tabs' websockets
  and a few page requests, well under the per-address cap; one flooder holds at most that many sockets, so
  the rest stay open to everybody else.
- **A short first request**: a socket that has not sent the whole head of its first request within
  `FIRST_REQUEST_TIMEOUT_S` is closed. A socket that completed a request may idle up to `KEEPALIVE_TIMEOUT_S`
  (aiohttp's keep-alive timer, which also closes one that sends half of a later request). Refusals (403) close
  their connection (tui/serve_guard.py), so only a client with the token keeps a socket alive.
- **Refusals are counted, not logged one by one**: `ConnectionCap.refusal_lines()` (the server prints them
  every 10 s) says `refused N connections from ADDR (busy ...) in the last 10 s`, one line per address.

Imported by tui/serve.py only when it serves (aiohttp is imported inside `capped_runner`).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "FIRST_REQUEST_TIMEOUT_S",
    "KEEPALIVE_TIMEOUT_S",
    "ConnectionCap",
    "capped_runner",
    "peer_cap_default",
]

FIRST_REQUEST_TIMEOUT_S = 5.0  # a new socket gets this long for the head of its first request
KEEPALIVE_TIMEOUT_S = 15.0  # a socket that completed a request may idle this long between requests
MAX_REFUSAL_ADDRESSES = 32  # addresses named in one window's refusal lines; the rest are counted together
BUSY = b"server busy: too many connections, try again later\n"
BUSY_REPLY = (
    b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(BUSY), BUSY)
)
HEAD_END = b"\r\n\r\n"


def peer_cap_default(max_connections: int, max_tabs: int) -> int:
    """Sockets one address may hold unless told: a quarter of the whole cap, and never fewer than a browser
    needs for every tab (one websocket each) and its page requests."""
    return min(max_connections, max(8, max_connections // 4, max_tabs + 6))


class ConnectionCap:
    """The counts: sockets open in all and per address, and refusals since the last `refusal_lines`."""

    def __init__(self, max_connections: int, max_per_peer: int) -> None:
        self.max_connections = max_connections
        self.max_per_peer = max_per_peer
        self.open = 0
        self.per_peer: dict[str, int] = {}
        self._refused: dict[str, int] = {}  # address -> refusals this window
        self._refused_other = 0  # refusals from addresses past MAX_REFUSAL_ADDRESSES
        self._why: dict[str, str] = {}  # address -> the last refusal's cap

    def admit(self, peer: str) -> bool:
        """Count a new socket from `peer` in, or count a refusal and return False."""
        if self.per_peer.get(peer, 0) >= self.max_per_peer:
            why = f"{self.max_per_peer} open from that address, --max-peer-connections"
        elif self.open >= self.max_connections:
            why = f"{self.max_connections} open in all, --max-connections"
        else:
            self.open += 1
            self.per_peer[peer] = self.per_peer.get(peer, 0) + 1
            return True
        if peer in self._refused or len(self._refused) < MAX_REFUSAL_ADDRESSES:
            self._refused[peer] = self._refused.get(peer, 0) + 1
            self._why[peer] = why
        else:
            self._refused_other += 1
        return False

    def release(self, peer: str) -> None:
        self.open -= 1
        left = self.per_peer.get(peer, 1) - 1
        if left > 0:
            self.per_peer[peer] = left
        else:
            self.per_peer.pop(peer, None)

    def refusal_lines(self, window_s: float) -> list[str]:
        """One line per address refused since the last call (then the counts start over)."""

        def count(n: int) -> str:
            return f"{n} connection{'s' if n != 1 else ''}"

        lines = [
            f"refused {count(n)} from {peer} (busy: {self._why[peer]}) in the last {window_s:.0f} s"
            for peer, n in self._refused.items()
        ]
        if self._refused_other:
            lines.append(
                f"refused {count(self._refused_other)} from other addresses (busy) in the last {window_s:.0f} s"
            )
        self._refused.clear()
        self._why.clear()
        self._refused_other = 0
        return lines


def _peer(transport: Any) -> str:
    peer = transport.get_extra_info("peername")
    if isinstance(peer, tuple) and peer:
        return str(peer[0])
    return "unknown"


def capped_runner(app: Any, cap: ConnectionCap, **kwargs: Any) -> Any:
    """An aiohttp AppRunner whose sockets are counted by `cap` (one past a cap gets a 503 and is closed at
    once), whose first request must come within FIRST_REQUEST_TIMEOUT_S, and whose keep-alive timeout is
    KEEPALIVE_TIMEOUT_S."""
    from aiohttp import web
    from aiohttp.web_protocol import RequestHandler

    class CappedHandler(RequestHandler):
        peer: str | None = None  # set once admitted
        head_seen = False
        tail = b""
        first_timer: Any = None

        def connection_made(self, transport: Any) -> None:
            peer = _peer(transport)
            if not cap.admit(peer):
                transport.write(BUSY_REPLY)
                transport.close()
                return
            self.peer = peer
            super().connection_made(transport)
            self.first_timer = self._loop.call_later(FIRST_REQUEST_TIMEOUT_S, self._first_request_late)

        def _first_request_late(self) -> None:
            self.first_timer = None
            if not self.head_seen:
                self.force_close()

        def data_received(self, data: bytes) -> None:
            if not self.head_seen:
                if HEAD_END in self.tail + data[:3] or HEAD_END in data:
                    self.head_seen = True
                    if self.first_timer is not None:
                        self.first_timer.cancel()
                        self.first_timer = None
                else:
                    self.tail = (self.tail + data)[-3:]  # a head sent a byte at a time still ends
            super().data_received(data)

        def connection_lost(self, exc: BaseException | None) -> None:
            if self.peer is None:  # refused: aiohttp never heard of it
                return
            if self.first_timer is not None:
                self.first_timer.cancel()
                self.first_timer = None
            cap.release(self.peer)
            self.peer = None
            super().connection_lost(exc)

    class CappedServer(web.Server):
        def __call__(self) -> RequestHandler:
            return CappedHandler(self, loop=self._loop, **self._kwargs)

    class CappedRunner(web.AppRunner):
        async def _make_server(self) -> web.Server:
            server = await super()._make_server()
            server.__class__ = CappedServer  # the same server, handing out CappedHandlers
            return server

    return CappedRunner(app, keepalive_timeout=KEEPALIVE_TIMEOUT_S, **kwargs)
