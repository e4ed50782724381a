"""A native Blackboard worker (this SDK) that serves the same echo jobs as examples/ojs_worker.py.

The OJS worker end-to-end test (server: io.blackboard.ojs.OjsWorkerEndToEndTest) runs it beside OJS workers:
it serves the function block ECHO_BLOCK (default "echo") at version ECHO_VERSION (default "0", the version of
the block an OJS enqueue of an unknown type creates), answers {"n": params["n"], "by": its worker name}
after ECHO_WORK_MS (default 0) and prints one JSON line per job it ran, as the OJS example does:
{"job_id": ..., "attempt": ..., "outcome": "ack"}. The SDK's BLACKBOARD_* variables configure the rest.

    PYTHONPATH=sdk/python/src BLACKBOARD_WORKER_NAME=native-1 python3 sdk/python/tests/native_echo_worker.py
"""

import json
import logging
import os
import sys
import threading
import time

from blackboard_worker import JobContext, Registry, Worker

registry = Registry()
_print_lock = threading.Lock()


def echo(ctx: JobContext, params):
    time.sleep(int(os.environ.get("ECHO_WORK_MS") or 0) / 1000)
    with _print_lock:
        print(json.dumps({"job_id": ctx.job_id, "attempt": ctx.attempt, "outcome": "ack"}), flush=True)
    n = params.get("n") if isinstance(params, dict) else None
    return {"n": n, "by": worker.name}


registry.function_block(os.environ.get("ECHO_BLOCK", "echo"), os.environ.get("ECHO_VERSION", "0"))(echo)

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s",
                        stream=sys.stderr)
    worker = Worker.from_env(name="native-echo-worker", blocks=registry)
    sys.exit(worker.run())
