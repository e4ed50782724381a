"""The @function_block registry and the serverless test helper (blackboard_worker.testing)."""

import asyncio
import threading
import unittest

import _support  # noqa: F401

import blackboard_worker
from blackboard_worker import Failure, FunctionBlock, JobCancelled, JobType, Registry, Result, function_block
from blackboard_worker.testing import make_context, run_job


class Decorator(unittest.TestCase):
    def setUp(self):
        self.registry = Registry()

    def test_a_decorated_function_stays_a_function_and_declares_its_contract(self):
        @self.registry.function_block("ping", "1.0.0", pure=True, params_schema={"type": "object"},
                                      result_schema={"type": "object"})
        def ping(ctx, params):
            """Checks that a device answers."""
            return {"rtt_ms": 3}

        self.assertEqual({"rtt_ms": 3}, ping(None, {}))
        [block] = list(self.registry)
        self.assertEqual({"name": "ping", "version": "1.0.0", "pure": True, "idempotent": False,
                          "paramsJsonSchema": {"type": "object"}, "resultDataJsonSchema": {"type": "object"},
                          "description": "Checks that a device answers."}, block.spec())
        self.assertIn(ping, self.registry)
        self.assertIs(block, self.registry.get("ping", "1.0.0"))

    def test_a_class_needs_run_and_gets_one_instance_per_job(self):
        instances = []

        @self.registry.function_block("backup", "2")
        class Backup:
            def __init__(self):
                instances.append(self)

            def run(self, ctx, params):
                return {"me": id(self)}

        first, second = run_job(Backup, {}), run_job(Backup, {})
        self.assertNotEqual(first.result, second.result)
        self.assertEqual(2, len(instances))
        with self.assertRaises(TypeError):
            self.registry.function_block("norun", "1")(type("NoRun", (), {}))

    def test_the_same_name_and_version_twice_is_an_error(self):
        self.registry.function_block("dup", "1")(lambda ctx, params: None)
        with self.assertRaises(ValueError):
            self.registry.function_block("dup", "1")(lambda ctx, params: None)
        self.registry.function_block("dup", "2")(lambda ctx, params: None)
        self.assertEqual(2, len(self.registry))

    def test_the_package_decorator_fills_the_default_registry(self):
        @function_block("default-registry-test", "1")
        def f(ctx, params):
            return None

        self.addCleanup(blackboard_worker.default_registry.remove, "default-registry-test", "1")
        self.assertIn(f, blackboard_worker.default_registry)
        self.assertNotIn(f, self.registry)

    def test_undecorated_objects_are_refused_clearly(self):
        with self.assertRaises(TypeError) as raised:
            Registry([lambda ctx, params: None])
        self.assertIn("@function_block", str(raised.exception))

    def test_defaults_acquire_nothing_and_rollback_fails_as_not_implemented(self):
        @self.registry.function_block("plain", "1")
        def plain(ctx, params):
            return {"ran": True}

        @self.registry.function_block("cls", "1")
        class OnlyRun:
            def run(self, ctx, params):
                return {}

        for target in (plain, OnlyRun):
            with self.subTest(target=target):
                acquired = run_job(target, {}, type="ACQUIRE")
                self.assertEqual(("SUCCESS", []), (acquired.status, acquired.acquires))
                rolled_back = run_job(target, {}, type=JobType.ROLLBACK)
                self.assertEqual("FAILURE", rolled_back.status)
                self.assertEqual("NotImplemented", rolled_back.error["type"])


