"""Blackboard worker SDK: serve function blocks to Blackboard with the standard library only.

    from blackboard_worker import Worker, function_block

    @function_block("configBackup", "1.0.0", idempotent=True)
    def config_backup(ctx, params):
        return {"host": params["host"], "lines": 120}

    if __name__ == "__main__":
        raise SystemExit(Worker.from_env(name="backup-worker").run())
"""

from ._version import __version__
from .blocks import FunctionBlock, Registry, default_registry, function_block
from .context import Failure, JobContext, JobType, Result
from .engine import EngineClient, ResultPage, job, retry_policy
from .errors import (ApiError, BlackboardError, FatalConfigurationError, JobCancelled, JobFailed,
                     WorkerExpiredError)
from .worker import StopReason, Worker, WorkerState

__all__ = [
    "ApiError", "BlackboardError", "EngineClient", "Failure", "FatalConfigurationError", "FunctionBlock",
    "JobCancelled", "JobContext", "JobFailed", "JobType", "Registry", "Result", "ResultPage", "StopReason", "Worker",
    "WorkerExpiredError", "WorkerState", "__version__", "default_registry", "function_block", "job", "retry_policy",
]
