"""The settings of `posenc serve`: every option and POSENC_SERVE_* variable, checked before anything starts.

`settings_from_args` turns the parsed options and the environment into a `ServeSettings`, or raises
`UsageError` with one line (the command prints it and exits 2): a port out of range, a non-loopback host
without --public, --allow-code without --public, a bad --allow-host name or token, `--token` (gone: a command
line is readable by every local user), a --token-file that is missing, empty, too big or not a regular file,
caps below 1, a POSENC_SERVE_SPARE_MAX_AGE_S that is not a positive number of seconds, an unknown
POSENC_SERVE_* name.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
import stat
from dataclasses import dataclass, field

from .serve_connections import peer_cap_default

__all__ = ["ServeSettings", "UsageError", "is_loopback", "read_token_file", "settings_from_args"]

MAX_TABS = 8
MAX_CONNECTIONS = 64
SPARE_MAX_AGE_S = 600.0  # an idle spare is replaced after this long (so edited banks are seen)
SPARE_MAX_AGE_ENV = "POSENC_SERVE_SPARE_MAX_AGE_S"  # tests shorten SPARE_MAX_AGE_S
WILDCARD_HOSTS = ("0.0.0.0", "::", "[::]")
TOKEN_FILE_MAX_BYTES = 4096  # a token is at most 256 characters; anything much bigger is the wrong file
NO_TOKEN_OPTION = (
    "--token is not accepted: every local user can read a command line (ps, /proc/PID/cmdline); "
    "put the token in a file for --token-file FILE, or in POSENC_SERVE_TOKEN"
)


class UsageError(Exception):
    """A bad option or POSENC_SERVE_* variable: one line, exit 2."""


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class ServeSettings:
    host: str = "127.0.0.1"
    port: int = 8000
    token: str = ""
    allow_hosts: list[str] = field(default_factory=list)
    max_tabs: int = MAX_TABS
    max_connections: int = MAX_CONNECTIONS
    max_peer_connections: int = peer_cap_default(MAX_CONNECTIONS, MAX_TABS)
    public: bool = False
    allow_code: bool = False
    data_dir: str | None = None
    banks: list[str] = field(default_factory=list)
    spare_max_age_s: float = SPARE_MAX_AGE_S

    @property
    def code_off(self) -> bool:
        return self.public and not self.allow_code

    @property
    def url(self) -> str:
        """The address to open: the bind address (127.0.0.1 for a wildcard one) with the token."""
        host = "127.0.0.1" if self.host in WILDCARD_HOSTS else self.host
        host = f"[{host.strip('[]')}]" if ":" in host else host
        return f"http://{host}:{self.port}/?token={self.token}"


def _seconds(name: str, value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise UsageError(f"{name} must be a number of seconds, not {value!r}") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise UsageError(f"{name} must be a positive number of seconds, not {value!r}")
    return seconds


def read_token_file(path: str) -> str:
    """The token in `path`: its text without surrounding blanks (a trailing newline is usual). Raises
    UsageError for a missing, unreadable, empty or oversized file, and for anything but a regular file (a FIFO
    is opened without blocking, then refused)."""
    where = f"--token-file {path}"
    try:
        fd = os.open(os.path.expanduser(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file") from None
    except OSError as error:
        raise UsageError(f"{where}: cannot open it: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{where}: not a regular file")
        if info.st_size > TOKEN_FILE_MAX_BYTES:
            raise UsageError(
                f"{where}: {info.st_size} bytes; a token file holds at most {TOKEN_FILE_MAX_BYTES}"
            )
        data = os.read(fd, TOKEN_FILE_MAX_BYTES + 1)
    except OSError as error:
        raise UsageError(f"{where}: cannot read it: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if len(data) > TOKEN_FILE_MAX_BYTES:
        raise UsageError(f"{where}: more than {TOKEN_FILE_MAX_BYTES} bytes; a token file holds one token")
    try:
        token = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise UsageError(f"{where}: not UTF-8 text") from None
    if not token:
        raise UsageError(f"{where}: the file is empty")
    return token


def settings_from_args(args: argparse.Namespace, environ: dict[str, str] | None = None) -> ServeSettings:
    """Check every option and POSENC_SERVE_* variable; raises UsageError (one line)."""
    from .serve_guard import TOKEN_ENV, check_host_name, check_token, new_token

    env = os.environ if environ is None else environ
    known = {TOKEN_ENV, SPARE_MAX_AGE_ENV}
    for name in sorted(env):
        if name.startswith("POSENC_SERVE_") and name not in known:
            raise UsageError(f"unknown variable {name}; posenc serve reads {', '.join(sorted(known))}")
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be 1-65535, not {args.port}")
    host = args.host.strip()
    if check_host_name(host) is not None:
        raise UsageError(f"--host must be a host name or an IP address, not {args.host!r}")
    if not is_loopback(host) and not args.public:
        raise UsageError(f"{host} is not a loopback address; add --public to serve the app to your network")
    if args.allow_code and not args.public:
        raise UsageError("--allow-code goes with --public (on loopback, code always runs)")
    for name in args.allow_host:
        if (why := check_host_name(name)) is not None:
            raise UsageError(f"--allow-host {name!r}: {why}")
    if args.max_tabs < 1:
        raise UsageError(f"--max-tabs must be at least 1, not {args.max_tabs}")
    if args.max_connections < args.max_tabs + 4:
        raise UsageError(
            f"--max-connections must be at least --max-tabs + 4 ({args.max_tabs + 4}), not {args.max_connections}"
        )
    peer_cap = args.max_peer_connections
    if peer_cap is None:
        peer_cap = peer_cap_default(args.max_connections, args.max_tabs)
    elif not 1 <= peer_cap <= args.max_connections:
        raise UsageError(
            f"--max-peer-connections must be 1 to --max-connections ({args.max_connections}), not {peer_cap}"
        )
    if getattr(args, "token", None) is not None:
        raise UsageError(NO_TOKEN_OPTION)
    token: str | None
    if args.token_file is not None:
        token, where = read_token_file(args.token_file), f"--token-file {args.token_file}:"
    else:
        token, where = env.get(TOKEN_ENV), TOKEN_ENV
    if token is not None and (why := check_token(token)) is not None:
        raise UsageError(f"{where} {why}")
    spare_max_age = SPARE_MAX_AGE_S
    if (value := env.get(SPARE_MAX_AGE_ENV)) is not None:
        spare_max_age = _seconds(SPARE_MAX_AGE_ENV, value)
    return ServeSettings(
        host=host,
        port=args.port,
        token=token or new_token(),
        allow_hosts=list(args.allow_host),
        max_tabs=args.max_tabs,
        max_connections=args.max_connections,
        max_peer_connections=peer_cap,
        public=args.public,
        allow_code=args.allow_code,
        data_dir=args.serve_data_dir or getattr(args, "data_dir", None),
        banks=list(getattr(args, "bank", None) or []) + list(args.serve_bank),
        spare_max_age_s=spare_max_age,
    )