class TestHelper(unittest.TestCase):
    def test_success_failure_and_explicit_outcomes(self):
        self.assertEqual({"a": 1}, run_job(lambda ctx, params: {"a": params}, 1).result)
        failed = run_job(lambda ctx, params: Failure("device busy", type="Busy", details={"retryIn": 5}), None)
        self.assertEqual(("FAILURE", {"type": "Busy", "message": "device busy", "retryIn": 5}),
                         (failed.status, failed.error))
        explicit = run_job(lambda ctx, params: Result({"x": 1}, db_updates=[{"op": "patch"}]), None)
        self.assertEqual(({"x": 1}, [{"op": "patch"}]), (explicit.result, explicit.db_updates))
        body = explicit.push_body()
        self.assertEqual(("SUCCESS", {"x": 1}, [{"op": "patch"}], 1),
                         (body["status"], body["result"], body["dbUpdates"], body["attempt"]))

    def test_an_exception_is_a_structured_failure_with_a_bounded_traceback(self):
        def deep(n):  # two functions in turn: Python folds only identical consecutive frames
            if n == 0:
                raise KeyError("host")
            return deeper(n - 1)

        def deeper(n):
            return deep(n)

        outcome = run_job(lambda ctx, params: deep(200), None)
        self.assertEqual("FAILURE", outcome.status)
        self.assertEqual("KeyError", outcome.error["type"])
        self.assertEqual("'host'", outcome.error["message"])
        self.assertLessEqual(len(outcome.error["traceback"]), 8100)
        self.assertTrue(outcome.error["traceback"].startswith("...(truncated)"))
        self.assertIn("KeyError: 'host'", outcome.error["traceback"])
        self.assertIsInstance(outcome.exception, KeyError)

    def test_a_result_that_is_not_json_is_a_failure(self):
        outcome = run_job(lambda ctx, params: {"when": object()}, None)
        self.assertEqual(("FAILURE", "ResultNotJson"), (outcome.status, outcome.error["type"]))

    def test_cancel_after_sets_the_flag_and_the_outcome_is_cancelled(self):
        def waits(ctx, params):
            if ctx.sleep(5):
                raise JobCancelled()
            return {}

        outcome = run_job(waits, None, cancel_after=0.05)
        self.assertTrue(outcome.cancelled)
        self.assertIsNone(outcome.push_body())
        returning = run_job(lambda ctx, params: ctx.cancelled.wait(5) and {"late": True}, None, cancel_after=0.05)
        self.assertTrue(returning.cancelled, "a cancelled job's result is never pushed")

    def test_async_handlers(self):
        async def fetch(ctx, params):
            await asyncio.sleep(0.01)
            return {"loop": True, "thread": threading.current_thread().name}

        self.assertEqual("SUCCESS", run_job(fetch, None).status)

        async def cancellable(ctx, params):
            if await ctx.async_sleep(5):
                ctx.raise_if_cancelled()
            return {}

        self.assertTrue(run_job(cancellable, None, cancel_after=0.05).cancelled)

    def test_the_context(self):
        seen = {}

        def look(ctx, params):
            seen.update(job_id=ctx.job_id, attempt=ctx.attempt, type=ctx.type, correlation=ctx.correlation_id,
                        block=(ctx.function_block, ctx.version), params=ctx.params)
            ctx.logger.info("hello")
            return None

        block = FunctionBlock(look, "look", "3")
        with self.assertLogs("blackboard_worker.job.look") as logs:
            run_job(block, {"host": "r1"}, type="EXECUTE", attempt=2, job_id="j-1", correlation_id="wf-1")
        self.assertEqual({"job_id": "j-1", "attempt": 2, "type": JobType.EXECUTE, "correlation": "wf-1",
                          "block": ("look", "3"), "params": {"host": "r1"}}, seen)
        self.assertIn("[job j-1 attempt 2] hello", logs.output[0])
        self.assertEqual("j-1", logs.records[0].job_id)

    def test_make_context_for_calling_a_handler_directly(self):
        ctx = make_context(params={"host": "r1"}, type="ROLLBACK")
        self.assertEqual(JobType.ROLLBACK, ctx.type)
        self.assertFalse(ctx.is_cancelled)
        ctx.cancelled.set()
        with self.assertRaises(JobCancelled):
            ctx.raise_if_cancelled()


if __name__ == "__main__":
    unittest.main()
