"""The worker against a stub server: what it does for each answer of register, ping, poll and push."""

import asyncio
import threading
import time
import unittest

import _support  # noqa: F401
from stub_server import DROP, Reply, problem
from worker_case import WorkerCase

from blackboard_worker import (FatalConfigurationError, JobCancelled, Registry, Result, StopReason, WorkerExpiredError,
                               WorkerState)


class Registration(WorkerCase):
    def test_registers_itself_then_its_blocks_then_pings_and_polls_with_its_own_token(self):
        @self.block("echo", "1", idempotent=True, params_schema={"type": "object"}, result_schema={"type": "object"})
        def echo(ctx, params):
            return params

        worker = self.worker(labels={"site": "a"}, concurrency=2).start()
        self.stub.wait_for(lambda: self.stub.calls_to("POST /blackboard/job") and self.stub.calls_to("POST /workers/*/ping"))
        register, blocks = self.stub.calls[0], self.stub.calls[1]
        self.assertEqual("POST /workers/register", register.route)
        self.assertEqual("dev-worker-token", register.token)
        self.assertEqual({"site": "a"}, register.body["labels"])
        self.assertEqual(2, register.body["concurrency"])
        self.assertEqual("blackboard-python", register.body["sdkName"])
        self.assertEqual("0.1.0", register.body["sdkVersion"])
        self.assertEqual("POST /function-blocks/register", blocks.route)
        self.assertEqual(worker.worker_id, blocks.body["workerId"])
        self.assertEqual([{"name": "echo", "version": "1", "pure": False, "idempotent": True,
                           "paramsJsonSchema": {"type": "object"}, "resultDataJsonSchema": {"type": "object"}}],
                         blocks.body["functionBlocks"])
        later = self.stub.calls[1:]
        self.assertTrue(all(c.token == "bbw_1" for c in later), later)
        self.assertEqual(WorkerState.RUNNING, worker.state)

    def test_a_refused_enrolment_token_fails_fast_without_retrying(self):
        self.block()(lambda ctx, params: None)
        for status in (401, 403):
            with self.subTest(status=status):
                self.stub.script("POST /workers/register", problem(status, "unauthorized", "unknown token"))
                worker = self.worker(retry_base_delay=1.0)
                started = time.monotonic()
                with self.assertRaises(FatalConfigurationError) as raised:
                    worker.start()
                self.assertLess(time.monotonic() - started, 1.0)
                self.assertIn(str(status), str(raised.exception))
                self.assertIn("BLACKBOARD_WORKER_TOKEN", str(raised.exception))
                self.assertEqual(WorkerState.STOPPED, worker.state)
        self.assertEqual(2, len(self.stub.calls_to("POST /workers/register")))

    def test_run_raises_the_fatal_error(self):
        self.stub.script("POST /workers/register", problem(401, "unauthorized"))
        self.block()(lambda ctx, params: None)
        with self.assertRaises(FatalConfigurationError):
            self.worker().run()

    def test_server_errors_and_lost_connections_on_registration_are_retried(self):
        self.stub.script("POST /workers/register", problem(503, "database-unavailable", retry_after=0), DROP,
                         problem(500, "internal"))
        self.stub.script("POST /function-blocks/register", problem(503, "overloaded", retry_after=0))
        self.block()(lambda ctx, params: None)
        worker = self.worker().start()
        self.assertEqual("w-1", worker.worker_id)
        self.assertEqual(4, len(self.stub.calls_to("POST /workers/register")))
        self.assertEqual(2, len(self.stub.calls_to("POST /function-blocks/register")))

    def test_a_server_that_predates_sdk_fields_gets_a_registration_without_them(self):
        self.stub.script("POST /workers/register",
                         problem(400, "unknown-field", "sdkName is not a field", field="sdkName"))
        self.block()(lambda ctx, params: None)
        self.worker().start()
        first, second = self.stub.calls_to("POST /workers/register")
        self.assertIn("sdkName", first.body)
        self.assertNotIn("sdkName", second.body)
        self.assertNotIn("sdkVersion", second.body)

    def test_a_function_block_conflict_is_fatal(self):
        self.stub.script("POST /function-blocks/register", problem(409, "function-block-conflict", "other schema"))
        self.block()(lambda ctx, params: None)
        with self.assertRaises(FatalConfigurationError) as raised:
            self.worker().start()
        self.assertIn("new version", str(raised.exception))

    def test_a_worker_without_function_blocks_is_refused(self):
        with self.assertRaises(ValueError):
            self.worker().start()


