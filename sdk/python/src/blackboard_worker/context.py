"""What a handler receives (JobContext) and what it may return besides plain data (Result, Failure)."""

from __future__ import annotations

import asyncio
import enum
import logging
import threading
import time
from typing import Any, Callable, Dict, Mapping, MutableMapping, Optional, Tuple

from .errors import JobCancelled

# The server records at most one progress report per job every 2 s and refuses messages over 200 characters.
PROGRESS_MIN_GAP = 2.0
MAX_PROGRESS_MESSAGE = 200

ProgressReporter = Callable[[int, Optional[str]], bool]
"""Sends one progress report of a job; True when the server recorded it."""


class JobType(str, enum.Enum):
    ACQUIRE = "ACQUIRE"
    EXECUTE = "EXECUTE"
    ROLLBACK = "ROLLBACK"


class Result:
    """An explicit successful outcome, for when a handler returns more than its result.

    ``Result({"lines": 120}, db_updates=[...])`` from EXECUTE, ``Result(acquires=[...])`` from ACQUIRE.
    """

    __slots__ = ("result", "acquires", "db_updates")

    def __init__(self, result: Any = None, *, acquires: Any = None, db_updates: Any = None) -> None:
        self.result = result
        self.acquires = acquires
        self.db_updates = db_updates

    def __repr__(self) -> str:
        return f"Result(result={self.result!r}, acquires={self.acquires!r}, db_updates={self.db_updates!r})"


class Failure:
    """A business failure returned (not raised) by a handler: pushed as FAILURE with this error.

    The error pushed is ``{"type": type, "message": message, **details}``, plus ``"code": code`` when
    given and ``"retryable": false`` with ``retryable=False`` (see :class:`JobFailed`, its raised twin).
    """

    __slots__ = ("message", "type", "details", "result", "code", "retryable")

    def __init__(self, message: str, *, type: str = "Failure", details: Optional[Mapping[str, Any]] = None,
                 result: Any = None, code: Optional[str] = None, retryable: bool = True) -> None:
        self.message = message
        self.type = type
        self.details = dict(details or {})
        self.result = result
        self.code = code
        self.retryable = retryable

    def error(self) -> Dict[str, Any]:
        error: Dict[str, Any] = {"type": self.type, "message": self.message}
        error.update(self.details)
        return with_retry_fields(error, self.code, self.retryable)

    def __repr__(self) -> str:
        extra = (f", code={self.code!r}" if self.code is not None else "") + (
            ", retryable=False" if self.retryable is False else "")
        return f"Failure({self.message!r}, type={self.type!r}{extra})"


def with_retry_fields(error: Dict[str, Any], code: Optional[str], retryable: bool) -> Dict[str, Any]:
    """The members a job's retry policy reads: ``code`` only when given, ``retryable`` only when false."""
    if code is not None:
        error["code"] = code
    if retryable is False:  # None, like True, leaves it to the policy
        error["retryable"] = False
    return error


class JobLogger(logging.LoggerAdapter):
    """Prefixes every message with the job and passes the job's fields as ``extra`` for structured logs."""

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> Tuple[Any, MutableMapping[str, Any]]:
        extra = dict(self.extra or {})
        extra.update(kwargs.get("extra") or {})
        kwargs["extra"] = extra
        return f"[job {extra.get('job_id')} attempt {extra.get('attempt')}] {msg}", kwargs


