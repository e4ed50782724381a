"""A TestCase base with a stub server and a fast worker (short intervals, tiny backoff)."""

import threading
import time
import unittest
from typing import Any, Callable, List

import _support  # noqa: F401
from stub_server import StubBlackboard

from blackboard_worker import Registry, Worker, WorkerState


class WorkerCase(unittest.TestCase):
    stub_options: dict = {}

    def setUp(self) -> None:
        self.stub = StubBlackboard(**self.stub_options).start()
        self.addCleanup(self.stub.stop)
        self.registry = Registry()

    def block(self, name: str = "echo", version: str = "1", **flags: Any) -> Callable[[Any], Any]:
        return self.registry.function_block(name, version, **flags)

    def worker(self, **options: Any) -> Worker:
        settings = dict(base_url=self.stub.url, name="test-worker", blocks=self.registry, poll_wait=0.3,
                        drain_timeout=3.0, cancel_grace=0.3, retry_base_delay=0.01, retry_max_delay=0.05,
                        handle_signals=False)
        settings.update(options)
        worker = Worker(**settings)
        self.addCleanup(self._stop, worker)
        return worker

    @staticmethod
    def _stop(worker: Worker) -> None:
        if worker.state is not WorkerState.NEW and not worker.wait(0):
            worker.force()
            worker.wait(5)

    def run_in_thread(self, worker: Worker) -> List[Any]:
        """worker.run() in a thread (no signals there); the returned list gets its result or exception."""
        outcome: List[Any] = []

        def target() -> None:
            try:
                outcome.append(worker.run())
            except BaseException as e:  # handed to the test
                outcome.append(e)

        threading.Thread(target=target, daemon=True).start()
        return outcome

    def wait_until(self, predicate: Callable[[], Any], timeout: float = 5.0) -> Any:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            value = predicate()
            if value:
                return value
            time.sleep(0.01)
        self.fail(f"timed out waiting for {predicate}")
