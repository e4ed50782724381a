"""Progress reports, failures with an error code for the retry policy, the engine's new create options, and
the job fields and statuses a newer server shows (all against the stub server, or without one)."""

import datetime
import threading
import time
import unittest

import _support  # noqa: F401
from stub_server import DROP, StubBlackboard, problem
from worker_case import WorkerCase

from blackboard_worker import EngineClient, Failure, JobFailed, Registry, job, retry_policy
from blackboard_worker.testing import make_context, run_job

PROGRESS = "POST /blackboard/job/progress"

# Every member a job gained with scheduling, retries, dead letters, timeouts and progress, and one to come.
NEW_FIELDS = {
    "scheduled": False, "runAt": "2026-11-22T03:00:00Z",
    "retryPolicy": {"maxAttempts": 3, "initialIntervalMs": 5000, "multiplier": 2.0, "maxIntervalMs": 300000,
                    "jitter": 0.0, "nonRetryableErrors": ["AUTH_*"], "onExhausted": "PARK"},
    "errors": [{"attempt": 1, "workerId": "w-0", "error": {"code": "TIMEOUT"}, "at": "2026-11-22T02:59:00Z"}],
    "executionTimeoutMs": 600000, "progressPercent": 40, "progressMessage": "copying config",
    "progressAt": "2026-11-22T02:59:30Z", "failureReason": None, "somethingNewer": {"x": [1]},
}


