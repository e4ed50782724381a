"""Function blocks: the ``@function_block`` decorator and the registry it fills."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, TypeVar, Union

from .context import Failure, JobContext, JobType

T = TypeVar("T")
Handler = Callable[[JobContext, Any], Any]

_ATTRIBUTE = "__blackboard_function_block__"


class FunctionBlock:
    """A function block's contract (name, version, flags, schemas) and its handlers.

    ``target`` is the decorated function (the EXECUTE handler) or class (a fresh instance per job,
    whose ``run`` / ``acquire`` / ``rollback`` handle EXECUTE / ACQUIRE / ROLLBACK). ``retry_policy`` (as
    :func:`blackboard_worker.retry_policy` makes it) and ``execution_timeout_ms`` are the defaults of the
    block's jobs; like the schemas and flags, they are part of the ``(name, version)`` contract.
    """

    def __init__(self, target: Any, name: str, version: str, *, pure: bool = False, idempotent: bool = False,
                 params_schema: Optional[Mapping[str, Any]] = None,
                 result_schema: Optional[Mapping[str, Any]] = None, description: Optional[str] = None,
                 retry_policy: Optional[Mapping[str, Any]] = None,
                 execution_timeout_ms: Optional[int] = None) -> None:
        if not name or not version:
            raise ValueError("a function block needs a name and a version")
        if execution_timeout_ms is not None and (
                isinstance(execution_timeout_ms, bool) or not isinstance(execution_timeout_ms, int)
                or execution_timeout_ms < 1):
            raise ValueError(f"execution_timeout_ms must be a positive int, not {execution_timeout_ms!r}")
        if inspect.isclass(target):
            if not callable(getattr(target, "run", None)):
                raise TypeError(f"function block class {target.__name__} has no run(self, ctx, params) method")
        elif not callable(target):
            raise TypeError(f"@function_block needs a function or a class, not {target!r}")
        self.target = target
        self.name = name
        self.version = version
        self.pure = pure
        self.idempotent = idempotent
        self.params_schema = dict(params_schema) if params_schema is not None else None
        self.result_schema = dict(result_schema) if result_schema is not None else None
        self.description = description if description is not None else _first_line(inspect.getdoc(target))
        self.retry_policy = dict(retry_policy) if retry_policy is not None else None
        self.execution_timeout_ms = execution_timeout_ms

    @property
    def key(self) -> Tuple[str, str]:
        return (self.name, self.version)

    def spec(self) -> Dict[str, Any]:
        """The block as ``POST /function-blocks/register`` declares it."""
        spec: Dict[str, Any] = {"name": self.name, "version": self.version, "pure": self.pure,
                                "idempotent": self.idempotent}
        if self.params_schema is not None:
            spec["paramsJsonSchema"] = self.params_schema
        if self.result_schema is not None:
            spec["resultDataJsonSchema"] = self.result_schema
        if self.description:
            spec["description"] = self.description
        if self.retry_policy is not None:
            spec["retryPolicy"] = self.retry_policy
        if self.execution_timeout_ms is not None:
            spec["executionTimeoutMs"] = self.execution_timeout_ms
        return spec

    def handler(self, job_type: JobType) -> Handler:
        """The callable ``(ctx, params)`` for one job of this type."""
        if not inspect.isclass(self.target):
            if job_type is JobType.EXECUTE:
                return self.target
            return _default_acquire if job_type is JobType.ACQUIRE else self._default_rollback
        instance = self.target()
        method_name = {JobType.EXECUTE: "run", JobType.ACQUIRE: "acquire", JobType.ROLLBACK: "rollback"}[job_type]
        method = getattr(instance, method_name, None)
        if method is not None:
            return method
        return _default_acquire if job_type is JobType.ACQUIRE else self._default_rollback

    def _default_rollback(self, ctx: JobContext, params: Any) -> Failure:
        return Failure(f"rollback is not implemented by {self.name}@{self.version}", type="NotImplemented")

    def __repr__(self) -> str:
        return f"FunctionBlock({self.name!r}, {self.version!r}, pure={self.pure}, idempotent={self.idempotent})"


def _default_acquire(ctx: JobContext, params: Any) -> List[Any]:
    return []


def _first_line(doc: Optional[str]) -> Optional[str]:
    return doc.strip().splitlines()[0] if doc and doc.strip() else None


class Registry:
    """Function blocks by (name, version). ``@function_block`` fills the package's default registry;
    make your own and use ``@registry.function_block`` to keep blocks apart (tests, several workers)."""

    def __init__(self, blocks: Iterable[Any] = ()) -> None:
        self._blocks: Dict[Tuple[str, str], FunctionBlock] = {}
        for block in blocks:
            self.add(block)

    def add(self, block: Any) -> FunctionBlock:
        """Add a FunctionBlock or a decorated function or class; a (name, version) twice is an error."""
        fb = as_function_block(block)
        existing = self._blocks.get(fb.key)
        if existing is not None and existing.target is not fb.target:
            raise ValueError(f"function block {fb.name}@{fb.version} is defined twice "
                             f"({_describe(existing.target)} and {_describe(fb.target)})")
        self._blocks[fb.key] = fb
        return fb

    def function_block(self, name: str, version: str, *, pure: bool = False, idempotent: bool = False,
                       params_schema: Optional[Mapping[str, Any]] = None,
                       result_schema: Optional[Mapping[str, Any]] = None,
                       description: Optional[str] = None, retry_policy: Optional[Mapping[str, Any]] = None,
                       execution_timeout_ms: Optional[int] = None) -> Callable[[T], T]:
        """Decorator: declare a function (EXECUTE) or a class (run/acquire/rollback) as a function block."""

        def decorate(target: T) -> T:
            fb = FunctionBlock(target, name, version, pure=pure, idempotent=idempotent,
                               params_schema=params_schema, result_schema=result_schema, description=description,
                               retry_policy=retry_policy, execution_timeout_ms=execution_timeout_ms)
            setattr(target, _ATTRIBUTE, fb)
            self.add(fb)
            return target

        return decorate

    def get(self, name: str, version: str) -> Optional[FunctionBlock]:
        return self._blocks.get((name, version))

    def remove(self, name: str, version: str) -> None:
        self._blocks.pop((name, version), None)

    def clear(self) -> None:
        self._blocks.clear()

    def __iter__(self) -> Iterator[FunctionBlock]:
        return iter(list(self._blocks.values()))

    def __len__(self) -> int:
        return len(self._blocks)

    def __contains__(self, block: Any) -> bool:
        try:
            return as_function_block(block).key in self._blocks
        except TypeError:
            return False


def as_function_block(block: Any) -> FunctionBlock:
    """The FunctionBlock of a decorated function or class (or the FunctionBlock itself)."""
    if isinstance(block, FunctionBlock):
        return block
    fb = getattr(block, _ATTRIBUTE, None)
    if isinstance(fb, FunctionBlock):
        return fb
    raise TypeError(f"{block!r} is not a function block: decorate it with @function_block(name, version)")


def _describe(target: Any) -> str:
    return f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"


default_registry = Registry()


def function_block(name: str, version: str, *, pure: bool = False, idempotent: bool = False,
                   params_schema: Optional[Mapping[str, Any]] = None, result_schema: Optional[Mapping[str, Any]] = None,
                   description: Optional[str] = None, retry_policy: Optional[Mapping[str, Any]] = None,
                   execution_timeout_ms: Optional[int] = None) -> Callable[[T], T]:
    """Declare a function block in the default registry (what a Worker serves unless given ``blocks=``).

    On a function ``f(ctx, params)``: its EXECUTE handler (ACQUIRE answers no acquires, ROLLBACK a
    FAILURE "not implemented"). On a class with ``run(self, ctx, params)`` and optionally ``acquire``
    and ``rollback``: one instance per job. Handlers may be ``async def``. ``retry_policy`` and
    ``execution_timeout_ms`` are the defaults of the block's jobs (see :class:`FunctionBlock`).
    """
    return default_registry.function_block(name, version, pure=pure, idempotent=idempotent,
                                           params_schema=params_schema, result_schema=result_schema,
                                           description=description, retry_policy=retry_policy,
                                           execution_timeout_ms=execution_timeout_ms)


BlocksArg = Union[Registry, Iterable[Any], None]
