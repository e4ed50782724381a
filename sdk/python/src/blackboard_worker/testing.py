"""Run a handler without a server, the way the worker would run it.

    from blackboard_worker.testing import run_job

    outcome = run_job(ConfigBackup, {"host": "r1"})
    assert outcome.status == "SUCCESS" and outcome.result["lines"] > 0

    outcome = run_job(ConfigBackup, {"host": "r1"}, cancel_after=0.1)
    assert outcome.cancelled          # the worker would push nothing
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Dict, Optional, Union

from ._dispatch import CANCELLED, FAILURE, SUCCESS, Outcome, run_handler
from .blocks import FunctionBlock, as_function_block
from .context import JobContext, JobType

__all__ = ["JobOutcome", "make_context", "run_job"]


class JobOutcome:
    """What the worker would do with a job: push SUCCESS or FAILURE (``push_body()``), or nothing."""

    def __init__(self, outcome: Outcome, ctx: JobContext) -> None:
        self.status: str = outcome.status
        self.result = outcome.result
        self.acquires = outcome.acquires
        self.db_updates = outcome.db_updates
        self.error: Optional[Dict[str, Any]] = outcome.error
        self.exception: Optional[BaseException] = outcome.exception
        self.ctx = ctx
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
                 job: Optional[Dict[str, Any]] = None) -> JobContext:
    """A JobContext like the worker's, for calling a handler directly."""
    name, version = ("handler", "0.0.0")
    if handler is not None:
        block = _block(handler)
        name, version = block.name, block.version
    job_id = job_id or str(uuid.uuid4())
    job_type = JobType(type)
    return JobContext(job_id=job_id, attempt=attempt, type=job_type, function_block=name, version=version,
                      function_block_id=function_block_id, params=params, correlation_id=correlation_id,
                      worker_id=worker_id,
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
