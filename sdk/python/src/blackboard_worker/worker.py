"""The worker: registration, the ping loop (the lease), the poll loop, the handlers, and shutdown.

Threads: the caller's (``run()`` waits there and turns signals into a stop), one ping thread, one poll
thread, ``concurrency`` handler threads (each runs a job and pushes its result; on a server with API 1.1
the push also claims the next job for the slot, POST /blackboard/job/next), and a supervisor thread that
runs the shutdown sequence once a stop is requested. Every state change goes through
``_cond``; the states and what each server answer does in each are documented in README.md.
"""

from __future__ import annotations

import enum
import http.client
import logging
import os
import signal
import socket
import ssl
import threading
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple

from ._backoff import Backoff
from ._dispatch import CANCELLED, FAILURE, SUCCESS, Outcome, run_handler
from ._http import AbortHandle, RequestAborted, Response, Transport, is_transient
from ._pool import HandlerPool
from ._version import SDK_NAME, __version__
from .blocks import FunctionBlock, Registry, as_function_block, default_registry
from .context import JobContext, JobType
from .errors import FatalConfigurationError, WorkerExpiredError

log = logging.getLogger(__name__)

DEFAULT_URL = "http://localhost:8080"
DEFAULT_TOKEN = "dev-worker-token"

_IO_ERRORS = (OSError, http.client.HTTPException)
# Added to the orphan grace before the release ping: the server releases claims POLLED for *longer* than it.
_RELEASE_MARGIN = 0.25
# Past an aborted poll's waitMs (counted from when it was sent): by then the server has ended it.
_POLL_END_MARGIN = 1.0
# A progress report is best effort and the handler waits for it: never long.
_PROGRESS_TIMEOUT = 5.0
_PROGRESS_PATH = "/blackboard/job/progress"


class WorkerState(str, enum.Enum):
    NEW = "NEW"
    REGISTERING = "REGISTERING"
    RUNNING = "RUNNING"
    QUIET = "QUIET"
    DRAINING = "DRAINING"
    STOPPED = "STOPPED"


class StopReason(str, enum.Enum):
    SIGNAL = "SIGNAL"          # SIGTERM or SIGINT
    TERMINATED = "TERMINATED"  # the operator's TERMINATE directive
    CLOSED = "CLOSED"          # stop() or close() called
    EXPIRED = "EXPIRED"        # deleted by the server, with on_expired="exit"
    FATAL = "FATAL"            # registration refused for good, or an internal error


class _Stopping(Exception):
    """A stop was requested while (re-)registering."""


class _Session:
    """One registration: the worker's id and token, and what the server told it."""

    def __init__(self, worker_id: str, token: str, reply: Mapping[str, Any]) -> None:
        self.worker_id = worker_id
        self.token = token
        self.ping_interval = _seconds(reply.get("pingIntervalMs"), 20.0)
        self.orphan_grace = _seconds(reply.get("orphanGraceMs"), 10.0)
        self.max_poll_wait = _seconds(reply.get("maxPollWaitMs"), 30.0)
        self.server_version = reply.get("serverVersion")
        self.api_version = str(reply.get("apiVersion") or "1")
        # API 1.1 added POST /blackboard/job/next; an older server would answer its path 404 (as for a deleted worker)
        self.has_next = _api_at_least(self.api_version, (1, 1))
        self.has_progress = True  # False once a replica refused POST /blackboard/job/progress as an unknown path
        self.blocks_by_id: Dict[str, FunctionBlock] = {}


class _HeldJob:
    """A job from the moment the answer that claimed it (a poll's or a /next's) is read until its push
    is answered for good."""

    __slots__ = ("job_id", "session", "block", "ctx")

    def __init__(self, job_id: str, session: _Session, block: Optional[FunctionBlock], ctx: JobContext) -> None:
        self.job_id = job_id
        self.session = session
        self.block = block
        self.ctx = ctx


class _PushAnswer(NamedTuple):
    """What the server said of one push: the single push's answer, or its item in a /next answer."""

    status: int
    problem: Mapping[str, Any]
    jobs: List[Dict[str, Any]]  # the next jobs a /next answer claimed for the slot
    whole: bool                 # the status is the whole request's (not an item's of a /next answer 200)