class Progress(WorkerCase):
    stub_options = {"progress_gap": 2.0}

    def run_one(self, handler, **job_fields):
        """Serves ``handler`` for one job; answers the job's id once the worker is done with it."""
        self.block()(handler)
        worker = self.worker().start()
        job_id = self.stub.add_job({"host": "r1"}, **job_fields)
        self.wait_until(lambda: worker.stats.get("jobs_claimed") == 1 and not worker.held_jobs)
        return worker, job_id

    def test_reports_go_to_the_held_claim_and_a_tight_loop_sends_one_report_and_the_final_100(self):
        answers = []

        def copy(ctx, params):
            answers.append(ctx.progress(10, "connecting"))
            answers.extend(ctx.progress(10 + i) for i in range(50))  # within 2 s: skipped here, no request
            answers.append(ctx.progress(100, "done"))  # always sent; the server records it only 2 s after the last
            return {"ok": True}

        worker, job_id = self.run_one(copy)
        reports = self.stub.calls_to(PROGRESS)
        me = worker.worker_id
        self.assertEqual([{"jobId": job_id, "workerId": me, "attempt": 1, "percent": 10, "message": "connecting"},
                          {"jobId": job_id, "workerId": me, "attempt": 1, "percent": 100, "message": "done"}],
                         [c.body for c in reports])
        self.assertEqual([True] + [False] * 50 + [False], answers)
        self.assertEqual("bbw_1", reports[0].token)
        self.assertEqual((10, "connecting"), (self.stub.jobs[job_id]["progressPercent"],
                                             self.stub.jobs[job_id]["progressMessage"]))
        self.assertEqual("SUCCESS", self.stub.jobs[job_id]["outcome"], "recorded: false is no error")
        self.assertEqual((2, 1), (worker.stats["progress_reports"], worker.stats["progress_recorded"]))

    def test_a_report_refused_409_cancels_the_job_as_a_ping_would_and_nothing_is_pushed(self):
        seen = []

        def long(ctx, params):
            ctx.sleep(5)  # until the engine's cancel reaches us, by the progress answer (the pings do not say)
            return {"too": "late"}

        def reporting(ctx, params):
            self.stub.wait_for(lambda: self.stub.jobs[ctx.job_id]["outcome"] == "CANCELLED")
            seen.append((ctx.progress(50, "halfway"), ctx.is_cancelled))
            seen.append(ctx.progress(60))  # a cancelled job reports nothing more
            return long(ctx, params)

        self.block()(reporting)
        worker = self.worker().start()
        job_id = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[job_id]["status"] == "POLLED")
        with EngineClient(self.stub.url) as engine:
            engine.cancel_job(job_id)  # the stub tells no ping: only the report finds out
        self.wait_until(lambda: worker.stats.get("jobs_cancelled") == 1)
        self.assertEqual([(False, True), False], seen)
        self.assertEqual(1, len(self.stub.calls_to(PROGRESS)))
        self.assertEqual(409, self.stub.calls_to(PROGRESS)[0].status)
        self.assertEqual([], self.stub.pushes(job_id))
        self.assertEqual(1, worker.stats["progress_conflicts"])

    def test_a_job_or_worker_the_server_does_not_know_cancels_the_job_and_the_ping_registers_again(self):
        seen = []

        @self.block()
        def report(ctx, params):
            if params == "gone-job":
                with self.stub.cond:
                    del self.stub.jobs[ctx.job_id]
            else:
                self.stub.delete_worker(ctx.worker_id)
            seen.append((params, ctx.progress(1), ctx.is_cancelled))
            return {}

        worker = self.worker().start()
        first = self.stub.add_job("gone-job")
        self.wait_until(lambda: seen)
        self.stub.add_job("gone-worker")
        self.wait_until(lambda: worker.stats.get("reregistrations") == 1)
        self.assertEqual([("gone-job", False, True), ("gone-worker", False, True)], seen)
        self.assertEqual([(404, "/problems/job-not-found"), (404, "/problems/worker-not-found")],
                         [(c.status, c.answer["type"]) for c in self.stub.calls_to(PROGRESS)])
        self.assertEqual([], self.stub.pushes(first))
        self.wait_until(lambda: worker.stats.get("jobs_cancelled") == 2)

    def test_a_server_without_progress_gets_no_more_reports_and_the_job_goes_on(self):
        for status, kind in ((404, "not-found"), (403, "forbidden")):  # a replica that does not know the path
            with self.subTest(status=status):
                self.stub.script(PROGRESS, problem(status, kind))
                answers = []

                @self.block("old", str(status))
                def report(ctx, params):
                    answers.extend([ctx.progress(5), ctx.progress(6), ctx.is_cancelled])
                    return {}

                worker = self.worker(blocks=[report]).start()
                job_id = self.stub.add_job(block=f"old@{status}")
                self.stub.wait_for(lambda: self.stub.jobs[job_id]["status"] == "PUSHED")
                self.assertEqual([False, False, False], answers)
                self.assertEqual(1, len([c for c in self.stub.calls_to(PROGRESS) if c.body["jobId"] == job_id]))
                self.assertEqual("SUCCESS", self.stub.jobs[job_id]["outcome"])
                worker.close()

    def test_a_busy_or_unreachable_server_records_nothing_and_cancels_nothing(self):
        # the handler thread's first request: on a new connection, so one DROP is one I/O error
        self.stub.script(PROGRESS, DROP, problem(503, "overloaded", retry_after=1))
        answers = []

        def report(ctx, params):
            answers.extend([ctx.progress(1), ctx.progress(2), ctx.progress(3), ctx.is_cancelled])
            return {}

        worker, job_id = self.run_one(report)
        self.assertEqual([False, False, True, False], answers)
        self.assertEqual("SUCCESS", self.stub.jobs[job_id]["outcome"])
        self.assertEqual(2, worker.stats["progress_errors"])