class Jobs(WorkerCase):
    def test_a_result_is_pushed_with_the_claims_attempt(self):
        seen = []

        @self.block()
        def echo(ctx, params):
            seen.append((ctx.job_id, ctx.attempt, ctx.type.value, ctx.function_block, ctx.correlation_id))
            return {"echo": params}

        self.worker().start()
        job = self.stub.add_job({"x": 1})
        self.stub.wait_for(lambda: self.stub.pushes(job))
        push = self.stub.pushes(job)[0].body
        self.assertEqual({"jobId": job, "workerId": "w-1", "attempt": 1, "status": "SUCCESS",
                          "result": {"echo": {"x": 1}}}, push)
        self.assertEqual([(job, 1, "EXECUTE", "echo", "corr-1")], seen)

    def test_each_job_type_reaches_its_method(self):
        @self.block()
        class Block:
            def run(self, ctx, params):
                return {"ran": True}

            def acquire(self, ctx, params):
                return [{"resource": "r1"}]

            def rollback(self, ctx, params):
                return Result({"rolledBack": True}, db_updates=[{"op": "delete"}])

        self.worker(concurrency=3).start()
        jobs = {t: self.stub.add_job(type=t) for t in ("EXECUTE", "ACQUIRE", "ROLLBACK")}
        self.stub.wait_for(lambda: len(self.stub.pushes()) == 3)
        bodies = {t: self.stub.pushes(j)[0].body for t, j in jobs.items()}
        self.assertEqual({"ran": True}, bodies["EXECUTE"]["result"])
        self.assertEqual([{"resource": "r1"}], bodies["ACQUIRE"]["acquires"])
        self.assertNotIn("result", bodies["ACQUIRE"])
        self.assertEqual({"rolledBack": True}, bodies["ROLLBACK"]["result"])
        self.assertEqual([{"op": "delete"}], bodies["ROLLBACK"]["dbUpdates"])

    def test_an_exception_becomes_a_failure_with_a_structured_error(self):
        @self.block()
        def broken(ctx, params):
            raise ConnectionRefusedError("device r1 refused SSH")

        self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.pushes(job))
        body = self.stub.pushes(job)[0].body
        self.assertEqual("FAILURE", body["status"])
        self.assertEqual("ConnectionRefusedError", body["error"]["type"])
        self.assertEqual("device r1 refused SSH", body["error"]["message"])
        self.assertIn("in broken", body["error"]["traceback"])

    def test_async_handlers_run_in_their_own_event_loop(self):
        loops = []

        @self.block()
        async def fetch(ctx, params):
            loops.append(asyncio.get_running_loop())
            await asyncio.sleep(0.01)
            return {"thread": threading.current_thread().name}

        self.worker(concurrency=2).start()
        jobs = [self.stub.add_job() for _ in range(2)]
        self.stub.wait_for(lambda: all(self.stub.pushes(j) for j in jobs))
        self.assertTrue(all(self.stub.pushes(j)[0].body["result"]["thread"].startswith("blackboard-job-")
                            for j in jobs))
        self.assertEqual(2, len(set(map(id, loops))))

    def test_concurrency_is_never_exceeded_and_polls_ask_only_for_free_slots(self):
        running, peak, lock = [0], [0], threading.Lock()

        @self.block()
        def work(ctx, params):
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            time.sleep(0.02)
            with lock:
                running[0] -= 1
            return {}

        self.worker(concurrency=3).start()
        jobs = [self.stub.add_job() for _ in range(20)]
        self.stub.wait_for(lambda: all(self.stub.pushes(j) for j in jobs), timeout=10)
        self.assertLessEqual(peak[0], 3)
        limits = [c.body["limit"] for c in self.stub.calls_to("POST /blackboard/job")]
        self.assertTrue(all(1 <= limit <= 3 for limit in limits), limits)

    def test_no_poll_while_every_slot_is_busy(self):
        started, release = threading.Event(), threading.Event()

        @self.block()
        def slow(ctx, params):
            started.set()
            release.wait(5)
            return {}

        self.worker(concurrency=1, poll_wait=0.05).start()
        self.stub.add_job()
        self.assertTrue(started.wait(2))
        polls = len(self.stub.calls_to("POST /blackboard/job"))
        time.sleep(0.3)
        self.assertEqual(polls, len(self.stub.calls_to("POST /blackboard/job")))
        release.set()
        self.stub.wait_for(lambda: len(self.stub.calls_to("POST /blackboard/job")) > polls)

    def test_ping_lists_every_held_job(self):
        release = threading.Event()
        self.block()(lambda ctx, params: release.wait(5) and {})
        self.worker(concurrency=2).start()
        jobs = [self.stub.add_job(), self.stub.add_job()]
        self.stub.wait_for(lambda: any(sorted((c.body or {}).get("activeJobIds") or []) == sorted(jobs)
                                       for c in self.stub.calls if c.route == "POST /workers/*/ping"))
        release.set()
        self.stub.wait_for(lambda: all(self.stub.pushes(j) for j in jobs))


