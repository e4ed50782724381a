"""The engine's side of the API: create jobs, read and cancel them, follow the result feed."""

from __future__ import annotations

import datetime
import os
import ssl
import threading
import time
import urllib.parse
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from ._http import Response, Transport
from .errors import ApiError

DEFAULT_ENGINE_TOKEN = "dev-engine-token"
_JOB_FIELDS = {"function_block_id": "functionBlockId", "type": "type", "payload": "payload",
               "priority": "priority", "max_attempts": "maxAttempts", "selector": "selector",
               "correlation_id": "correlationId", "idempotency_key": "idempotencyKey", "run_at": "runAt",
               "delay_ms": "delayMs", "retry_policy": "retryPolicy", "execution_timeout_ms": "executionTimeoutMs",
               "function_block_name": "functionBlockName", "function_block_version": "functionBlockVersion"}
_POLICY_FIELDS = {"max_attempts": "maxAttempts", "initial_interval_ms": "initialIntervalMs",
                  "multiplier": "multiplier", "max_interval_ms": "maxIntervalMs", "jitter": "jitter",
                  "non_retryable_errors": "nonRetryableErrors", "on_exhausted": "onExhausted"}


class ResultPage:
    """One page of the result feed: PUSHED jobs in push order, and the cursor to read on from."""

    __slots__ = ("results", "next")

    def __init__(self, results: List[Dict[str, Any]], next: str) -> None:
        self.results = results
        self.next = next

    def __repr__(self) -> str:
        return f"ResultPage({len(self.results)} results, next={self.next!r})"


def retry_policy(**fields: Any) -> Dict[str, Any]:
    """A retry policy in the API's shape, for a job (``retry_policy=``) or a function block: max_attempts,
    initial_interval_ms, multiplier, max_interval_ms, jitter, non_retryable_errors (codes, or prefixes ending
    in ``*``), on_exhausted (``"FAIL"`` or ``"PARK"``: a dead letter). What is not given takes the server's
    default (3 attempts, 1 s doubling up to 5 min, no jitter, FAIL)."""
    unknown = set(fields) - set(_POLICY_FIELDS)
    if unknown:
        raise TypeError(f"unknown retry policy field(s): {', '.join(sorted(unknown))}")
    policy = {_POLICY_FIELDS[key]: value for key, value in fields.items() if value is not None}
    if "nonRetryableErrors" in policy:
        policy["nonRetryableErrors"] = list(policy["nonRetryableErrors"])
    return policy


def job(function_block_id: Optional[str] = None, type: str = "EXECUTE", payload: Any = None,
        **options: Any) -> Dict[str, Any]:
    """A job to create, in the API's shape; ``options``: priority, max_attempts, selector, correlation_id,
    idempotency_key, run_at (an aware datetime or RFC 3339 text) or delay_ms, retry_policy (a dict such as
    :func:`retry_policy` makes), execution_timeout_ms, and function_block_name with function_block_version (a
    version or a range such as ``^1.2``) instead of ``function_block_id``."""
    unknown = set(options) - set(_JOB_FIELDS)
    if unknown:
        raise TypeError(f"unknown job option(s): {', '.join(sorted(unknown))}")
    by_name = options.get("function_block_name") is not None
    if (function_block_id is None) == (not by_name):
        raise TypeError("a job names its function block by function_block_id, or by function_block_name "
                        "(and function_block_version): one of them")
    if options.get("function_block_version") is not None and not by_name:
        raise TypeError("function_block_version needs function_block_name")
    if options.get("run_at") is not None and options.get("delay_ms") is not None:
        raise TypeError("a job is scheduled by run_at or by delay_ms, not both")
    body: Dict[str, Any] = {"type": type}
    if function_block_id is not None:
        body["functionBlockId"] = function_block_id
    if payload is not None:
        body["payload"] = payload
    for key, value in options.items():
        if value is not None:
            body[_JOB_FIELDS[key]] = _rfc3339(value) if key == "run_at" else value
    return body


def _rfc3339(when: Union[str, datetime.datetime]) -> str:
    if isinstance(when, str):
        return when
    if isinstance(when, datetime.datetime):
        if when.tzinfo is None or when.utcoffset() is None:
            raise ValueError("run_at needs a timezone (a naive datetime would be read in the server's)")
        return when.isoformat()
    raise TypeError(f"run_at must be a datetime or RFC 3339 text, not {when!r}")


