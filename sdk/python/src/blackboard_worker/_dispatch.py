"""Runs one handler for one job and turns what it did into an outcome; shared by Worker and testing."""

from __future__ import annotations

import asyncio
import inspect
import os
import traceback
from types import TracebackType
from typing import Any, Dict, Optional

from ._http import encode_json
from .blocks import FunctionBlock
from .context import Failure, JobContext, JobType, Result, with_retry_fields
from .errors import JobCancelled, JobFailed

SUCCESS = "SUCCESS"
FAILURE = "FAILURE"
CANCELLED = "CANCELLED"

# The server refuses JSON strings over 262144 characters; a traceback is for a human, keep its end.
MAX_TRACEBACK_CHARS = 8000
MAX_MESSAGE_CHARS = 4000
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_ASYNCIO_DIR = os.path.dirname(os.path.abspath(asyncio.__file__)) + os.sep


class Outcome:
    """How a job ended locally: SUCCESS or FAILURE (to push), or CANCELLED (nothing is pushed)."""

    __slots__ = ("status", "result", "acquires", "db_updates", "error", "exception")

    def __init__(self, status: str, *, result: Any = None, acquires: Any = None, db_updates: Any = None,
                 error: Optional[Dict[str, Any]] = None, exception: Optional[BaseException] = None) -> None:
        self.status = status
        self.result = result
        self.acquires = acquires
        self.db_updates = db_updates
        self.error = error
        self.exception = exception

    def push_body(self, job_id: str, worker_id: str, attempt: int) -> Dict[str, Any]:
        body: Dict[str, Any] = {"jobId": job_id, "workerId": worker_id, "attempt": attempt, "status": self.status}
        for key, value in (("result", self.result), ("acquires", self.acquires), ("dbUpdates", self.db_updates),
                           ("error", self.error)):
            if value is not None:
                body[key] = value
        return body

    def __repr__(self) -> str:
        return (f"Outcome({self.status}, result={self.result!r}, acquires={self.acquires!r}, "
                f"db_updates={self.db_updates!r}, error={self.error!r})")


def run_handler(block: FunctionBlock, ctx: JobContext) -> Outcome:
    """Call the block's handler for ctx.type (``asyncio.run`` for a coroutine) and judge the outcome."""
    try:
        handler = block.handler(ctx.type)
        value = handler(ctx, ctx.params)
        if inspect.isawaitable(value):
            value = asyncio.run(_await(value))
    except JobCancelled as e:
        return Outcome(CANCELLED, exception=e)
    except JobFailed as e:  # a failure the handler meant: no stack trace in the log
        if ctx.cancelled.is_set():
            return Outcome(CANCELLED, exception=e)
        ctx.logger.info("failed: %s%s", f"{e.code}: " if e.code is not None else "", e.message)
        return Outcome(FAILURE, error=error_of(e), exception=e)
    except (Exception, SystemExit) as e:  # a handler's failure must never take the worker down
        if ctx.cancelled.is_set():
            return Outcome(CANCELLED, exception=e)
        ctx.logger.warning("failed: %s: %s", type(e).__name__, e, exc_info=True)
        return Outcome(FAILURE, error=error_of(e), exception=e)
    if ctx.cancelled.is_set():
        return Outcome(CANCELLED)
    outcome = outcome_of(ctx.type, value)
    try:
        encode_json(outcome.push_body(ctx.job_id, "", ctx.attempt))
    except (TypeError, ValueError) as e:
        ctx.logger.warning("returned something that is not JSON: %s", e)
        return Outcome(FAILURE, error={"type": "ResultNotJson", "message": _clip(str(e), MAX_MESSAGE_CHARS)},
                       exception=e)
    return outcome


async def _await(awaitable: Any) -> Any:
    return await awaitable


def outcome_of(job_type: JobType, value: Any) -> Outcome:
    if isinstance(value, Failure):
        return Outcome(FAILURE, error=value.error(), result=value.result)
    if isinstance(value, Result):
        acquires = value.acquires
        if job_type is JobType.ACQUIRE and acquires is None:
            acquires = []
        return Outcome(SUCCESS, result=value.result, acquires=acquires, db_updates=value.db_updates)
    if job_type is JobType.ACQUIRE:
        return Outcome(SUCCESS, acquires=[] if value is None else value)
    return Outcome(SUCCESS, result=value)


def error_of(e: BaseException) -> Dict[str, Any]:
    """The structured error pushed for an exception: type, message, traceback (its end, when long); for a
    :class:`JobFailed`, its details, code and retryable too."""
    kind = type(e)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    trace = "".join(traceback.format_exception(kind, e, _user_frames(e.__traceback__)))
    error: Dict[str, Any] = {"type": name, "message": _clip(str(e), MAX_MESSAGE_CHARS),
                             "traceback": trace if len(trace) <= MAX_TRACEBACK_CHARS
                             else "...(truncated)\n" + trace[-MAX_TRACEBACK_CHARS:]}
    if isinstance(e, JobFailed):
        error.update(e.details)
        with_retry_fields(error, e.code, e.retryable)
    return error


def _user_frames(tb: Optional[TracebackType]) -> Optional[TracebackType]:
    """The traceback from the first frame outside this package and asyncio: the handler's own."""
    while tb is not None and tb.tb_next is not None and (
            tb.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR)
            or tb.tb_frame.f_code.co_filename.startswith(_ASYNCIO_DIR)):
        tb = tb.tb_next
    return tb


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "...(truncated)"
