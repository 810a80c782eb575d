"""Who gets into `posenc serve`: a token, the allowed Host names, the page's own Origin.

Modelled on Jupyter Server and code-server (see docs/serve.md for the threat model):

- **Token.** The server holds a random token (`new_token`: 256 bits from `secrets`) or one given with
  `--token-file FILE` / $POSENC_SERVE_TOKEN (never on the command line, which every local user can read). `GET /?token=T` answers the page and sets an HttpOnly, SameSite=Strict
  cookie (a hash of the token, named after the port, since cookies are not kept apart by port); every other
  request needs that cookie, the `token` query parameter or an `Authorization: token T` header. Comparisons run
  in constant time (`hmac.compare_digest`). Without any of them: 403, and no app process starts.
- **Host.** A request whose Host header is not an allowed name gets 403 (DNS rebinding: a foreign name that
  resolves to this machine). Allowed: localhost, 127.0.0.1, [::1], the --host value and each --allow-host.
- **Origin.** The websocket handshake is refused unless its Origin is the page's own origin. A browser always
  sends one on a websocket; a request without one is a program, which still needs the token.
- **Refusals close.** A refused request's connection is closed after the 403, so a client without the token
  holds no keep-alive socket (the connection caps and timeouts are tui/serve_connections.py).
- **Behind a TLS proxy.** The cookie is `Secure` when the request came over TLS, or when it carries
  `X-Forwarded-Proto: https` and its Host is a name given with --allow-host (the proxy's). A client that
  forges the header on a plain connection only gets a cookie its browser will not send back over http.

Nothing from a request is echoed into a response: refusals are fixed texts.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
from collections.abc import Iterable
from typing import Any

__all__ = [
    "TOKEN_ENV",
    "Guard",
    "check_host_name",
    "check_token",
    "host_name",
    "new_token",
]

TOKEN_ENV = "POSENC_SERVE_TOKEN"
TOKEN_BYTES = 32  # 256 bits; the issue asks for at least 128
TOKEN_CHARS = re.compile(r"[A-Za-z0-9._~-]+")
TOKEN_MIN, TOKEN_MAX = 16, 256
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
HOST_NAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")

FORBIDDEN = "403: open the address that `posenc serve` printed (it carries the token).\n"
WRONG_HOST = "403: this server does not answer to that host name (see --allow-host).\n"
WRONG_ORIGIN = "403: this socket belongs to the page of this server only.\n"


def new_token() -> str:
    """A fresh URL-safe token: 256 random bits."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def check_token(token: str) -> str | None:
    """Why `token` cannot be used (one line), or None."""
    if not TOKEN_MIN <= len(token) <= TOKEN_MAX:
        return f"must be {TOKEN_MIN}-{TOKEN_MAX} characters long, not {len(token)}"
    if not TOKEN_CHARS.fullmatch(token):
        return "may hold only letters, digits and - _ . ~"
    return None


