"""What a handler receives (JobContext) and what it may return besides plain data (Result, Failure)."""

from __future__ import annotations

import asyncio
import enum
import logging
import threading
import time
from typing import Any, Dict, Mapping, MutableMapping, Optional, Tuple

from .errors import JobCancelled


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

    The error pushed is ``{"type": type, "message": message, **details}``.
    """

    __slots__ = ("message", "type", "details", "result")

    def __init__(self, message: str, *, type: str = "Failure", details: Optional[Mapping[str, Any]] = None,
                 result: Any = None) -> None:
        self.message = message
        self.type = type
        self.details = dict(details or {})
        self.result = result

    def error(self) -> Dict[str, Any]:
        error: Dict[str, Any] = {"type": self.type, "message": self.message}
        error.update(self.details)
        return error

    def __repr__(self) -> str:
        return f"Failure({self.message!r}, type={self.type!r})"


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
    """

    def __init__(self, *, job_id: str, attempt: int, type: JobType, function_block: str, version: str,
                 function_block_id: Optional[str] = None, params: Any = None, correlation_id: Optional[str] = None,
                 deadline: Optional[str] = None, worker_id: Optional[str] = None,
                 job: Optional[Dict[str, Any]] = None, cancelled: Optional[threading.Event] = None,
                 logger: Optional[logging.Logger] = None) -> None:
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

    def __repr__(self) -> str:
        return (f"JobContext(job_id={self.job_id!r}, attempt={self.attempt}, type={self.type.value}, "
                f"function_block={self.function_block!r})")