class Retries(WorkerCase):
    def test_job_failed_carries_its_code_and_retryable_onto_the_error_and_a_plain_exception_does_not(self):
        @self.block()
        def fail(ctx, params):
            if params == "auth":
                raise JobFailed("device rejected our credentials", code="AUTH_FAILED", retryable=False,
                                details={"host": "r1"})
            if params == "busy":
                raise JobFailed("device busy", code="BUSY")
            if params == "returned":
                return Failure("no route", type="Unreachable", code="NO_ROUTE", retryable=False)
            raise ConnectionError("reset")

        self.worker(concurrency=4).start()
        jobs = {name: self.stub.add_job(name) for name in ("auth", "busy", "returned", "plain")}
        self.stub.wait_for(lambda: all(self.stub.jobs[j]["status"] == "PUSHED" for j in jobs.values()))
        errors = {name: self.stub.pushes(j)[0].body["error"] for name, j in jobs.items()}
        self.assertEqual({"type": "blackboard_worker.errors.JobFailed", "message": "device rejected our credentials",
                          "host": "r1", "code": "AUTH_FAILED", "retryable": False},
                         {k: v for k, v in errors["auth"].items() if k != "traceback"})
        self.assertIn("in fail", errors["auth"]["traceback"])
        self.assertEqual(("BUSY", False), (errors["busy"]["code"], "retryable" in errors["busy"]))
        self.assertEqual({"type": "Unreachable", "message": "no route", "code": "NO_ROUTE", "retryable": False},
                         errors["returned"])
        self.assertEqual({"type", "message", "traceback"}, set(errors["plain"]), "unchanged for plain exceptions")

    def test_a_failure_the_policy_retries_is_done_and_the_job_comes_back_as_the_next_attempt(self):
        attempts = []

        @self.block()
        def flaky(ctx, params):
            attempts.append(ctx.attempt)
            if ctx.attempt == 1:
                raise JobFailed("device busy", code="BUSY")
            return {"attempt": ctx.attempt}

        worker = self.worker().start()
        job_id = self.stub.add_job(retryPolicy={"maxAttempts": 3})
        self.stub.wait_for(lambda: self.stub.jobs[job_id]["status"] == "PUSHED")
        first, second = self.stub.pushes(job_id)
        self.assertEqual(("FAILURE", 1, 200), (first.body["status"], first.body["attempt"], first.status))
        self.assertEqual("PENDING", first.answer["status"], "answered with the job waiting for its retry")
        self.assertTrue(first.answer["scheduled"])
        self.assertEqual(("SUCCESS", 2), (second.body["status"], second.body["attempt"]))
        self.assertEqual([1, 2], attempts)
        self.wait_until(lambda: worker.stats.get("pushes") == 2)
        self.assertEqual((1, 1, 0), (worker.stats["jobs_failed"], worker.stats["jobs_succeeded"],
                                     worker.stats.get("push_retries", 0)))

    def test_a_final_failure_that_parks_is_done_too(self):
        self.block()(lambda ctx, params: Failure("bad password", code="AUTH_FAILED"))  # matches AUTH_*
        worker = self.worker().start()
        job_id = self.stub.add_job(retryPolicy={"maxAttempts": 3, "nonRetryableErrors": ["AUTH_*"],
                                                "onExhausted": "PARK"})
        self.stub.wait_for(lambda: self.stub.jobs[job_id]["status"] == "PARKED")
        self.wait_until(lambda: not worker.held_jobs)
        time.sleep(0.1)
        [push] = self.stub.pushes(job_id)
        self.assertEqual((200, "PARKED"), (push.status, push.answer["status"]))
        self.assertEqual(1, worker.stats["pushes"])
        later = self.stub.add_job()  # the slot is free again
        self.stub.wait_for(lambda: self.stub.jobs[later]["status"] in ("PUSHED", "PARKED"))


class RetriesOnAnOldPushPath(WorkerCase):
    stub_options = {"api_version": "1"}

    def test_a_single_push_answered_with_the_job_pending_or_parked_is_done(self):
        self.block()(lambda ctx, params: Failure("busy", code="BUSY", retryable=params != "park"))
        worker = self.worker().start()
        retried = self.stub.add_job("retry", retryPolicy={"maxAttempts": 2})
        parked = self.stub.add_job("park", retryPolicy={"onExhausted": "PARK"})
        self.stub.wait_for(lambda: self.stub.jobs[retried]["status"] == "PUSHED"
                           and self.stub.jobs[parked]["status"] == "PARKED")
        self.assertEqual(["PENDING", "PUSHED"], [c.answer["status"] for c in self.stub.pushes(retried)])
        self.assertEqual(["PARKED"], [c.answer["status"] for c in self.stub.pushes(parked)])
        self.wait_until(lambda: worker.stats.get("pushes") == 3)
        self.assertNotIn("push_retries", worker.stats)


