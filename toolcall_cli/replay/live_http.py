"""The one HTTP exchange live replay makes: pinned to a checked address, under a total deadline.

Replay carries recorded, possibly sensitive arguments, so the transport refuses every way a
request could leave the address the user named and toolcall checked:

- the host is resolved **once**; every address must be loopback (unless ``--allow-remote``),
  and the connection goes to that address, with the name only in the ``Host`` header (and TLS
  SNI), so a resolver that answers differently the second time (DNS rebinding) is never asked;
- no redirects: a 3xx is the observed answer, its ``Location`` is never fetched;
- no proxies: ``http.client`` never reads ``http_proxy``/``HTTPS_PROXY``/``ALL_PROXY``;
- one deadline per call covers connect, headers and body: a watchdog shuts the socket when it
  passes, so a server trickling a byte a second cannot hold the call past ``--timeout``.

Userinfo in the URL is sent as HTTP Basic credentials and never shown (``Target.shown``).
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Final

from toolcall_cli.errors import UsageError

MAX_BODY: Final = 8 << 20  # bytes read from a live answer
_HINT: Final = "e.g. http://127.0.0.1:8080"


class DeadlineExceeded(Exception):
    """The call did not finish within its total deadline."""


@dataclass(frozen=True, slots=True)
class Target:
    """A parsed ``--target``: where to connect, what to send as ``Host``, what to show."""

    scheme: str
    host: str  # as given (no brackets): the Host header and TLS server name
    port: int
    base_path: str  # without a trailing slash
    auth: str | None  # "user:password" from the URL's userinfo, sent as Basic credentials
    shown: str  # the URL for output and messages, userinfo redacted

    @property
    def host_header(self) -> str:
        """The ``Host`` header value (IPv6 literals bracketed; default ports omitted)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def parse_target(url: str) -> Target:
    """*url* as a `Target`; anything that is not a plain http(s) URL is a UsageError."""
    if any(ord(ch) < 0x21 or ord(ch) == 0x7F for ch in url):
        raise UsageError(
            "--target must not contain spaces or control characters (CR, LF, tab)", hint=_HINT
        )
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError as e:  # "Port out of range", "Invalid IPv6 URL", a non-numeric port
        raise UsageError(f"--target is not a valid URL: {e}", hint=_HINT) from None
    if parts.scheme not in ("http", "https") or not host:
        raise UsageError(f"--target must be an http(s) URL, got {_redact(url)!r}", hint=_HINT)
    if parts.query or parts.fragment:
        raise UsageError("--target is a base URL: no query or fragment", hint=_HINT)
    auth = None
    if parts.username is not None:
        user = urllib.parse.unquote(parts.username)
        auth = f"{user}:{urllib.parse.unquote(parts.password or '')}"
    scheme = parts.scheme
    return Target(
        scheme=scheme,
        host=host,
        port=port if port is not None else (443 if scheme == "https" else 80),
        base_path=parts.path.rstrip("/"),
        auth=auth,
        shown=_redact(url).rstrip("/"),
    )


def _redact(url: str) -> str:
    """*url* with any userinfo replaced by ``***``."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, tail = rest.partition("/")
    if "@" in authority:
        authority = "***@" + authority.rpartition("@")[2]
    return f"{scheme}{sep}{authority}{slash}{tail}"


def resolve(target: Target, *, allow_remote: bool) -> tuple[str, ...]:
    """The addresses of *target*, resolved once; without *allow_remote* all must be loopback."""
    try:
        infos = socket.getaddrinfo(
            target.host, target.port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except (OSError, UnicodeError) as e:
        raise UsageError(f"cannot resolve --target host {target.host!r}: {e}") from None
    addrs = tuple(dict.fromkeys(str(i[4][0]) for i in infos))
    if not addrs:
        raise UsageError(f"cannot resolve --target host {target.host!r}: no address")
    if not allow_remote:
        outside = [a for a in addrs if not ipaddress.ip_address(a.split("%")[0]).is_loopback]
        if outside:
            raise UsageError(
                f"refusing to replay against {target.host!r}: not a loopback address"
                + (f" ({outside[0]})" if outside[0] != target.host else ""),
                hint="replay sends recorded arguments; pass --allow-remote if you mean it",
            )
    return addrs


def post(
    target: Target,
    addr: str,
    path: str,
    body: bytes,
    headers: dict[str, str],
    *,
    timeout: float,
) -> tuple[int, dict[str, str], bytes]:
    """POST *body* to *path* at *addr* (already checked); (status, headers, body) of the answer.

    Raises `DeadlineExceeded` past *timeout* seconds in all, `OSError` or
    `http.client.HTTPException` when the exchange fails.
    """
    deadline = time.monotonic() + timeout
    conn = _connection(target, addr, timeout)
    try:
        conn.connect()  # bounded by the socket timeout; the watchdog covers the rest
    except OSError:
        conn.close()
        if time.monotonic() >= deadline:
            raise DeadlineExceeded from None
        raise
    watchdog = threading.Timer(max(deadline - time.monotonic(), 0.0), _shut, args=(conn,))
    watchdog.daemon = True
    watchdog.start()
    try:
        sent = {"Host": target.host_header, **headers}
        if target.auth is not None:
            sent["Authorization"] = "Basic " + base64.b64encode(target.auth.encode()).decode()
        conn.putrequest("POST", target.base_path + path, skip_host=True)
        for name, value in sent.items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        raw = resp.read(MAX_BODY)
        answer = (int(resp.status), {k.lower(): v for k, v in resp.getheaders()}, raw)
    except (OSError, http.client.HTTPException, ValueError):
        if time.monotonic() >= deadline:
            raise DeadlineExceeded from None
        raise
    finally:
        watchdog.cancel()
        conn.close()
    if time.monotonic() >= deadline:  # the watchdog cut a body short
        raise DeadlineExceeded
    return answer


def _connection(target: Target, addr: str, timeout: float) -> _PinnedHTTP:
    if target.scheme == "https":
        return _PinnedHTTPS(target.host, target.port, addr=addr, timeout=timeout)
    return _PinnedHTTP(target.host, target.port, addr=addr, timeout=timeout)


def _shut(conn: _PinnedHTTP) -> None:
    """Unblock whatever the call is waiting on (connect, recv): the deadline has passed."""
    # Not conn.sock: http.client drops that once a response says "close", while the
    # response still reads from the same socket.
    sock = conn.raw_sock
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed: nothing left to unblock
            sock.shutdown(socket.SHUT_RDWR)


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to a fixed, checked address; the host name is only the Host header."""

    def __init__(self, host: str, port: int, *, addr: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._addr = addr
        self.raw_sock: socket.socket | None = None

    def connect(self) -> None:
        self.raw_sock = socket.create_connection((self._addr, self.port), self.timeout)
        self.raw_sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = self.raw_sock


class _PinnedHTTPS(_PinnedHTTP):
    """`_PinnedHTTP` over TLS, the certificate checked against the host name as given."""

    default_port = 443

    def connect(self) -> None:
        super().connect()
        ctx = ssl.create_default_context()
        self.sock = ctx.wrap_socket(self.sock, server_hostname=self.host)