class EngineClient:
    """Calls the engine endpoints with an engine token. Thread-safe.

    429 and 503 answers (nothing was done) are retried after ``Retry-After``, up to ``max_retries``;
    other errors raise ApiError, I/O errors OSError.
    """

    def __init__(self, base_url: str = "http://localhost:8080", token: str = DEFAULT_ENGINE_TOKEN, *,
                 timeout: float = 30.0, ssl_context: Optional[ssl.SSLContext] = None, max_retries: int = 3) -> None:
        self._transport = Transport(base_url, timeout=timeout, ssl_context=ssl_context)
        self._token = token
        self._timeout = timeout
        self._max_retries = max_retries

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None, **kwargs: Any) -> "EngineClient":
        """``BLACKBOARD_URL`` and ``BLACKBOARD_ENGINE_TOKEN`` (defaults: localhost:8080, dev-engine-token)."""
        env = os.environ if environ is None else environ
        return cls(env.get("BLACKBOARD_URL") or "http://localhost:8080",
                   env.get("BLACKBOARD_ENGINE_TOKEN") or DEFAULT_ENGINE_TOKEN, **kwargs)

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> "EngineClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---------------------------------------------------------------- function blocks

    def function_blocks(self) -> List[Dict[str, Any]]:
        """The catalog: every function block with its ONLINE workers and queue."""
        return self._call("GET", "/function-blocks")

    def function_block_id(self, name: str, version: Optional[str] = None) -> str:
        """The id of a function block by name (and version; without one, the only version there is)."""
        found = [b for b in self.function_blocks()
                 if b.get("name") == name and (version is None or b.get("version") == version)]
        if not found:
            raise LookupError(f"no function block {name}{'@' + version if version else ''} is registered")
        if len(found) > 1:
            raise LookupError(f"function block {name} has several versions "
                              f"({', '.join(b['version'] for b in found)}): name one")
        return str(found[0]["id"])

    # ---------------------------------------------------------------- jobs

    def create_job(self, function_block_id: Optional[str] = None, type: str = "EXECUTE", payload: Any = None,
                   **options: Any) -> Dict[str, Any]:
        """Create one job; options as :func:`job` takes them: priority, max_attempts, selector, correlation_id,
        idempotency_key (the same key again answers the existing job), run_at or delay_ms, retry_policy,
        execution_timeout_ms, function_block_name and function_block_version."""
        return self._call("POST", "/blackboard/jobs", job(function_block_id, type, payload, **options))

    def create_jobs(self, jobs: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
        """Create a batch (up to 1000, all or none, in order); each item as made by :func:`job`."""
        return self._call("POST", "/blackboard/jobs", list(jobs))

    def get_job(self, job_id: str) -> Dict[str, Any]:
        return self._call("GET", f"/blackboard/jobs/{_quote(job_id)}")

    def cancel_job(self, job_id: str) -> Dict[str, Any]:
        return self._call("POST", f"/blackboard/jobs/{_quote(job_id)}/cancel")

    def job_events(self, job_id: str) -> List[Dict[str, Any]]:
        return self._call("GET", f"/blackboard/jobs/{_quote(job_id)}/events")

    def wait_for_job(self, job_id: str, timeout: float = 60.0, interval: float = 0.2) -> Dict[str, Any]:
        """Read the job until it is PUSHED, or PARKED (a dead letter: it waits for an operator); TimeoutError
        after ``timeout`` seconds. A retried failure is PENDING again meanwhile, so it is waited out."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.get_job(job_id)
            if found.get("status") in ("PUSHED", "PARKED"):
                return found
            if time.monotonic() >= deadline:
                raise TimeoutError(f"job {job_id} is still {found.get('status')} after {timeout} s")
            time.sleep(interval)

    # ---------------------------------------------------------------- result feed

    def results(self, after: str = "0-0", limit: int = 100, wait_ms: int = 0) -> ResultPage:
        """One page of the result feed after ``after``; with ``wait_ms``, waits for a first result."""
        query = urllib.parse.urlencode({"after": after, "limit": limit, "waitMs": wait_ms})
        page = self._call("GET", f"/blackboard/results?{query}", timeout=self._timeout + wait_ms / 1000.0)
        return ResultPage(page.get("results") or [], page.get("next") or after)

    def follow_results(self, after: str = "0-0", *, limit: int = 100, wait_ms: int = 25000,
                       stop: Optional[threading.Event] = None) -> Iterator[ResultPage]:
        """Pages of the feed, forever (or until ``stop`` is set): keep the last page's ``next`` to resume.
        Pages with no results are yielded too, so a consumer can check ``stop`` and save its cursor."""
        cursor = after
        while stop is None or not stop.is_set():
            page = self.results(cursor, limit=limit, wait_ms=wait_ms)
            cursor = page.next
            yield page

    # ---------------------------------------------------------------- plumbing

    def _call(self, method: str, path: str, body: Any = None, *, timeout: Optional[float] = None) -> Any:
        attempt = 0
        while True:
            reply: Response = self._transport.request(method, path, body, token=self._token, timeout=timeout)
            if 200 <= reply.status < 300:
                return reply.json()
            if reply.status in (429, 503) and attempt < self._max_retries:
                attempt += 1
                time.sleep(reply.retry_after if reply.retry_after is not None else 0.5 * attempt)
                continue
            raise ApiError(method, path.split("?")[0], reply.status, reply.problem, reply.retry_after)


def _quote(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")