class PushesToAnOldServer(WorkerCase):
    """API 1 (no POST /blackboard/job/next): each result goes to POST /blackboard/job/result."""

    stub_options = {"api_version": "1"}

    def test_a_busy_worker_pushes_to_result_and_polls(self):
        for new_fields in (True, False):  # apiVersion "1", and a server older still that does not say it
            with self.subTest(new_fields=new_fields):
                self.stub.new_fields = new_fields
                self.block()(lambda ctx, params: {"n": params})
                worker = self.worker().start()
                jobs = [self.stub.add_job(i) for i in range(3)]
                self.stub.wait_for(lambda: all(self.stub.pushes(j) for j in jobs))
                worker.close()
                self.assertEqual([], self.stub.nexts())
                self.assertEqual([200] * 3, [self.stub.pushes(j)[0].status for j in jobs])
                self.assertEqual(["POST /blackboard/job/result"] * 3, [self.stub.pushes(j)[0].route for j in jobs])
                self.registry = Registry()

    def test_a_lost_connection_or_server_error_sends_the_same_body_again_while_the_ping_keeps_the_lease(self):
        self.block()(lambda ctx, params: {"lines": 120})
        lease_kept = []

        def unavailable_until_pinged(call):
            lease_kept.append(self.stub.wait_for(lambda: self.stub.pinged_with(call.body["jobId"], after=call.at)))
            return problem(503, "database-unavailable", retry_after=0)

        self.stub.script("POST /blackboard/job/result", DROP, DROP, unavailable_until_pinged,
                         problem(500, "internal"))
        worker = self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[job]["status"] == "PUSHED")
        bodies = [c.body for c in self.stub.pushes(job)]
        self.assertGreaterEqual(len(bodies), 5)
        self.assertTrue(all(b == bodies[0] for b in bodies), bodies)
        self.assertEqual([True], lease_kept)
        self.assertGreaterEqual(worker.stats["push_retries"], 4)

    def test_retry_after_on_a_push_is_honoured(self):
        self.block()(lambda ctx, params: {})
        self.stub.script("POST /blackboard/job/result", problem(503, "overloaded", retry_after=1))
        self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: len(self.stub.pushes(job)) == 2, timeout=5)
        first, second = self.stub.pushes(job)
        self.assertGreaterEqual(second.at - first.at, 1.0)

    def test_a_409_drops_the_result_and_counts_it(self):
        self.block()(lambda ctx, params: {})
        self.stub.script("POST /blackboard/job/result", problem(409, "job-not-held", jobStatus="PUSHED"))
        worker = self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.pushes(job))
        self.wait_until(lambda: worker.stats.get("push_conflicts") == 1)
        self.wait_until(lambda: not worker.held_jobs)
        time.sleep(0.1)
        self.assertEqual(1, len(self.stub.pushes(job)))

    def test_a_422_pushes_a_failure_with_the_violations(self):
        self.block(result_schema={"type": "object"})(lambda ctx, params: "not an object")
        self.stub.script("POST /blackboard/job/result",
                         problem(422, "schema-violation", "result: $: string found, object expected",
                                 field="result", violations=["$: string found, object expected"]))
        self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: len(self.stub.pushes(job)) == 2)
        first, second = (c.body for c in self.stub.pushes(job))
        self.assertEqual(("SUCCESS", "not an object"), (first["status"], first["result"]))
        self.assertEqual("FAILURE", second["status"])
        self.assertEqual(1, second["attempt"])
        self.assertEqual("ResultSchemaViolation", second["error"]["type"])
        self.assertEqual(["$: string found, object expected"], second["error"]["violations"])