class NewJobFields(WorkerCase):
    def test_a_claimed_job_with_every_new_field_runs_as_any(self):
        seen = {}

        @self.block()
        def look(ctx, params):
            seen.update(ctx.job)
            return {"policy": ctx.job["retryPolicy"]["onExhausted"]}

        self.worker().start()
        job_id = self.stub.add_job({"host": "r1"}, **NEW_FIELDS)
        self.stub.wait_for(lambda: self.stub.pushes(job_id))
        self.assertEqual({"policy": "PARK"}, self.stub.pushes(job_id)[0].body["result"])
        self.assertEqual(600000, seen["executionTimeoutMs"])

    def test_the_engine_reads_a_parked_job_and_waits_for_it_as_for_an_ended_one(self):
        job_id = self.stub.add_job({"host": "r1"}, **NEW_FIELDS)
        self.stub.jobs[job_id].update(status="PARKED", attempt=3, error={"code": "AUTH_FAILED"})
        with EngineClient(self.stub.url) as engine:
            read = engine.get_job(job_id)
            waited = engine.wait_for_job(job_id, timeout=2)
        self.assertEqual(("PARKED", 40, "AUTH_*"), (read["status"], read["progressPercent"],
                                                     read["retryPolicy"]["nonRetryableErrors"][0]))
        self.assertEqual("PARKED", waited["status"])


class EngineCreateOptions(unittest.TestCase):
    def setUp(self):
        self.stub = StubBlackboard().start()
        self.addCleanup(self.stub.stop)
        self.engine = EngineClient(self.stub.url)
        self.addCleanup(self.engine.close)

    def test_scheduling_retries_timeout_and_a_block_by_name_and_version_range(self):
        at = datetime.datetime(2026, 11, 22, 3, 0, tzinfo=datetime.timezone.utc)
        policy = retry_policy(max_attempts=5, initial_interval_ms=1000, multiplier=2.0, max_interval_ms=60000,
                              jitter=0.2, non_retryable_errors=("AUTH_*", "CONFIG"), on_exhausted="PARK")
        self.engine.create_job(function_block_name="echo", function_block_version="^1.2", payload={"host": "r1"},
                               run_at=at, retry_policy=policy, execution_timeout_ms=600000)
        self.engine.create_jobs([job("fb-echo@1", delay_ms=30000), job("fb-echo@1", run_at="2026-11-22T03:00:00Z")])
        one, batch = (c.body for c in self.stub.calls_to("POST /blackboard/jobs"))
        self.assertEqual({"type": "EXECUTE", "payload": {"host": "r1"}, "functionBlockName": "echo",
                          "functionBlockVersion": "^1.2", "runAt": "2026-11-22T03:00:00+00:00",
                          "retryPolicy": {"maxAttempts": 5, "initialIntervalMs": 1000, "multiplier": 2.0,
                                          "maxIntervalMs": 60000, "jitter": 0.2,
                                          "nonRetryableErrors": ["AUTH_*", "CONFIG"], "onExhausted": "PARK"},
                          "executionTimeoutMs": 600000}, one)
        self.assertEqual([{"type": "EXECUTE", "functionBlockId": "fb-echo@1", "delayMs": 30000},
                          {"type": "EXECUTE", "functionBlockId": "fb-echo@1", "runAt": "2026-11-22T03:00:00Z"}], batch)
        self.assertEqual({}, retry_policy(), "nothing given: every field the server's default")

    def test_contradictions_are_refused_before_sending(self):
        for kwargs in ({"function_block_id": "fb-1", "function_block_name": "echo"}, {},
                       {"function_block_id": "fb-1", "function_block_version": "1"},
                       {"function_block_id": "fb-1", "run_at": "2026-11-22T03:00:00Z", "delay_ms": 5},
                       {"function_block_id": "fb-1", "retry": 3}):
            with self.subTest(kwargs=kwargs), self.assertRaises(TypeError):
                job(**kwargs)
        with self.assertRaises(ValueError):
            job("fb-1", run_at=datetime.datetime(2026, 11, 22, 3, 0))  # naive: whose 3 o'clock?
        with self.assertRaises(TypeError):
            retry_policy(max_attempt=3)
        self.assertEqual([], self.stub.calls_to("POST /blackboard/jobs"))