def host_name(value: str) -> str | None:
    """The name in a Host header or --host/--allow-host value, lowercased and without its port: `example.org`,
    `127.0.0.1`, `[::1]` (IPv6 in brackets, as a browser writes it); None when it is not one."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end == -1 or (value[end + 1 :] and not re.fullmatch(r":[0-9]{1,5}", value[end + 1 :])):
            return None
        address = value[1:end]
    elif value.count(":") > 1:  # a bare IPv6 address (--host ::1)
        address = value
    else:
        name, _, port = value.partition(":")
        name = name.rstrip(".")  # the root's dot: `localhost.` is `localhost`
        if port and not port.isdigit():
            return None
        try:
            return str(ipaddress.IPv4Address(name))
        except ValueError:
            return name if HOST_NAME.fullmatch(name) and len(name) <= 253 else None
    try:
        return f"[{ipaddress.IPv6Address(address).compressed}]"
    except ValueError:
        return None


def check_host_name(value: str) -> str | None:
    """Why `value` is not a name that --allow-host takes (one line), or None."""
    has_port = re.search(r"\]:|^[^:\[]*:[^:]*$", value.strip()) is not None
    if not value.strip() or has_port or host_name(value) is None:
        return "must be a host name or an IP address, without a port or a scheme"
    return None


def _cookie_value(token: str) -> str:
    return hashlib.sha256(b"posenc-serve-cookie\0" + token.encode()).hexdigest()


class Guard:
    """The server's checks, for an aiohttp middleware (`middleware`) and the websocket handler."""

    def __init__(self, token: str, port: int, bind_host: str, allow_hosts: Iterable[str] = ()) -> None:
        self._token = token.encode()
        self._cookie = _cookie_value(token).encode()
        self.cookie_name = f"posenc-serve-{port}"
        names = {*LOOPBACK_NAMES, bind_host, *allow_hosts}
        self.allowed_hosts = frozenset(n for n in map(host_name, names) if n is not None)
        # the names a TLS proxy in front may use: its X-Forwarded-Proto is believed for these only
        self.proxy_hosts = frozenset(n for n in map(host_name, allow_hosts) if n is not None)

    # ------------------------------------------------------------------ the checks

    def host_allowed(self, request: Any) -> bool:
        name = host_name(request.headers.get("Host", ""))
        return name is not None and name in self.allowed_hosts

    def token_in_query(self, request: Any) -> bool:
        given = request.query.get("token", "")
        return bool(given) and hmac.compare_digest(given.encode(), self._token)

    def authorized(self, request: Any) -> bool:
        """The token in the query or an Authorization header, or the cookie that the page set."""
        if self.token_in_query(request):
            return True
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if (
            scheme.lower() in ("token", "bearer")
            and given
            and hmac.compare_digest(given.encode(), self._token)
        ):
            return True
        cookie = request.cookies.get(self.cookie_name, "")
        return bool(cookie) and hmac.compare_digest(cookie.encode(), self._cookie)

    def origin_allowed(self, request: Any) -> bool:
        """The page's own origin (the Host is an allowed name by now), or none at all (not a browser)."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True
        own = request.headers.get("Host", "").lower()
        return origin.lower() in (f"http://{own}", f"https://{own}")

    def secure(self, request: Any) -> bool:
        """Whether the browser reached us over TLS: this connection's own, or a proxy's named by --allow-host
        that says so in X-Forwarded-Proto (its first value: the client's side)."""
        if request.secure:
            return True
        forwarded = request.headers.get("X-Forwarded-Proto", "").split(",")[0].strip().lower()
        return forwarded == "https" and host_name(request.headers.get("Host", "")) in self.proxy_hosts

    def set_cookie(self, response: Any, secure: bool) -> None:
        response.set_cookie(
            self.cookie_name,
            self._cookie.decode(),
            httponly=True,
            samesite="Strict",
            path="/",
            secure=secure,
        )

    # ------------------------------------------------------------------ aiohttp

    def middleware(self, refused: Any) -> Any:
        """An aiohttp middleware: Host, then the token, then (websocket) Origin; `refused(reason)` is told
        of each refusal (the server logs them, collapsed). The page sets the cookie when its URL had the token."""
        from aiohttp import web

        @web.middleware
        async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
            if not self.host_allowed(request):
                refused("a request for a host name that is not allowed (--allow-host adds one)")
                return _refusal(WRONG_HOST)
            if not self.authorized(request):
                refused("a request without the token")
                return _refusal(FORBIDDEN)
            if request.path == "/ws" and not self.origin_allowed(request):
                refused("a websocket from another site's page (its Origin)")
                return _refusal(WRONG_ORIGIN)
            response = await handler(request)
            if self.token_in_query(request) and not response.prepared:
                self.set_cookie(response, self.secure(request))
            if not response.prepared:
                response.headers.setdefault("Referrer-Policy", "no-referrer")
                response.headers.setdefault("X-Content-Type-Options", "nosniff")
                response.headers.setdefault("X-Frame-Options", "DENY")
                if not request.path.startswith("/static/"):  # the scripts and styles may be cached
                    response.headers.setdefault("Cache-Control", "no-store")
            return response

        return guard


def _refusal(text: str) -> Any:
    from aiohttp import web

    response = web.Response(status=403, text=text, headers={"Cache-Control": "no-store"})
    response.force_close()  # no keep-alive socket for a client without the token
    return response