NEXT = "POST /blackboard/job/next"
POLL = "POST /blackboard/job"


class Next(WorkerCase):
    """API 1.1: a finished job's push goes to POST /blackboard/job/next and brings the slot's next job."""

    def test_a_busy_worker_makes_one_round_trip_per_job(self):
        ran = []

        @self.block()
        def echo(ctx, params):
            ran.append(ctx.job_id)
            return {"n": params}

        jobs = [self.stub.add_job(i) for i in range(4)]
        worker = self.worker(concurrency=1).start()
        self.stub.wait_for(lambda: all(self.stub.jobs[j]["status"] == "PUSHED" for j in jobs))
        self.wait_until(lambda: len(self.stub.calls_to(POLL)) >= 2)  # the slot went back to the poll loop
        self.assertEqual(jobs, ran)
        self.assertEqual([], self.stub.calls_to("POST /blackboard/job/result"))
        nexts = self.stub.nexts()
        self.assertEqual(4, len(nexts))
        me = worker.worker_id
        self.assertEqual([{"workerId": me, "limit": 1,
                           "results": [{"jobId": j, "workerId": me, "attempt": 1, "status": "SUCCESS",
                                        "result": {"n": i}}]} for i, j in enumerate(jobs)], [c.body for c in nexts])
        self.assertEqual([[j] for j in jobs[1:]] + [[]], [[job["id"] for job in c.answer["jobs"]] for c in nexts])
        polls = self.stub.calls_to(POLL)
        self.assertEqual([[jobs[0]]], [[job["id"] for job in c.answer] for c in polls if c.answer])
        self.wait_until(lambda: worker.stats.get("pushes") == 4)
        self.assertEqual(4, worker.stats["jobs_claimed"])
        self.assertEqual(3, worker.stats["next_jobs"])

    def test_a_replica_that_does_not_know_next_gets_the_push_by_result_and_the_worker_goes_on(self):
        @self.block()
        def echo(ctx, params):
            return {"n": params}

        # an older replica behind the same address, mid-upgrade: its security answers the unknown path 403
        self.stub.script(NEXT, problem(403, "forbidden", "Access Denied"))
        jobs = [self.stub.add_job(1)]
        worker = self.worker(concurrency=1).start()
        self.stub.wait_for(lambda: self.stub.jobs[jobs[0]]["status"] == "PUSHED")
        jobs.append(self.stub.add_job(2))
        self.stub.wait_for(lambda: self.stub.jobs[jobs[1]]["status"] == "PUSHED")

        self.assertEqual(1, len(self.stub.nexts()), "this registration pushes by /result from then on")
        self.assertEqual(jobs, [c.body["jobId"] for c in self.stub.calls_to("POST /blackboard/job/result")])
        self.assertEqual(0, worker.stats.get("reregistrations", 0))
        self.wait_until(lambda: worker.stats.get("pushes") == 2)

    def test_a_job_from_next_is_held_like_a_polled_one(self):
        started = threading.Event()

        @self.block()
        async def work(ctx, params):  # an async handler: run on the pool like any
            if params == "long":
                started.set()
                if await ctx.async_sleep(5):
                    raise JobCancelled()
            return {"thread": threading.current_thread().name}

        first, second = self.stub.add_job("short"), self.stub.add_job("long")
        worker = self.worker(concurrency=1).start()
        self.assertTrue(started.wait(3))
        self.assertEqual([second], [job["id"] for job in self.stub.nexts()[0].answer["jobs"]])
        self.assertEqual("SUCCESS", self.stub.pushes(first)[0].body["status"])
        self.assertEqual([second], worker.held_jobs)
        now = time.monotonic()
        self.stub.wait_for(lambda: self.stub.pinged_with(second, after=now))
        self.stub.cancel.add(second)
        self.wait_until(lambda: worker.stats.get("jobs_cancelled") == 1)
        self.wait_until(lambda: not worker.held_jobs)
        self.assertEqual([], self.stub.pushes(second))
        self.assertTrue(self.stub.pushes(first)[0].body["result"]["thread"].startswith("blackboard-job-"))

    def test_retries_send_the_same_results_with_limit_0_while_the_ping_keeps_the_lease(self):
        self.block()(lambda ctx, params: {"lines": 120})
        lease_kept = []

        def unavailable_until_pinged(call):
            job_id = call.body["results"][0]["jobId"]
            lease_kept.append(self.stub.wait_for(lambda: self.stub.pinged_with(job_id, after=call.at)))
            return problem(503, "database-unavailable", retry_after=0)

        self.stub.script(NEXT, DROP, unavailable_until_pinged, problem(500, "internal"),
                         problem(429, "busy", retry_after=0))
        worker = self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[job]["status"] == "PUSHED")
        nexts = self.stub.nexts()
        self.assertEqual(5, len(nexts))
        self.assertTrue(all(c.body["results"] == nexts[0].body["results"] for c in nexts), nexts)
        self.assertEqual([1, 0, 0, 0, 0], [c.body["limit"] for c in nexts])
        self.assertEqual([True], lease_kept)
        self.wait_until(lambda: worker.stats.get("pushes") == 1)
        self.assertEqual(4, worker.stats["push_retries"])

    def test_a_claim_whose_answer_was_lost_is_neither_claimed_again_nor_run(self):
        self.block()(lambda ctx, params: {})
        self.stub.script(NEXT, lambda call: self.stub._default(call) and DROP)  # claims the second job, then hangs up
        worker = self.worker(concurrency=1).start()
        first, lost = self.stub.add_job(), self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[first]["status"] == "PUSHED")
        self.assertEqual("POLLED", self.stub.jobs[lost]["status"])
        third = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[third]["status"] == "PUSHED")
        self.assertEqual([1, 0], [c.body["limit"] for c in self.stub.nexts()[:2]])
        self.assertEqual([], self.stub.pushes(lost))
        self.assertEqual("POLLED", self.stub.jobs[lost]["status"], "left to the orphan grace: the pings do not list it")
        self.assertFalse(self.stub.pinged_with(lost))
        self.assertNotIn(lost, worker.held_jobs)

    def test_an_item_409_drops_the_result_and_counts_it(self):
        self.block()(lambda ctx, params: {})
        self.stub.script(NEXT, self.stub.item(problem(409, "job-not-held", "not your claim", jobStatus="PUSHED")))
        worker = self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.pushes(job))
        self.wait_until(lambda: worker.stats.get("push_conflicts") == 1)
        self.wait_until(lambda: not worker.held_jobs)
        time.sleep(0.1)
        self.assertEqual([409], [c.status for c in self.stub.pushes(job)])
        self.assertNotIn("reregistrations", worker.stats)
        later = self.stub.add_job()  # the slot is free again
        self.stub.wait_for(lambda: self.stub.jobs[later]["status"] == "PUSHED")

    def test_an_item_422_on_a_success_pushes_a_failure_with_the_violations(self):
        self.block(result_schema={"type": "object"})(lambda ctx, params: "not an object")
        self.stub.script(NEXT, self.stub.item(problem(422, "schema-violation",
                                                      "result: $: string found, object expected", field="result",
                                                      violations=["$: string found, object expected"])))
        worker = self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[job]["status"] == "PUSHED")
        first, second = self.stub.pushes(job)
        self.assertEqual(("SUCCESS", "not an object", 422), (first.body["status"], first.body["result"], first.status))
        self.assertEqual(("FAILURE", 1, 200), (second.body["status"], second.body["attempt"], second.status))
        self.assertEqual("ResultSchemaViolation", second.body["error"]["type"])
        self.assertEqual(["$: string found, object expected"], second.body["error"]["violations"])
        self.assertEqual([NEXT, NEXT], [c.route for c in self.stub.pushes(job)])
        self.wait_until(lambda: worker.stats.get("pushes") == 1)
        self.assertEqual(1, worker.stats["result_rejected"])

    def test_an_item_404_is_the_jobs_not_the_workers(self):
        self.block()(lambda ctx, params: {})
        self.stub.script(NEXT, self.stub.item(problem(404, "job-not-found")))
        worker = self.worker().start()
        self.stub.add_job()
        self.wait_until(lambda: worker.stats.get("push_refused") == 1)
        self.wait_until(lambda: not worker.held_jobs)
        self.assertEqual(1, len(self.stub.calls_to("POST /workers/register")))

    def test_a_404_or_401_of_the_whole_request_registers_again(self):
        self.block()(lambda ctx, params: {})
        self.stub.script(NEXT, problem(404, "worker-not-found", "register again"), problem(401, "unauthorized"))
        worker = self.worker().start()
        for n in (1, 2):
            job = self.stub.add_job()
            self.wait_until(lambda: worker.stats.get("reregistrations") == n)
            self.wait_until(lambda: not worker.held_jobs)
            self.assertEqual([], [c for c in self.stub.pushes(job) if c.status == 200])

    def test_no_next_job_is_asked_for_while_quiet_or_stopping(self):
        release = threading.Event()
        self.block()(lambda ctx, params: release.wait(5) and {})
        worker = self.worker(concurrency=1)
        outcome = self.run_in_thread(worker)
        quiet = self.stub.add_job()
        self.wait_until(lambda: quiet in worker.held_jobs)
        self.stub.set_directive("QUIET")
        self.wait_until(lambda: worker.state is WorkerState.QUIET)
        release.set()
        self.stub.wait_for(lambda: self.stub.pushes(quiet))
        self.assertEqual(0, self.stub.nexts()[-1].body["limit"])
        release.clear()
        self.stub.set_directive("RUN")
        stopping = self.stub.add_job()
        self.wait_until(lambda: stopping in worker.held_jobs)  # not only claimed: the answer was read
        self.stub.add_job()  # there is more work, but the worker stops
        worker.stop()
        self.wait_until(lambda: worker.state is WorkerState.DRAINING)
        release.set()
        self.wait_until(lambda: outcome)
        self.assertEqual([0], outcome)
        self.assertEqual(0, self.stub.nexts()[-1].body["limit"])
        self.assertEqual([stopping], [c.body["jobId"] for c in self.stub.pushes() if c.status == 200][-1:])

    def test_concurrency_is_never_exceeded(self):
        running, peak, held_peak, lock = [0], [0], [0], threading.Lock()
        worker = None

        @self.block()
        def work(ctx, params):
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
                held_peak[0] = max(held_peak[0], len(worker.held_jobs))
            time.sleep(0.01 * (params % 3))
            with lock:
                running[0] -= 1
            return {}

        worker = self.worker(concurrency=3)
        worker.start()
        jobs = [self.stub.add_job(i) for i in range(40)]
        self.stub.wait_for(lambda: all(self.stub.jobs[j]["status"] == "PUSHED" for j in jobs), timeout=15)
        self.assertLessEqual(peak[0], 3)
        self.assertLessEqual(held_peak[0], 3)
        self.assertLessEqual(self.stub.most_held[worker.worker_id], 3, "the server never had more claimed for it")
        self.assertTrue(all(len(self.stub.pushes(j)) == 1 for j in jobs))
        self.assertGreater(worker.stats["next_jobs"], 0)
        self.assertTrue(all(c.body["limit"] in (0, 1) for c in self.stub.nexts()))
        self.assertTrue(all(1 <= c.body["limit"] <= 3 for c in self.stub.calls_to(POLL)))

    def test_a_job_claimed_past_the_slots_is_not_run(self):
        # No server does this (it counts the unpushed job's slot); the worker holds its slots all the same.
        self.block(result_schema={"type": "object"})(lambda ctx, params: "not an object" if params == 1 else {})
        self.stub.script(NEXT, self.stub.item(problem(422, "schema-violation", "not an object"), fenced=False))
        worker = self.worker(concurrency=1).start()
        first, extra = self.stub.add_job(1), self.stub.add_job(2)
        self.stub.wait_for(lambda: self.stub.jobs[first]["status"] == "PUSHED")
        self.assertEqual("FAILURE", self.stub.jobs[first]["outcome"])
        self.assertEqual([extra], [job["id"] for job in self.stub.nexts()[0].answer["jobs"]])
        self.wait_until(lambda: worker.stats.get("pushes") == 1)
        self.assertEqual(1, worker.stats["claims_over_concurrency"])
        time.sleep(0.2)
        self.assertEqual([], self.stub.pushes(extra))
        self.assertFalse(self.stub.pinged_with(extra))
        self.assertEqual(1, worker.stats["jobs_claimed"])


