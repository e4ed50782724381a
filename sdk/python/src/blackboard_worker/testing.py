"""Run a handler without a server, the way the worker would run it.

    from blackboard_worker.testing import run_job

    outcome = run_job(ConfigBackup, {"host": "r1"})
    assert outcome.status == "SUCCESS" and outcome.result["lines"] > 0

    outcome = run_job(ConfigBackup, {"host": "r1"}, cancel_after=0.1)
    assert outcome.cancelled          # the worker would push nothing

    assert run_job(ConfigBackup, {"host": "r1"}).progress[-1] == (100, "saved")   # what the server recorded
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from ._dispatch import CANCELLED, FAILURE, SUCCESS, Outcome, run_handler
from .blocks import FunctionBlock, as_function_block
from .context import JobContext, JobType

__all__ = ["JobOutcome", "ProgressLog", "make_context", "run_job"]


class ProgressLog(List[Tuple[int, Optional[str]]]):
    """The progress reports a context sent, as ``(percent, message)``: what the server would have recorded
    (the context skips reports within 2 s of the last one, as with a worker). Every report is recorded."""

    def __call__(self, percent: int, message: Optional[str]) -> bool:
        self.append((percent, message))
        return True


class JobOutcome:
    """What the worker would do with a job: push SUCCESS or FAILURE (``push_body()``), or nothing; and
    ``progress``, the reports the handler made that reached the server, as ``(percent, message)``."""

    def __init__(self, outcome: Outcome, ctx: JobContext) -> None:
        self.status: str = outcome.status
        self.result = outcome.result
        self.acquires = outcome.acquires
        self.db_updates = outcome.db_updates
        self.error: Optional[Dict[str, Any]] = outcome.error
        self.exception: Optional[BaseException] = outcome.exception
        self.ctx = ctx
        reporter = getattr(ctx, "_progress_reporter", None)
        self.progress: List[Tuple[int, Optional[str]]] = list(reporter) if isinstance(reporter, ProgressLog) else []
        self._outcome = outcome

    @property
    def succeeded(self) -> bool:
        return self.status == SUCCESS

    @property
    def failed(self) -> bool:
        return self.status == FAILURE

    @property
    def cancelled(self) -> bool:
        return self.status == CANCELLED

    def push_body(self) -> Optional[Dict[str, Any]]:
        """The push the worker would send (None for a cancelled job)."""
        if self.cancelled:
            return None
        return self._outcome.push_body(self.ctx.job_id, self.ctx.worker_id or "", self.ctx.attempt)

    def __repr__(self) -> str:
        return (f"JobOutcome({self.status}, result={self.result!r}, acquires={self.acquires!r}, "
                f"db_updates={self.db_updates!r}, error={self.error!r})")


def _block(handler: Any) -> FunctionBlock:
    try:
        return as_function_block(handler)
    except TypeError:
        return FunctionBlock(handler, getattr(handler, "__name__", "handler"), "0.0.0")


def make_context(handler: Any = None, params: Any = None, *, type: Union[str, JobType] = JobType.EXECUTE,
                 attempt: int = 1, job_id: Optional[str] = None, correlation_id: Optional[str] = None,
                 worker_id: str = "test-worker", function_block_id: Optional[str] = None,
                 job: Optional[Dict[str, Any]] = None,
                 on_progress: Optional[Callable[[int, Optional[str]], Any]] = None) -> JobContext:
    """A JobContext like the worker's, for calling a handler directly.

    ``ctx.progress(...)`` reports go to ``on_progress(percent, message)`` (whatever it returns but False
    counts as recorded), throttled as a worker throttles them; by default to a :class:`ProgressLog`, which
    :func:`run_job` shows as its outcome's ``progress``.
    """
    name, version = ("handler", "0.0.0")
    if handler is not None:
        block = _block(handler)
        name, version = block.name, block.version
    job_id = job_id or str(uuid.uuid4())
    job_type = JobType(type)
    reporter: Callable[[int, Optional[str]], bool]
    if on_progress is None:
        reporter = ProgressLog()
    else:
        def reporter(percent: int, message: Optional[str]) -> bool:
            return on_progress(percent, message) is not False
    return JobContext(job_id=job_id, attempt=attempt, type=job_type, function_block=name, version=version,
                      function_block_id=function_block_id, params=params, correlation_id=correlation_id,
                      worker_id=worker_id, progress_reporter=reporter,
                      job=job or {"id": job_id, "type": job_type.value, "attempt": attempt, "payload": params,
                                  "functionBlockId": function_block_id, "correlationId": correlation_id})


def run_job(handler: Any, params: Any = None, *, type: Union[str, JobType] = JobType.EXECUTE, attempt: int = 1,
            cancel_after: Optional[float] = None, job_id: Optional[str] = None,
            correlation_id: Optional[str] = None, ctx: Optional[JobContext] = None) -> JobOutcome:
    """Run one job of ``handler`` (a decorated function or class, a FunctionBlock, or any ``f(ctx, params)``)
    in this thread, as the worker would; ``cancel_after`` sets ``ctx.cancelled`` after that many seconds."""
    block = _block(handler)
    if ctx is None:
        ctx = make_context(block, params, type=type, attempt=attempt, job_id=job_id, correlation_id=correlation_id)
    timer = None
    if cancel_after is not None:
        timer = threading.Timer(cancel_after, ctx.cancelled.set)
        timer.daemon = True
        timer.start()
    try:
        return JobOutcome(run_handler(block, ctx), ctx)
    finally:
        if timer is not None:
            timer.cancel()