class BlockDefaults(unittest.TestCase):
    def test_a_block_declares_its_jobs_default_retry_policy_and_execution_timeout(self):
        registry = Registry()

        @registry.function_block("backup", "2", retry_policy=retry_policy(max_attempts=4, on_exhausted="PARK"),
                                  execution_timeout_ms=900000)
        def backup(ctx, params):
            return {}

        [block] = list(registry)
        self.assertEqual({"name": "backup", "version": "2", "pure": False, "idempotent": False,
                          "retryPolicy": {"maxAttempts": 4, "onExhausted": "PARK"}, "executionTimeoutMs": 900000},
                         block.spec())
        for bad in (0, -5, 1.5, True):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                registry.function_block("bad", str(bad), execution_timeout_ms=bad)(lambda ctx, params: None)


class ProgressWithoutAServer(unittest.TestCase):
    def test_run_job_shows_what_the_server_would_have_recorded(self):
        def copy(ctx, params):
            for n in range(0, 100, 10):
                ctx.progress(n, f"{n} files")
            ctx.progress(100, "done")
            return {}

        self.assertEqual([(0, "0 files"), (100, "done")], run_job(copy, {}).progress)

    def test_the_throttle_lets_a_report_through_two_seconds_after_the_last_recorded_one(self):
        reports, now = [], [1000.0]
        ctx = make_context(on_progress=lambda percent, message: reports.append(percent))
        ctx._clock = lambda: now[0]
        self.assertTrue(ctx.progress(1))
        now[0] += 1.9
        self.assertFalse(ctx.progress(2))
        now[0] += 0.1
        self.assertTrue(ctx.progress(3))
        self.assertTrue(ctx.progress(100))  # never held back
        self.assertEqual([1, 3, 100], reports)

    def test_a_report_not_recorded_does_not_start_the_two_seconds(self):
        answers = iter([False, True])
        ctx = make_context(on_progress=lambda percent, message: next(answers))
        self.assertEqual([False, True], [ctx.progress(1), ctx.progress(2)])

    def test_percent_and_message_are_checked_and_cut_to_the_servers_limits(self):
        reports = []
        ctx = make_context(on_progress=lambda percent, message: reports.append((percent, message)))
        for bad in (-1, 101, True, "50", float("nan")):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                ctx.progress(bad)
        ctx.progress(99.9, "😀" * 150)  # 300 UTF-16 units: the server counts those
        self.assertEqual([(99, "😀" * 100)], reports)
        ctx.cancelled.set()
        self.assertFalse(ctx.progress(100))
        self.assertEqual(1, len(reports))

    def test_a_context_without_a_reporter_reports_nothing(self):
        from blackboard_worker import JobContext, JobType
        ctx = JobContext(job_id="j", attempt=1, type=JobType.EXECUTE, function_block="b", version="1")
        self.assertFalse(ctx.progress(50))

    def test_concurrent_reports_of_one_job_send_one(self):
        reports = []
        ctx = make_context(on_progress=lambda percent, message: reports.append(percent) or time.sleep(0.05))
        threads = [threading.Thread(target=ctx.progress, args=(n,)) for n in range(1, 9)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(1, len(reports))


if __name__ == "__main__":
    unittest.main()