class JobContext:
    """One claimed job as its handler sees it.

    ``cancelled`` is a :class:`threading.Event` set when the server lists the job in ``cancelJobIds``
    (cancelled by the engine, failed as stuck, taken back), when the worker was deleted, or when a
    shutdown's drain timeout ran out. A cancelled job's result is never pushed: the handler should stop
    soon, by returning anything or raising :class:`JobCancelled`.

    ``progress(percent, message)`` reports how far the job got (see there).
    """

    def __init__(self, *, job_id: str, attempt: int, type: JobType, function_block: str, version: str,
                 function_block_id: Optional[str] = None, params: Any = None, correlation_id: Optional[str] = None,
                 deadline: Optional[str] = None, worker_id: Optional[str] = None,
                 job: Optional[Dict[str, Any]] = None, cancelled: Optional[threading.Event] = None,
                 logger: Optional[logging.Logger] = None,
                 progress_reporter: Optional[ProgressReporter] = None) -> None:
        self.job_id = job_id
        self.attempt = attempt
        self.type = type
        self.function_block = function_block
        self.version = version
        self.function_block_id = function_block_id
        self.params = params
        self.correlation_id = correlation_id
        self.deadline = deadline
        self.worker_id = worker_id
        self.job: Dict[str, Any] = job or {}
        self.cancelled = cancelled if cancelled is not None else threading.Event()
        base = logger or logging.getLogger(f"blackboard_worker.job.{function_block}")
        self.logger = JobLogger(base, {"job_id": job_id, "attempt": attempt, "job_type": type.value,
                                       "function_block": f"{function_block}@{version}",
                                       "correlation_id": correlation_id, "worker_id": worker_id})
        self._progress_reporter = progress_reporter
        self._progress_lock = threading.Lock()
        self._progress_recorded_at: Optional[float] = None
        self._clock: Callable[[], float] = time.monotonic

    @property
    def is_cancelled(self) -> bool:
        return self.cancelled.is_set()

    def raise_if_cancelled(self) -> None:
        """Raise :class:`JobCancelled` if the job was cancelled."""
        if self.cancelled.is_set():
            raise JobCancelled(f"job {self.job_id} was cancelled")

    def sleep(self, seconds: float) -> bool:
        """Sleep, waking early on cancellation; True if the job was cancelled."""
        return self.cancelled.wait(seconds)

    async def async_sleep(self, seconds: float, step: float = 0.05) -> bool:
        """``sleep`` for ``async def`` handlers: awaits in small steps, True if the job was cancelled."""
        end = time.monotonic() + seconds
        while not self.cancelled.is_set():
            left = end - time.monotonic()
            if left <= 0:
                return False
            await asyncio.sleep(min(step, left))
        return True

    def progress(self, percent: float, message: Optional[str] = None) -> bool:
        """Report how far the job got: ``percent`` from 0 to 100 (a float is truncated), and optionally what it
        is doing (at most 200 characters; longer is cut). The job shows it, and it extends the job's lease.

        Returns True when the server recorded it; False otherwise, never raising for that: a report within 2 s
        of the last recorded one is skipped without a request (the server would not record it; 100 is always
        sent), and so is one for a cancelled job; a server that is busy, unreachable or too old to take
        progress records nothing. Blocks for one request (5 s at most).

        When the server answers that the job is no longer this worker's claim (cancelled by the engine,
        failed as stuck, taken back, or the job or the worker is gone), the job is cancelled here as a
        ping's ``cancelJobIds`` would cancel it: ``cancelled`` is set and nothing will be pushed for it.
        """
        value = _percent(percent)
        if message is not None:
            message = _clip_utf16(str(message), MAX_PROGRESS_MESSAGE)
        if self._progress_reporter is None or self.cancelled.is_set():
            return False
        with self._progress_lock:
            last = self._progress_recorded_at
            if value < 100 and last is not None and self._clock() - last < PROGRESS_MIN_GAP:
                return False
            recorded = bool(self._progress_reporter(value, message))
            if recorded:
                self._progress_recorded_at = self._clock()  # after the answer: the server's 2 s surely passed
            return recorded

    def __repr__(self) -> str:
        return (f"JobContext(job_id={self.job_id!r}, attempt={self.attempt}, type={self.type.value}, "
                f"function_block={self.function_block!r})")


def _percent(percent: Any) -> int:
    if isinstance(percent, bool) or not isinstance(percent, (int, float)) or not 0 <= percent <= 100:
        raise ValueError(f"progress percent must be a number from 0 to 100, not {percent!r}")
    return int(percent)


def _clip_utf16(text: str, limit: int) -> str:
    """At most ``limit`` UTF-16 code units, as the server counts a string's length."""
    if len(text) <= limit // 2:
        return text
    units = 0
    for i, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return text[:i]
    return text