class _LoopHealth:
    """Logs a loop's trouble on transitions (first failure, every 20th, recovery), not on every retry."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.failures = 0

    def failed(self, reason: str) -> None:
        self.failures += 1
        if self.failures == 1 or self.failures % 20 == 0:
            log.warning("%s failed (%d in a row): %s; retrying with backoff", self.what, self.failures, reason)
        else:
            log.debug("%s failed again: %s", self.what, reason)

    def ok(self) -> None:
        if self.failures:
            log.info("%s works again after %d failures", self.what, self.failures)
            self.failures = 0


class Worker:
    """A Blackboard worker: serves function blocks until stopped.

    ``Worker.from_env(...).run()`` is the usual entry point; ``start()`` / ``close()`` (or ``with``)
    run it in the background without signal handling. Times are in seconds.
    """

    def __init__(self, *, base_url: str = DEFAULT_URL, token: str = DEFAULT_TOKEN, name: Optional[str] = None,
                 blocks: Optional[Iterable[Any]] = None, labels: Optional[Mapping[str, str]] = None,
                 concurrency: int = 1, drain_timeout: float = 20.0, cancel_grace: float = 5.0,
                 poll_wait: float = 10.0, ping_interval: Optional[float] = None, on_expired: str = "reregister",
                 hostname: Optional[str] = None, ip: Optional[str] = None, version: Optional[str] = None,
                 handle_signals: bool = True, ssl_context: Optional[ssl.SSLContext] = None,
                 request_timeout: float = 30.0, retry_base_delay: float = 0.5, retry_max_delay: float = 30.0) -> None:
        if not 1 <= concurrency <= 10000:
            raise ValueError("concurrency must be between 1 and 10000")
        if on_expired not in ("reregister", "exit"):
            raise ValueError("on_expired must be 'reregister' or 'exit'")
        if poll_wait < 0 or drain_timeout < 0 or cancel_grace < 0:
            raise ValueError("poll_wait, drain_timeout and cancel_grace must not be negative")
        if ping_interval is not None and ping_interval <= 0:
            raise ValueError("ping_interval must be positive")
        self.base_url = base_url
        self.token = token
        self.hostname = hostname or socket.gethostname()
        self.name = name or f"python-worker@{self.hostname}"
        self.labels = dict(labels or {})
        self.concurrency = concurrency
        self.drain_timeout = drain_timeout
        self.cancel_grace = cancel_grace
        self.poll_wait = poll_wait
        self.ping_interval = ping_interval
        self.on_expired = on_expired
        self.ip = ip
        self.version = version
        self.handle_signals = handle_signals
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.request_timeout = request_timeout
        self._blocks_arg = blocks
        self._transport = Transport(base_url, timeout=request_timeout, ssl_context=ssl_context)

        self._cond = threading.Condition()
        self._session_lock = threading.Lock()
        self._state = WorkerState.NEW
        self._session: Optional[_Session] = None
        self._held: Dict[str, _HeldJob] = {}
        self._blocks: List[FunctionBlock] = []
        self._stop_event = threading.Event()
        self._stop_polling = threading.Event()
        self._ping_stop = threading.Event()
        self._done = threading.Event()
        self._stop_reason: Optional[StopReason] = None
        self._forced = False
        self._signals = 0  # written by the signal handler only; read by run()
        self._fatal: Optional[BaseException] = None
        self._poll_abort = AbortHandle()
        self._wait_step: Optional[Callable[[], None]] = None
        self._send_sdk_fields = True  # False once a server said it does not know them
        # Until when a poll whose answer we did not get may still claim jobs for us (monotonic time).
        self._uncertain_until: Optional[float] = None
        self._poll_parked_until = 0.0
        self._threads: List[threading.Thread] = []
        self._pool: Optional[HandlerPool] = None
        self._stats_lock = threading.Lock()
        self._stats: Dict[str, int] = {}

    # ------------------------------------------------------------------ configuration

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None, **defaults: Any) -> "Worker":
        """A worker configured by ``BLACKBOARD_*`` environment variables; keyword arguments are the
        defaults they override (and everything the environment cannot say, such as ``blocks``)."""
        env = os.environ if environ is None else environ
        kwargs: Dict[str, Any] = dict(defaults)

        def text(var: str, key: str) -> None:
            if env.get(var):
                kwargs[key] = env[var]

        def number(var: str, key: str, scale: float = 1.0, kind: Callable[[str], Any] = int) -> None:
            if env.get(var):
                try:
                    value = kind(env[var])
                except ValueError:
                    raise ValueError(f"{var}={env[var]!r} is not a number") from None
                kwargs[key] = value * scale if scale != 1.0 else value

        text("BLACKBOARD_URL", "base_url")
        text("BLACKBOARD_WORKER_TOKEN", "token")
        text("BLACKBOARD_WORKER_NAME", "name")
        text("BLACKBOARD_WORKER_VERSION", "version")
        text("BLACKBOARD_ON_EXPIRED", "on_expired")
        number("BLACKBOARD_CONCURRENCY", "concurrency")
        number("BLACKBOARD_DRAIN_TIMEOUT_MS", "drain_timeout", 0.001, float)
        number("BLACKBOARD_CANCEL_GRACE_MS", "cancel_grace", 0.001, float)
        number("BLACKBOARD_POLL_WAIT_MS", "poll_wait", 0.001, float)
        number("BLACKBOARD_PING_INTERVAL_MS", "ping_interval", 0.001, float)
        if env.get("BLACKBOARD_WORKER_LABELS"):
            kwargs["labels"] = {**(kwargs.get("labels") or {}), **parse_labels(env["BLACKBOARD_WORKER_LABELS"])}
        if env.get("BLACKBOARD_CA_FILE"):
            kwargs["ssl_context"] = ssl.create_default_context(cafile=env["BLACKBOARD_CA_FILE"])
        return cls(**kwargs)

    # ------------------------------------------------------------------ public face

    @property
    def state(self) -> WorkerState:
        return self._state

    @property
    def worker_id(self) -> Optional[str]:
        session = self._session
        return session.worker_id if session else None

    @property
    def stop_reason(self) -> Optional[StopReason]:
        return self._stop_reason

    @property
    def stats(self) -> Dict[str, int]:
        """Counters: polls, jobs_claimed (next_jobs of them from /next answers), jobs_succeeded, jobs_failed,
        jobs_cancelled, pushes, push_retries, push_conflicts, result_rejected, pings, ping_errors, poll_errors,
        reregistrations, progress_reports (sent), progress_recorded, progress_conflicts (claims found lost)..."""
        with self._stats_lock:
            return dict(self._stats)

    @property
    def held_jobs(self) -> List[str]:
        with self._cond:
            return list(self._held)

    def run(self) -> int:
        """Serve until SIGTERM/SIGINT (a second one forces), a TERMINATE directive or stop().

        Returns the process exit code: 0 after a graceful stop, 1 after a forced one. Raises
        FatalConfigurationError when the server refuses the worker for good, and WorkerExpiredError
        when the worker was deleted and ``on_expired="exit"``.
        """
        previous: Dict[int, Any] = {}
        if self.handle_signals:
            if threading.current_thread() is not threading.main_thread():
                raise RuntimeError("run() handles SIGTERM and SIGINT, which only the main thread can: call it "
                                   "there, or pass handle_signals=False")
            for sig in (signal.SIGTERM, signal.SIGINT):
                previous[sig] = signal.signal(sig, self._on_signal)
        try:
            self._start(wait_step=self._check_signals)
            handled = self._signals if self._stop_event.is_set() else 0  # one seen while registering
            while not self._done.wait(0.1):
                if self._signals > handled:
                    handled = self._signals
                    self._signal_received(handled)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return self._outcome()

    def start(self) -> "Worker":
        """Register and start serving in background threads; returns once registered.

        Raises FatalConfigurationError when the server refuses the worker for good.
        """
        self._start(wait_step=None)
        return self

    def stop(self, reason: StopReason = StopReason.CLOSED) -> None:
        """Ask for a graceful stop (non-blocking); ``wait()`` or ``close()`` waits for it."""
        with self._cond:
            if self._stop_reason is None:
                self._stop_reason = reason
            self._cond.notify_all()
        self._stop_event.set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until the worker has stopped; False on timeout."""
        return self._done.wait(timeout)

    def close(self, timeout: Optional[float] = None) -> None:
        """Stop gracefully and wait for it (drain, release ping, unregister)."""
        if self._state is WorkerState.NEW:
            self._transport.close()
            return
        self.stop()
        self._done.wait(timeout)

    def force(self) -> None:
        """Stop now: cancel every job, skip the drain and the release ping, unregister."""
        with self._cond:
            self._forced = True
            for held in self._held.values():
                held.ctx.cancelled.set()
            self._cond.notify_all()
        self.stop()
        if self._poll_abort.abort():
            self._mark_uncertain_poll()

    def __enter__(self) -> "Worker":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ start and stop

    def _start(self, wait_step: Optional[Callable[[], None]]) -> None:
        with self._cond:
            if self._state is not WorkerState.NEW:
                raise RuntimeError("a Worker runs once; make a new one")
            self._blocks = self._resolve_blocks()
            self._state = WorkerState.REGISTERING
        self._wait_step = wait_step  # signals reach run() only once it waits; registration checks them
        try:
            with self._session_lock:
                session = self._register()
        except _Stopping:
            self._finish()
            return
        except BaseException:
            self._finish()
            raise
        finally:
            self._wait_step = None
        with self._cond:
            self._session = session
            if self._state is WorkerState.REGISTERING:
                self._state = WorkerState.RUNNING
        self._pool = HandlerPool(self.concurrency)
        for target, name in ((self._ping_loop, "blackboard-ping"), (self._poll_loop, "blackboard-poll"),
                             (self._supervise, "blackboard-supervisor")):
            thread = threading.Thread(target=self._guard(target), name=name, daemon=True)
            self._threads.append(thread)
            thread.start()
        log.info("worker %s (%s) serves %s with %d slot(s) on %s", session.worker_id, self.name,
                 ", ".join(f"{b.name}@{b.version}" for b in self._blocks), self.concurrency, self.base_url)

    def _resolve_blocks(self) -> List[FunctionBlock]:
        source: Iterable[Any] = default_registry if self._blocks_arg is None else self._blocks_arg
        registry = source if isinstance(source, Registry) else Registry(source)
        blocks = list(registry)
        if not blocks:
            raise ValueError("no function blocks to serve: decorate some with @function_block, or pass blocks=")
        return blocks

    def _finish(self) -> None:
        with self._cond:
            self._state = WorkerState.STOPPED
            self._cond.notify_all()
        self._transport.close()
        self._done.set()

    def _outcome(self) -> int:
        if self._fatal is not None:
            raise self._fatal
        if self._stop_reason is StopReason.EXPIRED:
            raise WorkerExpiredError("the server no longer knows this worker (deleted); on_expired='exit'")
        return 1 if self._forced else 0

    def _on_signal(self, signum: int, frame: Any) -> None:
        # Only a counter: a handler that took a lock could deadlock the main thread it interrupts.
        self._signals += 1

    def _check_signals(self) -> None:
        if self._signals and not self._stop_event.is_set():
            self._signal_received(self._signals)

    def _signal_received(self, count: int) -> None:
        if count == 1:
            log.info("signal received: stopping gracefully (a second signal forces)")
            self.stop(StopReason.SIGNAL)
        else:
            log.warning("second signal: forcing the stop")
            self.force()

    def _supervise(self) -> None:
        try:
            self._stop_event.wait()
            self._shutdown()
        finally:
            self._finish()

    def _shutdown(self) -> None:
        """Stop polling, abort the parked poll, drain while pinging, release ping, unregister.

        The release ping lists only the jobs really held, so that the server puts the claims whose answer
        never reached us back to PENDING without spending an attempt. It must come an orphan grace after
        the last such claim: after the abort, and after the aborted poll's waitMs, because the server keeps
        serving a parked poll whose client has gone. Unregistering before it would fail those jobs. When
        the server has no more jobs as ours than we hold, there is no lost claim and no grace to wait.
        """
        with self._cond:
            self._state = WorkerState.DRAINING
            self._cond.notify_all()
            held = len(self._held)
        log.info("stopping (%s): no more polls; draining %d job(s), up to %.1f s",
                 (self._stop_reason or StopReason.CLOSED).value, held, self.drain_timeout)
        self._stop_polling.set()
        if self._poll_abort.abort():
            self._mark_uncertain_poll()
        if not self._wait_until(lambda: not self._held, self.drain_timeout) and not self._forced:
            left = self._cancel_all("the drain timeout ran out")
            log.warning("%d job(s) still running after the drain timeout: cancelled, waiting %.1f s more",
                        left, self.cancel_grace)
            self._wait_until(lambda: not self._held, self.cancel_grace)
        session = self._session
        if session is not None and not self._forced and self._uncertain_until is not None:
            self._wait_for_lost_claims(session, self._uncertain_until)
        self._ping_stop.set()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(5.0)
        if session is not None:
            if not self._forced:
                self._release_ping(session)
            self._unregister(session)
        if self._pool is not None:
            self._pool.shutdown()
        log.info("stopped: %s", self.stats)

    def _wait_for_lost_claims(self, session: _Session, until: float) -> None:
        """Wait until the release ping can free every claim whose answer we lost.

        First until no lost poll can claim any more; then, if the server has no more jobs as ours than
        we hold, there is no lost claim and nothing more to wait for; otherwise an orphan grace more.
        """
        self._wait_until(lambda: False, until + _POLL_END_MARGIN - time.monotonic())
        if self._forced:
            return
        held_there = self._server_held_jobs(session)
        held_here = len(self._active_ids(session))
        if held_there is not None and held_there <= held_here:
            return
        log.info("the server has %s job(s) as ours, %d here: waiting the orphan grace for the release ping",
                 held_there if held_there is not None else "unknown", held_here)
        self._wait_until(lambda: False, until + session.orphan_grace + _RELEASE_MARGIN - time.monotonic())

    def _server_held_jobs(self, session: _Session) -> Optional[int]:
        try:
            reply = self._transport.request("GET", f"/workers/{session.worker_id}", token=session.token)
        except _IO_ERRORS:
            return None
        held = (reply.json() or {}).get("heldJobs") if reply.status == 200 else None
        return held if isinstance(held, int) else None

    def _release_ping(self, session: _Session) -> None:
        """The last ping lists only the jobs really held: the server puts back lost claims unspent."""
        active = self._active_ids(session)
        reply = self._final_call("release ping", "POST", f"/workers/{session.worker_id}/ping",
                                 {"activeJobIds": active}, session)
        if reply is not None and reply.status == 200:
            log.debug("release ping sent with %d held job(s)", len(active))

    def _unregister(self, session: _Session) -> None:
        reply = self._final_call("unregister", "POST", f"/workers/{session.worker_id}/unregister", None, session)
        if reply is not None and reply.status in (200, 404):
            log.info("unregistered worker %s", session.worker_id)

    def _final_call(self, what: str, method: str, path: str, body: Any, session: _Session) -> Optional[Response]:
        """A shutdown call: retried briefly on transient errors (a few seconds at most), never fatal."""
        backoff = Backoff(self.retry_base_delay, min(self.retry_max_delay, 2.0))
        deadline = time.monotonic() + (2.0 if self._forced else 10.0)
        while True:
            try:
                reply = self._transport.request(method, path, body, token=session.token)
                if not is_transient(reply.status):
                    if reply.status not in (200, 404):
                        log.warning("%s answered %d: %s", what, reply.status, reply.problem.get("detail"))
                    return reply
                delay = backoff.next_delay(reply.retry_after)
            except _IO_ERRORS as e:
                delay = backoff.next_delay()
                log.debug("%s failed: %s", what, e)
            if time.monotonic() + delay > deadline:
                log.warning("%s gave up", what)
                return None
            time.sleep(delay)

    def _wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait (on _cond) until predicate() holds; False on timeout or when forced."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if self._forced or left <= 0:
                    return False
                self._cond.wait(min(left, 0.1))
            return True

    def _cancel_all(self, why: str) -> int:
        with self._cond:
            for held in self._held.values():
                if not held.ctx.cancelled.is_set():
                    held.ctx.logger.info("cancelled: %s", why)
                    held.ctx.cancelled.set()
            return len(self._held)

    def _guard(self, loop: Callable[[], None]) -> Callable[[], None]:
        def guarded() -> None:
            try:
                loop()
            except BaseException as e:  # a dead loop must not leave a half-alive worker behind
                log.critical("internal error in %s: stopping the worker", threading.current_thread().name,
                             exc_info=True)
                self._fatal = self._fatal or e
                self.stop(StopReason.FATAL)
        return guarded

    # ------------------------------------------------------------------ registration

    def _register(self) -> _Session:
        """Register the worker and its function blocks (caller holds _session_lock); retries until done."""
        backoff = Backoff(self.retry_base_delay, self.retry_max_delay)
        health = _LoopHealth("registration")
        while True:
            self._check_stop()
            try:
                reply = self._transport.request("POST", "/workers/register", self._registration(),
                                                token=self.token)
            except _IO_ERRORS as e:
                health.failed(f"{type(e).__name__}: {e}")
                self._pause(backoff.next_delay())
                continue
            if reply.status in (200, 201):
                health.ok()
                data = reply.json() or {}
                session = _Session(str(data["id"]), str(data["token"]), data)
                if self._register_blocks(session, backoff):
                    log.debug("registered as %s (server %s, API %s)", session.worker_id, session.server_version,
                              session.api_version)
                    return session
                continue
            problem = reply.problem
            if reply.status == 400 and self._send_sdk_fields and _names_sdk_field(problem):
                log.info("this server does not take sdkName/sdkVersion yet: registering without them")
                self._send_sdk_fields = False
                continue
            if reply.status in (401, 403):
                raise FatalConfigurationError(
                    f"registration refused ({reply.status} {problem.get('detail') or problem.get('title') or ''}): "
                    f"check the enrolment token (BLACKBOARD_WORKER_TOKEN) for {self.base_url}")
            if is_transient(reply.status):
                health.failed(f"{reply.status} {problem.get('type', '')}")
                self._pause(backoff.next_delay(reply.retry_after))
                continue
            raise FatalConfigurationError(f"registration refused ({reply.status}): {problem.get('detail') or problem}")

    def _register_blocks(self, session: _Session, backoff: Backoff) -> bool:
        """Declare the function blocks; False when the new worker vanished meanwhile (register again)."""
        body = {"workerId": session.worker_id, "functionBlocks": [b.spec() for b in self._blocks]}
        by_key = {b.key: b for b in self._blocks}
        while True:
            self._check_stop()
            try:
                reply = self._transport.request("POST", "/function-blocks/register", body, token=session.token)
            except _IO_ERRORS as e:
                log.warning("function block registration failed: %s; retrying", e)
                self._pause(backoff.next_delay())
                continue
            if reply.status == 200:
                backoff.reset()
                for entry in reply.json() or []:
                    block = by_key.get((entry.get("name"), entry.get("version")))
                    if block is not None:
                        session.blocks_by_id[str(entry["id"])] = block
                return True
            if reply.status in (401, 404):
                return False
            if is_transient(reply.status):
                self._pause(backoff.next_delay(reply.retry_after))
                continue
            problem = reply.problem
            hint = " (publish a new version instead of changing a block)" if reply.status == 409 else ""
            raise FatalConfigurationError(
                f"function block registration refused ({reply.status}): {problem.get('detail') or problem}{hint}")

    def _registration(self) -> Dict[str, Any]:
        body: Dict[str, Any] = {"name": self.name, "hostname": self.hostname, "pid": os.getpid(),
                                "labels": self.labels, "concurrency": self.concurrency}
        ip = self.ip or _local_ip(self._transport.host, self._transport.port)
        if ip:
            body["ip"] = ip
        if self.version:
            body["version"] = self.version
        if self._send_sdk_fields:
            body["sdkName"] = SDK_NAME
            body["sdkVersion"] = __version__
        return body

    def _check_stop(self) -> None:
        if self._wait_step is not None:
            self._wait_step()
        if self._stop_event.is_set():
            raise _Stopping()

    def _pause(self, seconds: float) -> None:
        """Sleep between registration retries, ending early (raising _Stopping) on a stop."""
        end = time.monotonic() + seconds
        while True:
            self._check_stop()
            left = end - time.monotonic()
            if left <= 0:
                return
            self._stop_event.wait(min(left, 0.1))

    def _expired(self, session: _Session, reply: Response) -> None:
        """The server no longer knows ``session`` (404, or 401 with its token): register again, or stop."""
        with self._session_lock:
            if self._session is not session:
                return  # another thread saw it first
            log.warning("the server no longer knows worker %s (%d %s): its jobs are cancelled here",
                        session.worker_id, reply.status, reply.problem.get("type", ""))
            self._count("expirations")
            with self._cond:
                self._session = None
                for held in self._held.values():
                    if held.session is session:
                        held.ctx.cancelled.set()
                self._cond.notify_all()
            if self.on_expired == "exit":
                self.stop(StopReason.EXPIRED)
                return
            try:
                new = self._register()
            except _Stopping:
                return
            except FatalConfigurationError as e:
                log.error("%s", e)
                self._fatal = e
                self.stop(StopReason.FATAL)
                return
            with self._cond:
                self._session = new
                self._cond.notify_all()
            self._count("reregistrations")
            log.info("registered again as worker %s", new.worker_id)

    # ------------------------------------------------------------------ ping loop (the lease)

    def _ping_loop(self) -> None:
        backoff = Backoff(self.retry_base_delay, self.retry_max_delay)
        health = _LoopHealth("ping")
        while not self._ping_stop.is_set():
            session = self._session
            if session is None:
                self._ping_stop.wait(0.05)
                continue
            interval = self.ping_interval or session.ping_interval
            try:
                reply = self._transport.request("POST", f"/workers/{session.worker_id}/ping",
                                                {"activeJobIds": self._active_ids(session)}, token=session.token)
            except _IO_ERRORS as e:
                self._count("ping_errors")
                health.failed(f"{type(e).__name__}: {e}")
                self._ping_stop.wait(min(backoff.next_delay(), interval))
                continue
            self._count("pings")
            if reply.status == 200:
                backoff.reset()
                health.ok()
                self._apply_ping(session, reply.json() or {})
                self._ping_stop.wait(self.ping_interval or session.ping_interval)
            elif reply.status in (401, 404):
                self._expired(session, reply)
            else:
                self._count("ping_errors")
                health.failed(f"{reply.status} {reply.problem.get('type', '')}")
                delay = backoff.next_delay(reply.retry_after)
                self._ping_stop.wait(delay if reply.retry_after is not None else min(delay, interval))

    def _active_ids(self, session: _Session) -> List[str]:
        with self._cond:
            return [h.job_id for h in self._held.values() if h.session is session]

    def _apply_ping(self, session: _Session, reply: Mapping[str, Any]) -> None:
        interval_ms = reply.get("pingIntervalMs")
        if isinstance(interval_ms, (int, float)) and interval_ms > 0:
            session.ping_interval = interval_ms / 1000.0
        directive = reply.get("directive")
        with self._cond:
            for job_id in reply.get("cancelJobIds") or []:
                held = self._held.get(str(job_id))
                if held is not None and held.session is session and not held.ctx.cancelled.is_set():
                    held.ctx.logger.info("cancelled by the server")
                    held.ctx.cancelled.set()
                    self._count("cancels_received")
            if directive == "QUIET" and self._state is WorkerState.RUNNING:
                log.info("directive QUIET: no more polls until RUN")
                self._state = WorkerState.QUIET
            elif directive == "RUN" and self._state is WorkerState.QUIET:
                log.info("directive RUN: polling again")
                self._state = WorkerState.RUNNING
                self._cond.notify_all()
        if directive == "TERMINATE" and not self._stop_event.is_set():
            log.info("directive TERMINATE: draining and stopping")
            self.stop(StopReason.TERMINATED)

    # ------------------------------------------------------------------ poll loop

    def _poll_loop(self) -> None:
        backoff = Backoff(self.retry_base_delay, self.retry_max_delay)
        health = _LoopHealth("poll")
        while True:
            with self._cond:
                while not self._stop_polling.is_set() and (
                        self._state is not WorkerState.RUNNING or self._session is None
                        or len(self._held) >= self.concurrency):
                    self._cond.wait(0.5)
                if self._stop_polling.is_set():
                    return
                session = self._session
                free = self.concurrency - len(self._held)
            assert session is not None
            wait_ms = int(min(self.poll_wait, session.max_poll_wait) * 1000)
            body = {"workerId": session.worker_id, "limit": min(free, 100), "waitMs": wait_ms}
            self._count("polls")
            self._poll_parked_until = time.monotonic() + wait_ms / 1000.0
            try:
                reply = self._transport.request("POST", "/blackboard/job", body, token=session.token,
                                                timeout=wait_ms / 1000.0 + 10.0, abort=self._poll_abort)
            except RequestAborted:
                return
            except _IO_ERRORS as e:
                self._mark_uncertain_poll()  # it may have claimed jobs whose answer we lost
                self._count("poll_errors")
                health.failed(f"{type(e).__name__}: {e}")
                self._stop_polling.wait(backoff.next_delay())
                continue
            if reply.status == 200:
                backoff.reset()
                health.ok()
                self._accept(session, reply.json() or [])
            elif reply.status in (401, 404):
                self._expired(session, reply)
            else:
                if reply.status >= 500 and reply.status != 503:
                    self._mark_uncertain_poll()
                self._count("poll_errors")
                if reply.status == 429:
                    self._count("poll_throttled")
                    log.debug("poll answered 429: again after %s s", reply.retry_after)
                else:
                    health.failed(f"{reply.status} {reply.problem.get('type', '')}")
                self._stop_polling.wait(backoff.next_delay(reply.retry_after))

    def _mark_uncertain_poll(self) -> None:
        """A poll's answer was lost (aborted, I/O error, 5xx): it may have claimed jobs that never reached us.

        The server keeps a parked poll after its client has gone, and it may still claim a job until its
        waitMs runs out; the release ping must come an orphan grace after that (see _shutdown).
        """
        self._mark_lost_claims(max(time.monotonic(), self._poll_parked_until))

    def _mark_lost_claims(self, until: float) -> None:
        """Claims whose answer never reached us may have been made until ``until`` (see _shutdown)."""
        with self._cond:
            self._uncertain_until = max(self._uncertain_until or 0.0, until)

    def _accept(self, session: _Session, jobs: List[Dict[str, Any]]) -> None:
        self._dispatch(session, jobs)

    def _dispatch(self, session: _Session, jobs: List[Dict[str, Any]], replacing: Optional[_HeldJob] = None) -> int:
        """Hold and start the jobs an answer claimed: a poll's, or a push's on /next, whose jobs take the
        slot of the job it pushed (``replacing``, released in the same step, so the poll loop never sees
        that slot free in between).

        Each job is held from the moment the answer is read (the pings list it, a cancel reaches it) and
        runs on the handler pool. Never more than ``concurrency`` are held: a poll asks only for free slots
        and a /next only for the slot it frees, so no job is ever left over; should one be (a /next whose
        push must be sent again, answered with a job by a server that counts a slot free that we still
        hold), it is not run but left to the pings, which release it after the orphan grace as a lost claim.
        Returns how many jobs it started.
        """
        new = [self._held_job(session, job) for job in jobs]
        with self._cond:
            if replacing is not None and self._held.get(replacing.job_id) is replacing:
                del self._held[replacing.job_id]
            room = max(0, self.concurrency - len(self._held))
            kept, left = new[:room], new[room:]
            for held in kept:
                if self._forced or self._session is not session:
                    held.ctx.cancelled.set()  # claimed for a stop or an expired session: not run, not pushed
                self._held[held.job_id] = held
            self._cond.notify_all()
        if left:
            self._count("claims_over_concurrency", len(left))
            self._mark_lost_claims(time.monotonic())
            log.warning("%d job(s) claimed past the %d slot(s), not run: the pings release them (%s)", len(left),
                        self.concurrency, ", ".join(h.job_id for h in left))
        for held in kept:
            self._count("jobs_claimed")
            assert self._pool is not None
            self._pool.submit(lambda h=held: self._run_job(h))
        return len(kept)

    def _held_job(self, session: _Session, job: Dict[str, Any]) -> _HeldJob:
        job_id = str(job["id"])
        block = session.blocks_by_id.get(str(job.get("functionBlockId")))
        try:
            job_type = JobType(job.get("type"))
        except ValueError:
            job_type, block = JobType.EXECUTE, None  # pushed as a FAILURE: no handler for it here

        def report(percent: int, message: Optional[str]) -> bool:
            return self._report_progress(session, ctx, percent, message)

        ctx = JobContext(job_id=job_id, attempt=int(job.get("attempt") or 1), type=job_type,
                         function_block=block.name if block else "unknown",
                         version=block.version if block else "?",
                         function_block_id=job.get("functionBlockId"), params=job.get("payload"),
                         correlation_id=job.get("correlationId"), deadline=job.get("deadline"),
                         worker_id=session.worker_id, job=job, progress_reporter=report)
        return _HeldJob(job_id, session, block, ctx)

    # ------------------------------------------------------------------ one job

    def _run_job(self, held: _HeldJob) -> None:
        ctx = held.ctx
        try:
            if ctx.cancelled.is_set():
                return
            ctx.logger.debug("started")
            if held.block is None:
                outcome = Outcome(FAILURE, error={"type": "UnknownFunctionBlock",
                                                  "message": f"no handler here for function block {ctx.function_block_id}, "
                                                             f"job type {ctx.job.get('type')}"})
            else:
                outcome = run_handler(held.block, ctx)
            if outcome.status == CANCELLED:
                self._count("jobs_cancelled")
                ctx.logger.info("ended cancelled: nothing is pushed")
                return
            self._count("jobs_succeeded" if outcome.status == SUCCESS else "jobs_failed")
            self._push(held, outcome.push_body(ctx.job_id, held.session.worker_id, ctx.attempt))
        finally:
            with self._cond:
                if self._held.get(held.job_id) is held:  # not if /next handed the slot on (maybe to a new attempt)
                    del self._held[held.job_id]
                self._cond.notify_all()

    def _report_progress(self, session: _Session, ctx: JobContext, percent: int, message: Optional[str]) -> bool:
        """POST /blackboard/job/progress for a held job (the context throttles); True when the server recorded it.

        Never raises and never retries: progress is best effort, and the pings keep the lease anyway. A 409, or
        a 404 or 401 saying the job or the worker is gone, means the claim is lost: the job is cancelled here
        as a ping's cancelJobIds would cancel it (a forgotten worker is then found out by its next ping, which
        registers again). A replica that does not know the path gets no more reports from this registration.
        """
        if self._session is not session or not session.has_progress:
            return False
        body: Dict[str, Any] = {"jobId": ctx.job_id, "workerId": session.worker_id, "attempt": ctx.attempt,
                                "percent": percent}
        if message is not None:
            body["message"] = message
        self._count("progress_reports")
        try:
            reply = self._transport.request("POST", _PROGRESS_PATH, body, token=session.token,
                                            timeout=min(self.request_timeout, _PROGRESS_TIMEOUT))
        except _IO_ERRORS as e:
            self._count("progress_errors")
            ctx.logger.debug("progress not reported (%s: %s)", type(e).__name__, e)
            return False
        return self._progress_answered(session, ctx, reply)

    def _progress_answered(self, session: _Session, ctx: JobContext, reply: Response) -> bool:
        status, kind = reply.status, reply.problem.get("type")
        if status == 200:
            try:
                answer = reply.json()
            except ValueError:
                answer = None
            recorded = isinstance(answer, dict) and answer.get("recorded") is True
            if recorded:
                self._count("progress_recorded")
            return recorded
        if status == 409 or (status == 404 and kind == "/problems/job-not-found") or status == 401 or (
                status == 404 and kind == "/problems/worker-not-found"):
            self._count("progress_conflicts")
            if not ctx.cancelled.is_set():
                ctx.logger.info("progress refused (%d %s %s): the claim is no longer ours, the job is cancelled",
                                status, kind or "", reply.problem.get("jobStatus") or "")
                ctx.cancelled.set()
        elif _unknown_path(reply):
            session.has_progress = False
            log.info("this server does not take progress reports (%d on %s): not sending them", status,
                     _PROGRESS_PATH)
        else:
            self._count("progress_errors")
            ctx.logger.log(logging.DEBUG if is_transient(status) else logging.WARNING, "progress not recorded: %d %s",
                           status, reply.problem.get("detail") or kind or "")
        return False

    def _push(self, held: _HeldJob, body: Dict[str, Any]) -> None:
        """Push until 200, 409 or a refusal; the same body again on I/O errors and 5xx.

        On a server with POST /blackboard/job/next (API 1.1 or newer) the push goes there, and asks for
        the slot's next job (limit 1) while the worker would poll: the jobs in the answer take over this
        job's slot once its push is done for good. A push sent again asks for none (limit 0): the answer
        it repeats may have claimed a job already, which the pings release after the orphan grace, as
        for a lost poll answer. An older server gets POST /blackboard/job/result.
        """
        ctx, session = held.ctx, held.session
        backoff = Backoff(self.retry_base_delay, self.retry_max_delay)
        may_claim = True
        sent = False  # a push whose answer was lost may have landed: a ping then says the job is not ours
        while True:
            if (ctx.cancelled.is_set() and not sent) or self._session is not session:
                ctx.logger.info("not pushed: the job was cancelled or the worker registered again")
                return
            limit = 1 if may_claim and session.has_next and self._would_poll() else 0
            try:
                reply, answer = self._send_push(session, body, limit)
            except _IO_ERRORS as e:
                if limit:
                    self._mark_lost_claims(time.monotonic())  # it may have claimed a job whose answer we lost
                may_claim = False
                sent = True  # sent again whatever a ping says meanwhile: the server answers it as it landed
                self._count("push_retries")
                ctx.logger.warning("push failed (%s: %s): sending it again", type(e).__name__, e)
                time.sleep(backoff.next_delay())
                continue
            status, problem, done = answer.status, answer.problem, True
            if status == 200:
                self._count("pushes")
                ctx.logger.debug("pushed %s", body["status"])
            elif status == 409:
                self._count("push_conflicts")
                ctx.logger.warning("push refused, the claim is no longer ours (%s: job %s %s %s): dropped",
                                   problem.get("type"), problem.get("jobStatus"), problem.get("outcome") or "",
                                   problem.get("failureReason") or "")
            elif status in (401, 404) and answer.whole:  # an item's 404 is its job's: the worker is known
                self._expired(session, reply)
            elif is_transient(status):
                done = False
                if limit and answer.whole and status not in (429, 503):
                    self._mark_lost_claims(time.monotonic())  # a 5xx may come after the claim was made
                may_claim = False
                self._count("push_retries")
                ctx.logger.info("push answered %d: sending it again", status)
            elif status in (400, 413, 422) and body["status"] == SUCCESS:
                done = False
                self._count("result_rejected")
                body = self._rejected(body, status, problem)
                ctx.logger.warning("result refused (%d %s): pushing a FAILURE instead", status,
                                   problem.get("detail"))
            else:
                self._count("push_refused")
                ctx.logger.error("push refused (%d %s): dropped", status, problem.get("detail") or problem)
            if answer.jobs:
                self._count("next_jobs", self._dispatch(session, answer.jobs, replacing=held if done else None))
            if done:
                return  # the slot is released (if no job took it over): the poll loop asks for it
            if is_transient(status):
                ctx.cancelled.wait(backoff.next_delay(reply.retry_after if answer.whole else None))

    def _send_push(self, session: _Session, body: Dict[str, Any], limit: int) -> Tuple[Response, _PushAnswer]:
        """One push: POST /blackboard/job/next with ``limit`` on an API 1.1 server, else /blackboard/job/result."""
        if not session.has_next:
            reply = self._transport.request("POST", "/blackboard/job/result", body, token=session.token)
            return reply, _PushAnswer(reply.status, reply.problem, [], True)
        reply = self._transport.request("POST", "/blackboard/job/next",
                                        {"workerId": session.worker_id, "results": [body], "limit": limit},
                                        token=session.token)
        if _unknown_path(reply):
            # an older replica behind the same address (a rolling upgrade): this registration pushes by /result
            session.has_next = False
            reply = self._transport.request("POST", "/blackboard/job/result", body, token=session.token)
            return reply, _PushAnswer(reply.status, reply.problem, [], True)
        if reply.status != 200:
            return reply, _PushAnswer(reply.status, reply.problem, [], True)
        try:
            data = reply.json()
        except ValueError as e:  # as good as no answer: sent again, the claim it may have made left to the pings
            raise http.client.HTTPException(f"an unreadable answer to /blackboard/job/next: {e}") from e
        data = data if isinstance(data, dict) else {}
        items = data.get("results") or [{}]
        item = items[0] if isinstance(items[0], dict) else {}
        problem = item.get("problem") if isinstance(item.get("problem"), dict) else {}
        jobs = [job for job in data.get("jobs") or [] if isinstance(job, dict)]
        return reply, _PushAnswer(int(item.get("status") or 0), problem, jobs, False)

    def _would_poll(self) -> bool:
        """Whether the poll loop would ask for jobs now: directive RUN, no stop asked for."""
        with self._cond:
            return self._state is WorkerState.RUNNING and not self._stop_event.is_set() and not self._forced

    @staticmethod
    def _rejected(body: Dict[str, Any], status: int, problem: Mapping[str, Any]) -> Dict[str, Any]:
        if status == 422:
            error: Dict[str, Any] = {"type": "ResultSchemaViolation",
                                     "message": problem.get("detail") or "the result violates the result schema",
                                     "violations": problem.get("violations") or []}
        else:
            error = {"type": "ResultRejected", "message": f"{status}: {problem.get('detail') or problem}"}
        return {"jobId": body["jobId"], "workerId": body["workerId"], "attempt": body["attempt"],
                "status": FAILURE, "error": error}

    def _count(self, name: str, n: int = 1) -> None:
        with self._stats_lock:
            self._stats[name] = self._stats.get(name, 0) + n


