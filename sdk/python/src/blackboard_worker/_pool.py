"""A fixed pool of daemon threads for the handlers.

Not concurrent.futures.ThreadPoolExecutor: its threads are joined when the interpreter exits, so one
handler stuck in a device session would keep the process alive after a forced stop (a second signal).
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Callable, List, Optional

log = logging.getLogger(__name__)

_STOP = object()


class HandlerPool:
    def __init__(self, size: int, name: str = "blackboard-job") -> None:
        self._queue: "queue.SimpleQueue[object]" = queue.SimpleQueue()
        self._threads: List[threading.Thread] = []
        for i in range(size):
            thread = threading.Thread(target=self._work, name=f"{name}-{i + 1}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def submit(self, task: Callable[[], None]) -> None:
        self._queue.put(task)

    def shutdown(self, timeout: Optional[float] = None) -> None:
        """Let the threads end after their current task; wait up to ``timeout`` (None: do not wait)."""
        for _ in self._threads:
            self._queue.put(_STOP)
        if timeout is not None:
            for thread in self._threads:
                thread.join(timeout)

    def _work(self) -> None:
        while True:
            task = self._queue.get()
            if task is _STOP:
                return
            try:
                task()  # type: ignore[operator]
            except BaseException:  # the task handles its own errors; this is the last line of defence
                log.exception("a job task failed")
