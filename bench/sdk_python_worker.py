"""One Python SDK worker for the benchmark (phase ``sdk`` of bench/Bench.java), one per process as users run them.

It serves ``bench.sdk 1.0.0`` with a no-op handler (the result ``{}``) at concurrency 1, so each poll asks for
1 job; every other knob is the SDK's default (a 10 s poll wait: jobs are pending, so polls return at once; the
server's ping interval; a 20 s drain). ``run()`` handles SIGTERM: the SDK's graceful stop, exit code 0.

    PYTHONPATH=sdk/python/src /usr/bin/python3 bench/sdk_python_worker.py \
        --url http://127.0.0.1:PORT --token T --name bench-sdk-python-0 [--max-seconds 600]

Prints ``ready WORKER_ID`` on stdout once registered and RUNNING, and ``stats {...}`` when stopped. Bounded:
it stops by itself after --max-seconds, or when the process that started it is gone.
"""

import argparse
import logging
import os
import sys
import threading
import time

from blackboard_worker import Registry, Worker, WorkerState

blocks = Registry()


@blocks.function_block("bench.sdk", "1.0.0")
def noop(ctx, params):
    return {}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--name", default="bench-sdk-python")
    parser.add_argument("--max-seconds", type=float, default=600)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format=f"%(asctime)s {args.name} %(levelname)s %(name)s: %(message)s")
    worker = Worker(base_url=args.url, token=args.token, name=args.name, blocks=blocks, concurrency=1)
    parent = os.getppid()

    def watch() -> None:
        announced = False
        end = time.monotonic() + args.max_seconds
        while worker.state is not WorkerState.STOPPED:
            if not announced and worker.state is WorkerState.RUNNING:
                announced = True
                print("ready", worker.worker_id, flush=True)
            if time.monotonic() > end or os.getppid() != parent:
                print("watchdog: stopping (time is up, or the driver is gone)", flush=True)
                worker.stop()
                return
            time.sleep(0.01 if not announced else 0.5)

    threading.Thread(target=watch, name="bench-watch", daemon=True).start()
    try:
        code = worker.run()
    finally:
        print("stats", worker.stop_reason.value if worker.stop_reason else None, worker.stats, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