class Polls(WorkerCase):
    def test_a_429_waits_for_retry_after_before_polling_again(self):
        self.block()(lambda ctx, params: {})
        self.stub.script("POST /blackboard/job", problem(429, "too-many-parked-polls", retry_after=1))
        worker = self.worker().start()
        self.stub.wait_for(lambda: len(self.stub.calls_to("POST /blackboard/job")) >= 2)
        first, second = self.stub.calls_to("POST /blackboard/job")[:2]
        self.assertGreaterEqual(second.at - first.answered_at, 1.0)
        self.assertEqual(1, worker.stats["poll_throttled"])

    def test_the_poll_waits_as_configured_but_never_longer_than_the_server_allows(self):
        self.block()(lambda ctx, params: {})
        self.stub.max_poll_wait_ms = 200
        self.worker(poll_wait=25).start()
        self.stub.wait_for(lambda: self.stub.calls_to("POST /blackboard/job"))
        self.assertEqual(200, self.stub.calls_to("POST /blackboard/job")[0].body["waitMs"])


class Directives(WorkerCase):
    def test_quiet_means_zero_polls_and_run_resumes(self):
        self.block()(lambda ctx, params: {})
        self.stub.set_directive("QUIET")
        worker = self.worker(poll_wait=0.05).start()
        self.wait_until(lambda: worker.state is WorkerState.QUIET)
        time.sleep(0.1)  # the poll in flight when QUIET came has been answered
        polls = len(self.stub.calls_to("POST /blackboard/job"))
        time.sleep(0.4)
        self.assertEqual(polls, len(self.stub.calls_to("POST /blackboard/job")))
        self.stub.set_directive("RUN")
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.pushes(job))
        self.assertEqual(WorkerState.RUNNING, worker.state)

    def test_terminate_drains_and_stops(self):
        started, release = threading.Event(), threading.Event()
        self.block()(lambda ctx, params: started.set() or release.wait(5) and {"done": True})
        worker = self.worker()
        outcome = self.run_in_thread(worker)
        job = self.stub.add_job()
        self.assertTrue(started.wait(2))
        self.stub.set_directive("TERMINATE")
        self.wait_until(lambda: worker.state is WorkerState.DRAINING)
        release.set()
        self.wait_until(lambda: outcome)
        self.assertEqual([0], outcome)
        self.assertEqual(StopReason.TERMINATED, worker.stop_reason)
        self.assertEqual("SUCCESS", self.stub.jobs[job]["outcome"])
        self.assertEqual("POST /workers/*/unregister", self.stub.calls[-1].route)

    def test_cancel_job_ids_set_the_cancel_flag_and_nothing_is_pushed(self):
        seen = threading.Event()

        @self.block()
        def long(ctx, params):
            if ctx.cancelled.wait(5):
                seen.set()
                raise JobCancelled()
            return {}

        worker = self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[job]["status"] == "POLLED")
        self.stub.cancel.add(job)
        self.assertTrue(seen.wait(2))
        self.wait_until(lambda: not worker.held_jobs)
        time.sleep(0.1)
        self.assertEqual([], self.stub.pushes(job))
        self.assertEqual(1, worker.stats["cancels_received"])
        self.assertEqual(1, worker.stats["jobs_cancelled"])

    def test_a_cancelled_job_that_returns_a_result_is_not_pushed_either(self):
        @self.block()
        def ignores(ctx, params):
            ctx.cancelled.wait(5)
            return {"too": "late"}

        worker = self.worker().start()
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[job]["status"] == "POLLED")
        self.stub.cancel.add(job)
        self.wait_until(lambda: worker.stats.get("jobs_cancelled") == 1)
        self.assertEqual([], self.stub.pushes(job))


