"""Backoff, the HTTP transport (stale keep-alive connections, aborting a parked request), configuration
from the environment, and the engine client."""

import threading
import time
import unittest

import _support  # noqa: F401
from stub_server import Reply, StubBlackboard, problem

from blackboard_worker import ApiError, EngineClient, Worker, job
from blackboard_worker._backoff import Backoff
from blackboard_worker._http import AbortHandle, RequestAborted, Transport, parse_retry_after
from blackboard_worker.worker import parse_labels


class BackoffTest(unittest.TestCase):
    def test_full_jitter_under_a_growing_capped_ceiling_reset_on_success(self):
        top = Backoff(base=0.5, cap=4.0, rng=lambda: 0.999999)
        self.assertEqual([0.5, 1.0, 2.0, 4.0, 4.0], [round(top.next_delay(), 3) for _ in range(5)])
        top.reset()
        self.assertAlmostEqual(0.5, top.next_delay(), places=3)
        self.assertEqual(0.0, Backoff(rng=lambda: 0.0).next_delay())

    def test_retry_after_replaces_the_computed_delay_plus_at_most_ten_percent(self):
        backoff = Backoff(base=0.01, cap=0.02)
        for _ in range(20):
            self.assertTrue(3.0 <= backoff.next_delay(retry_after=3.0) <= 3.3)

    def test_retry_after_header_forms(self):
        self.assertEqual(2.0, parse_retry_after("2"))
        self.assertIsNone(parse_retry_after(None))
        self.assertIsNone(parse_retry_after("soon"))
        self.assertEqual(0.0, parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"))


class TransportTest(unittest.TestCase):
    def setUp(self):
        self.stub = StubBlackboard().start()
        self.addCleanup(self.stub.stop)
        self.transport = Transport(self.stub.url)
        self.addCleanup(self.transport.close)

    def test_a_kept_alive_connection_is_reused(self):
        self.transport.request("GET", "/function-blocks", token="dev-engine-token")
        self.transport.request("GET", "/function-blocks", token="dev-engine-token")
        self.assertEqual(1, len(self.transport._open))

    def test_every_request_tells_the_server_how_long_its_answer_is_awaited(self):
        self.transport.request("GET", "/function-blocks", token="dev-engine-token")
        self.transport.request("GET", "/function-blocks", token="dev-engine-token", timeout=42.5)
        sent = [call.headers.get("Blackboard-Timeout-Ms") for call in self.stub.calls_to("GET /function-blocks")]
        self.assertEqual(["30000", "42500"], sent)

    def test_a_connection_the_server_closed_is_replaced_and_the_request_sent_again(self):
        # the server closes the connection after answering without saying so, as an idle timeout would
        self.stub.script("GET /function-blocks", Reply(200, [], close=True))
        self.assertEqual(200, self.transport.request("GET", "/function-blocks", token="dev-engine-token").status)
        reply = self.transport.request("GET", "/function-blocks", token="dev-engine-token")
        self.assertEqual(200, reply.status)
        self.assertEqual(2, len(self.stub.calls_to("GET /function-blocks")))

    def test_a_parked_request_is_aborted_from_another_thread(self):
        self.transport.request("POST", "/workers/register", {"name": "w"}, token="dev-worker-token")
        handle = AbortHandle()
        raised = []

        def park():
            try:
                self.transport.request("POST", "/blackboard/job", {"workerId": "w-1", "limit": 1, "waitMs": 20000},
                                       token="bbw_1", abort=handle)
            except RequestAborted as e:
                raised.append(e)

        thread = threading.Thread(target=park)
        thread.start()
        self.stub.wait_for(lambda: self.stub.calls_to("POST /blackboard/job"))
        time.sleep(0.05)
        started = time.monotonic()
        self.assertTrue(handle.abort())
        thread.join(2)
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(1, len(raised))
        with self.assertRaises(RequestAborted):
            self.transport.request("POST", "/blackboard/job", {}, abort=handle)


class Configuration(unittest.TestCase):
    def test_from_env_reads_the_blackboard_variables_over_the_code_defaults(self):
        env = {"BLACKBOARD_URL": "http://bb.example:9000", "BLACKBOARD_WORKER_TOKEN": "enrol",
               "BLACKBOARD_WORKER_NAME": "site-a-1", "BLACKBOARD_CONCURRENCY": "4",
               "BLACKBOARD_DRAIN_TIMEOUT_MS": "1500", "BLACKBOARD_POLL_WAIT_MS": "5000",
               "BLACKBOARD_PING_INTERVAL_MS": "2500", "BLACKBOARD_WORKER_LABELS": "site=a, role=edge",
               "BLACKBOARD_ON_EXPIRED": "exit"}
        worker = Worker.from_env(env, name="code-name", concurrency=2, labels={"team": "net"})
        self.assertEqual(("http://bb.example:9000", "enrol", "site-a-1", 4), (worker.base_url, worker.token,
                                                                              worker.name, worker.concurrency))
        self.assertEqual((1.5, 5.0, 2.5, "exit"), (worker.drain_timeout, worker.poll_wait, worker.ping_interval,
                                                   worker.on_expired))
        self.assertEqual({"team": "net", "site": "a", "role": "edge"}, worker.labels)

    def test_from_env_defaults(self):
        worker = Worker.from_env({}, name="w")
        self.assertEqual(("http://localhost:8080", "dev-worker-token", 1, 20.0),
                         (worker.base_url, worker.token, worker.concurrency, worker.drain_timeout))

    def test_bad_values_are_refused(self):
        with self.assertRaises(ValueError):
            Worker.from_env({"BLACKBOARD_CONCURRENCY": "many"})
        with self.assertRaises(ValueError):
            Worker(concurrency=0)
        with self.assertRaises(ValueError):
            Worker(on_expired="ignore")
        with self.assertRaises(ValueError):
            parse_labels("site")

    def test_run_off_the_main_thread_needs_handle_signals_false(self):
        errors = []
        thread = threading.Thread(target=lambda: errors.append(self._run_off_main()))
        thread.start()
        thread.join(5)
        self.assertIsInstance(errors[0], RuntimeError)

    @staticmethod
    def _run_off_main():
        try:
            Worker(base_url="http://127.0.0.1:9").run()
        except RuntimeError as e:
            return e


class EngineClientTest(unittest.TestCase):
    def setUp(self):
        self.stub = StubBlackboard().start()
        self.addCleanup(self.stub.stop)
        self.engine = EngineClient(self.stub.url)
        self.addCleanup(self.engine.close)

    def test_create_read_and_cancel(self):
        fb = self.engine.function_block_id("echo")
        created = self.engine.create_job(fb, "EXECUTE", {"host": "r1"}, correlation_id="wf-1",
                                         idempotency_key="wf-1/r1", max_attempts=2, selector={"site": "a"})
        sent = self.stub.calls_to("POST /blackboard/jobs")[0].body
        self.assertEqual({"functionBlockId": "fb-echo@1", "type": "EXECUTE", "payload": {"host": "r1"},
                          "correlationId": "wf-1", "idempotencyKey": "wf-1/r1", "maxAttempts": 2,
                          "selector": {"site": "a"}}, sent)
        self.assertEqual(created["id"], self.engine.get_job(created["id"])["id"])
        self.assertEqual("CANCELLED", self.engine.cancel_job(created["id"])["outcome"])
        batch = self.engine.create_jobs([job(fb, payload={"n": i}) for i in range(3)])
        self.assertEqual(3, len(batch))
        self.assertIsInstance(self.stub.calls_to("POST /blackboard/jobs")[1].body, list)

    def test_function_block_lookup_needs_a_version_when_there_are_several(self):
        self.assertEqual("fb-two@2", self.engine.function_block_id("two", "2"))
        with self.assertRaises(LookupError):
            self.engine.function_block_id("two")
        with self.assertRaises(LookupError):
            self.engine.function_block_id("none")

    def test_the_result_feed_is_followed_by_cursor(self):
        for n in range(3):
            self.stub.results_feed.append({"id": f"r{n}", "outcome": "SUCCESS"})
        stop = threading.Event()
        seen, cursors = [], []
        for page in self.engine.follow_results(limit=2, wait_ms=0, stop=stop):
            seen.extend(r["id"] for r in page.results)
            cursors.append(page.next)
            if len(seen) == 3:
                stop.set()
        self.assertEqual(["r0", "r1", "r2"], seen)
        self.assertEqual(["1-2", "1-3"], cursors)
        self.assertIn("after=1-2", self.stub.calls_to("GET /blackboard/results")[1].path)

    def test_errors_raise_api_error_and_503_is_retried(self):
        self.stub.script("GET /blackboard/jobs/*", problem(503, "overloaded", retry_after=0))
        with self.assertRaises(ApiError) as raised:
            self.engine.get_job("nope")
        self.assertEqual((404, "/problems/job-not-found"), (raised.exception.status, raised.exception.type))
        self.assertEqual(2, len(self.stub.calls_to("GET /blackboard/jobs/*")))
        with self.assertRaises(ApiError) as refused, EngineClient(self.stub.url, token="wrong") as wrong:
            wrong.function_blocks()
        self.assertEqual(401, refused.exception.status)


if __name__ == "__main__":
    unittest.main()
