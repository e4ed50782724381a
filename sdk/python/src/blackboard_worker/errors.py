"""The exceptions the SDK raises."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional


class BlackboardError(Exception):
    """Base class of every error raised by this package."""


class ApiError(BlackboardError):
    """The server answered with an error status (an RFC 9457 problem, usually)."""

    def __init__(self, method: str, path: str, status: int, problem: Optional[Dict[str, Any]] = None,
                 retry_after: Optional[float] = None) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.problem: Dict[str, Any] = problem or {}
        self.retry_after = retry_after
        super().__init__(f"{method} {path}: {status} {self.type or ''} {self.detail or ''}".rstrip())

    @property
    def type(self) -> Optional[str]:
        return self.problem.get("type")

    @property
    def detail(self) -> Optional[str]:
        return self.problem.get("detail")


class FatalConfigurationError(BlackboardError):
    """The server refused the worker in a way retrying cannot fix (bad token, conflicting function block).

    Raised by :meth:`Worker.run` and :meth:`Worker.start`; the process should exit and be fixed.
    """


class WorkerExpiredError(BlackboardError):
    """The server no longer knows this worker (deleted by an operator or the cleanup).

    Raised by :meth:`Worker.run` only with ``on_expired="exit"``; by default the worker registers again.
    """


class JobCancelled(BlackboardError):
    """Raise from a handler to end a cancelled job: nothing is pushed for it."""


class JobFailed(BlackboardError):
    """Raise from a handler to fail its job with an error code the job's retry policy can match.

    Pushed as FAILURE with the error an exception gets (``type``, ``message``, ``traceback``), plus
    ``code`` when given, ``"retryable": false`` when ``retryable=False`` (the server then never runs
    the job again, whatever its retry policy), and ``details``::

        raise JobFailed("device rejected our credentials", code="AUTH_FAILED", retryable=False)

    A retry policy's ``nonRetryableErrors`` match ``code`` (exactly, or by a prefix ending in ``*``).
    """

    def __init__(self, message: str, *, code: Optional[str] = None, retryable: bool = True,
                 details: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.retryable = retryable
        self.details: Dict[str, Any] = dict(details or {})