class Expiry(WorkerCase):
    def test_a_ping_404_registers_again_with_its_blocks_and_carries_on(self):
        started = threading.Event()

        @self.block()
        def work(ctx, params):
            if params == "old":
                started.set()
                ctx.cancelled.wait(5)
            return {"by": ctx.worker_id}

        worker = self.worker().start()
        old = self.stub.add_job("old")
        self.assertTrue(started.wait(2))
        self.stub.delete_worker("w-1")
        self.wait_until(lambda: worker.worker_id not in (None, "w-1"))
        new_id = worker.worker_id
        self.assertEqual(2, len(self.stub.calls_to("POST /function-blocks/register")))
        self.assertEqual(new_id, self.stub.calls_to("POST /function-blocks/register")[1].body["workerId"])
        job = self.stub.add_job("new")
        self.stub.wait_for(lambda: self.stub.pushes(job))
        push = self.stub.pushes(job)[0]
        self.assertEqual((new_id, "bbw_" + new_id[2:]), (push.body["workerId"], push.token))
        self.assertEqual({"by": new_id}, push.body["result"])
        self.wait_until(lambda: not worker.held_jobs)
        self.assertEqual([], self.stub.pushes(old))  # the old claim died with the old worker
        self.assertEqual(1, worker.stats["reregistrations"])

    def test_a_401_with_the_worker_token_is_treated_as_expiry(self):
        self.block()(lambda ctx, params: {})
        self.stub.script("POST /blackboard/job", problem(401, "unauthorized", "unknown token"))
        worker = self.worker().start()
        self.wait_until(lambda: worker.stats.get("reregistrations") == 1)
        self.assertEqual(2, len(self.stub.calls_to("POST /workers/register")))

    def test_on_expired_exit_raises_worker_expired_error(self):
        self.block()(lambda ctx, params: {})
        worker = self.worker(on_expired="exit")
        outcome = self.run_in_thread(worker)
        self.wait_until(lambda: worker.state is WorkerState.RUNNING)
        self.stub.delete_worker(worker.worker_id)
        self.wait_until(lambda: outcome)
        self.assertIsInstance(outcome[0], WorkerExpiredError)
        self.assertEqual(1, len(self.stub.calls_to("POST /workers/register")))
        self.assertEqual([], self.stub.calls_to("POST /workers/*/unregister"))


if __name__ == "__main__":
    unittest.main()
