"""The scenario worker of the shared end-to-end tests, configured by environment variables only.

BLACKBOARD_URL, BLACKBOARD_WORKER_TOKEN, BLACKBOARD_WORKER_NAME, BLACKBOARD_CONCURRENCY (default 1),
BLACKBOARD_DRAIN_TIMEOUT_MS (default 20000) and SCENARIO_LOG (a file that gets one line per event).

It serves one function block, scenario@1.0.0 (idempotent, result schema {"type": "object"}), whose
handlers follow the job's payload: {"sleepMs": int, "fail": str, "result": object, "badResult": bool}.
Run: PYTHONPATH=sdk/python/src python3 sdk/python/tests/scenario_worker.py
Exit status: 0 after a graceful stop, 1 after a forced one (a second signal), 2 when registration is
refused (bad token), 3 when the worker was deleted and BLACKBOARD_ON_EXPIRED=exit. Any other
BLACKBOARD_* variable of the SDK applies too (BLACKBOARD_POLL_WAIT_MS shortens an idle shutdown).
"""

import logging
import os
import sys
import threading

from blackboard_worker import FatalConfigurationError, JobContext, Registry, Result, Worker, WorkerExpiredError

registry = Registry()
_log_lock = threading.Lock()
_log_path = os.environ.get("SCENARIO_LOG")


def record(line: str) -> None:
    """Append one line and flush it at once: the tests read the file while the worker runs."""
    if not _log_path:
        return
    with _log_lock, open(_log_path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()


def _params(params) -> dict:
    return params if isinstance(params, dict) else {}


def _act(ctx: JobContext, params, on_success):
    params = _params(params)
    record(f"started {ctx.job_id} {ctx.type.value} {ctx.attempt}")
    try:
        left = int(params.get("sleepMs") or 0) / 1000.0
        while left > 0:
            if ctx.cancelled.is_set():
                break
            step = min(left, 0.05)
            ctx.cancelled.wait(step)
            left -= step
        if ctx.cancelled.is_set():
            record(f"cancelled {ctx.job_id}")
            return None  # the SDK pushes nothing for a cancelled job, whatever is returned
        if params.get("fail") is not None:
            raise RuntimeError(str(params["fail"]))
        return on_success(params)
    finally:
        record(f"finished {ctx.job_id}")


@registry.function_block("scenario", "1.0.0", idempotent=True, result_schema={"type": "object"},
                         description="The shared end-to-end tests' scenario block")
class Scenario:
    def run(self, ctx: JobContext, params):
        def execute(p):
            if p.get("badResult"):
                return "not an object"
            echo = p.get("result") if p.get("result") is not None else {}
            return {"echo": echo, "jobId": ctx.job_id, "attempt": ctx.attempt}
        return _act(ctx, params, execute)

    def acquire(self, ctx: JobContext, params):
        return _act(ctx, params, lambda p: Result(acquires=[{"resource": "scenario"}]))

    def rollback(self, ctx: JobContext, params):
        return _act(ctx, params, lambda p: {"rolledBack": True})


def main() -> int:
    logging.basicConfig(level=os.environ.get("SCENARIO_LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s", stream=sys.stderr)
    worker = Worker.from_env(name="python-scenario-worker", blocks=registry)
    try:
        return worker.run()  # 0 after a graceful stop, 1 after a forced one
    except FatalConfigurationError as e:  # the same exit codes as the Java scenario worker
        logging.getLogger("scenario").error("%s", e)
        return 2
    except WorkerExpiredError:
        return 3


if __name__ == "__main__":
    sys.exit(main())
