"""A small JSON-over-HTTP client on http.client: kept-alive connections per thread, abortable requests."""

from __future__ import annotations

import email.utils
import http.client
import json
import socket
import ssl
import threading
import time
import urllib.parse
from typing import Any, Dict, Optional, Set

from ._version import SDK_NAME, __version__

# Raised when the peer closed a kept-alive connection before answering: the server never read the
# request (it closes only idle connections), so it is sent once more on a new connection.
_STALE_CONNECTION_ERRORS = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError,
                            ConnectionAbortedError)

# The server closes idle keep-alive connections after 3 s; drop ours sooner than that.
IDLE_CONNECTION_SECONDS = 2.0
# the milliseconds this client still waits for the answer, sent with every request
TIMEOUT_HEADER = "Blackboard-Timeout-Ms"


class RequestAborted(Exception):
    """The request was aborted from another thread (see :class:`AbortHandle`)."""


class Response:
    __slots__ = ("status", "headers", "body")

    def __init__(self, status: int, headers: http.client.HTTPMessage, body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None

    @property
    def problem(self) -> Dict[str, Any]:
        """The RFC 9457 problem of an error answer, or ``{}``."""
        try:
            value = self.json()
        except ValueError:
            return {"detail": self.body[:500].decode("utf-8", "replace")}
        return value if isinstance(value, dict) else {}

    @property
    def retry_after(self) -> Optional[float]:
        return parse_retry_after(self.headers.get("Retry-After"))


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class AbortHandle:
    """Lets another thread abort a request in flight by shutting its socket down.

    Once aborted, a handle stays aborted: every later request made with it raises RequestAborted.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sock: Optional[socket.socket] = None
        self._aborted = False

    @property
    def aborted(self) -> bool:
        return self._aborted

    def abort(self) -> bool:
        """Abort; True if a request was in flight (its answer, if any, is lost)."""
        with self._lock:
            self._aborted = True
            sock, self._sock = self._sock, None
        if sock is None:
            return False
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        return True

    def _attach(self, sock: socket.socket) -> None:
        with self._lock:
            if self._aborted:
                raise RequestAborted()
            self._sock = sock

    def _detach(self) -> None:
        with self._lock:
            self._sock = None


class _Connection:
    __slots__ = ("http", "last_used")

    def __init__(self, conn: http.client.HTTPConnection) -> None:
        self.http = conn
        self.last_used = time.monotonic()


class Transport:
    """Sends JSON requests to one server. Thread-safe: each thread keeps its own connection."""

    def __init__(self, base_url: str, *, timeout: float = 30.0, ssl_context: Optional[ssl.SSLContext] = None,
                 user_agent: Optional[str] = None) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self._timeout = timeout
        self._ssl_context = ssl_context
        self._user_agent = user_agent or f"{SDK_NAME}/{__version__}"
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: Set[_Connection] = set()

    @property
    def host(self) -> str:
        return self._host

    @property
    def port(self) -> int:
        return self._port

    def request(self, method: str, path: str, body: Any = None, *, token: Optional[str] = None,
                timeout: Optional[float] = None, abort: Optional[AbortHandle] = None) -> Response:
        """Send one request; raise OSError or http.client.HTTPException when no answer came."""
        payload = None if body is None else (body if isinstance(body, bytes) else encode_json(body))
        budget = timeout or self._timeout
        # how long this client waits for the answer: the server does no work for one nobody will read
        headers = {"Accept": "application/json", "User-Agent": self._user_agent,
                   TIMEOUT_HEADER: str(max(0, int(budget * 1000)))}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        url = self._prefix + path
        for attempt in (1, 2):
            conn, reused = self._checkout(budget)
            answered = False
            try:
                if abort is not None:
                    if conn.http.sock is None:
                        conn.http.connect()
                    abort._attach(conn.http.sock)
                conn.http.request(method, url, body=payload, headers=headers)
                reply = conn.http.getresponse()
                answered = True
                data = reply.read()
            except BaseException as e:
                self._discard(conn)
                if abort is not None and abort.aborted:
                    raise RequestAborted() from e
                if attempt == 1 and reused and not answered and isinstance(e, _STALE_CONNECTION_ERRORS):
                    continue
                raise
            finally:
                if abort is not None:
                    abort._detach()
            if reply.will_close:
                self._discard(conn)
            else:
                conn.last_used = time.monotonic()
            return Response(reply.status, reply.headers, data)
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Close every connection this transport opened (in any thread)."""
        with self._lock:
            conns, self._open = list(self._open), set()
        for conn in conns:
            conn.http.close()

    def _checkout(self, timeout: float) -> "tuple[_Connection, bool]":
        conn: Optional[_Connection] = getattr(self._local, "conn", None)
        if conn is not None and (conn.http.sock is None
                                 or time.monotonic() - conn.last_used > IDLE_CONNECTION_SECONDS):
            self._discard(conn)
            conn = None
        if conn is not None:
            conn.http.sock.settimeout(timeout)
            return conn, True
        if self._https:
            raw: http.client.HTTPConnection = http.client.HTTPSConnection(
                self._host, self._port, timeout=timeout, context=self._ssl_context)
        else:
            raw = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        conn = _Connection(raw)
        self._local.conn = conn
        with self._lock:
            self._open.add(conn)
        return conn, False

    def _discard(self, conn: _Connection) -> None:
        conn.http.close()
        if getattr(self._local, "conn", None) is conn:
            self._local.conn = None
        with self._lock:
            self._open.discard(conn)


def encode_json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def is_transient(status: int) -> bool:
    """Answers after which the same request may be sent again: nothing was done, or it may be redone."""
    return status in (408, 429) or status >= 500