def parse_labels(text: str) -> Dict[str, str]:
    """``"site=a,role=edge"`` as a dict."""
    labels: Dict[str, str] = {}
    for item in text.split(","):
        if item.strip():
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"label {item!r} is not key=value")
            labels[key.strip()] = value.strip()
    return labels


def _seconds(ms: Any, default: float) -> float:
    return ms / 1000.0 if isinstance(ms, (int, float)) and ms > 0 else default


def _unknown_path(reply: Response) -> bool:
    """Whether a replica refused /blackboard/job/next as a path it does not know: an older one's security
    answers a worker's token 403 there, or the path 404 or 405, none of them the problem of a deleted worker."""
    return reply.status in (403, 404, 405) and reply.problem.get("type") != "/problems/worker-not-found"


def _api_at_least(version: str, wanted: Tuple[int, ...]) -> bool:
    """Whether an ``apiVersion`` such as "1.1" is ``wanted`` or newer; False when it is not a version."""
    try:
        return tuple(int(part) for part in version.split(".")) >= wanted
    except ValueError:
        return False


def _names_sdk_field(problem: Mapping[str, Any]) -> bool:
    """A 400 from a server that predates sdkName/sdkVersion in the registration body."""
    text = f"{problem.get('field', '')} {problem.get('detail', '')}"
    return "unknown-field" in str(problem.get("type", "")) and "sdk" in text


def _local_ip(host: str, port: int) -> Optional[str]:
    """The local address that reaches the server (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((host, port))
            return str(s.getsockname()[0])
    except OSError:
        return None
