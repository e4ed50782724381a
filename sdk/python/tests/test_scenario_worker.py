"""The scenario worker as a process against the stub: its log lines, SIGTERM/SIGINT, and a forcing second signal."""

import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import _support
from stub_server import StubBlackboard

HERE = os.path.dirname(os.path.abspath(__file__))


class ScenarioWorkerProcess(unittest.TestCase):
    def setUp(self):
        self.stub = StubBlackboard(orphan_grace_ms=100).start()
        self.addCleanup(self.stub.stop)
        handle, self.log = tempfile.mkstemp(prefix="scenario-", suffix=".log")
        os.close(handle)
        self.addCleanup(os.remove, self.log)

    def start(self, concurrency="1", drain_ms="5000"):
        env = dict(os.environ, PYTHONPATH=_support.SRC, BLACKBOARD_URL=self.stub.url, SCENARIO_LOG=self.log,
                   BLACKBOARD_WORKER_NAME="scenario-test", BLACKBOARD_CONCURRENCY=concurrency,
                   BLACKBOARD_DRAIN_TIMEOUT_MS=drain_ms, BLACKBOARD_POLL_WAIT_MS="500",
                   SCENARIO_LOG_LEVEL=os.environ.get("BLACKBOARD_TEST_LOG", "CRITICAL"))
        process = subprocess.Popen([sys.executable, os.path.join(HERE, "scenario_worker.py")], env=env)
        self.addCleanup(lambda: process.poll() is None and process.kill())
        self.stub.wait_for(lambda: self.stub.calls_to("POST /blackboard/job"), timeout=10)
        return process

    def lines(self):
        with open(self.log, encoding="utf-8") as f:
            return f.read().splitlines()

    def wait_for_line(self, line, timeout=5.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if line in self.lines():
                return
            time.sleep(0.02)
        self.fail(f"no line {line!r} in {self.lines()}")

    def test_every_job_type_and_the_log_lines(self):
        process = self.start(concurrency="2")
        jobs = {
            "execute": self.stub.add_job({"result": {"k": "v"}}, block="scenario@1.0.0"),
            "acquire": self.stub.add_job({}, type="ACQUIRE", block="scenario@1.0.0"),
            "rollback": self.stub.add_job({}, type="ROLLBACK", block="scenario@1.0.0"),
            "fail": self.stub.add_job({"fail": "as asked"}, block="scenario@1.0.0"),
            "bad": self.stub.add_job({"badResult": True}, block="scenario@1.0.0"),
        }
        self.stub.wait_for(lambda: all(self.stub.pushes(j) for j in jobs.values()), timeout=10)
        body = {name: self.stub.pushes(j)[0].body for name, j in jobs.items()}
        execute = jobs["execute"]
        self.assertEqual({"echo": {"k": "v"}, "jobId": execute, "attempt": 1}, body["execute"]["result"])
        self.assertEqual([{"resource": "scenario"}], body["acquire"]["acquires"])
        self.assertEqual({"rolledBack": True}, body["rollback"]["result"])
        self.assertEqual(("FAILURE", "as asked"), (body["fail"]["status"], body["fail"]["error"]["message"]))
        self.assertEqual("not an object", body["bad"]["result"])  # the stub checks no schema
        self.assertIn(f"started {execute} EXECUTE 1", self.lines())
        self.assertIn(f"started {jobs['acquire']} ACQUIRE 1", self.lines())
        self.assertIn(f"finished {jobs['fail']}", self.lines())
        registered = self.stub.calls_to("POST /function-blocks/register")[0].body["functionBlocks"]
        self.assertEqual([{"name": "scenario", "version": "1.0.0", "pure": False, "idempotent": True,
                           "resultDataJsonSchema": {"type": "object"},
                           "description": "The shared end-to-end tests' scenario block"}], registered)
        process.send_signal(signal.SIGINT)
        self.assertEqual(0, process.wait(10))

    def test_sigterm_mid_job_drains_it_and_exits_0(self):
        process = self.start()
        job = self.stub.add_job({"sleepMs": 400}, block="scenario@1.0.0")
        self.wait_for_line(f"started {job} EXECUTE 1")
        process.send_signal(signal.SIGTERM)
        self.assertEqual(0, process.wait(10))
        self.assertEqual("SUCCESS", self.stub.jobs[job]["outcome"])
        self.assertEqual(["started", "finished"], [line.split()[0] for line in self.lines()])
        self.assertEqual("POST /workers/*/unregister", self.stub.calls[-1].route)

    def test_a_cancel_reaches_the_handler_and_nothing_is_pushed(self):
        process = self.start()
        job = self.stub.add_job({"sleepMs": 5000}, block="scenario@1.0.0")
        self.wait_for_line(f"started {job} EXECUTE 1")
        self.stub.cancel.add(job)
        self.wait_for_line(f"cancelled {job}")
        self.wait_for_line(f"finished {job}")
        process.send_signal(signal.SIGTERM)
        self.assertEqual(0, process.wait(10))
        self.assertEqual([], self.stub.pushes(job))

    def test_a_refused_enrolment_token_exits_2_at_once(self):
        env = dict(os.environ, PYTHONPATH=_support.SRC, BLACKBOARD_URL=self.stub.url, SCENARIO_LOG=self.log,
                   BLACKBOARD_WORKER_TOKEN="wrong", SCENARIO_LOG_LEVEL="CRITICAL")
        process = subprocess.run([sys.executable, os.path.join(HERE, "scenario_worker.py")], env=env, timeout=10)
        self.assertEqual(2, process.returncode)
        self.assertEqual(1, len(self.stub.calls_to("POST /workers/register")))

    def test_a_second_signal_forces_the_exit(self):
        process = self.start(drain_ms="30000")
        job = self.stub.add_job({"sleepMs": 30000}, block="scenario@1.0.0")
        self.wait_for_line(f"started {job} EXECUTE 1")
        process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        self.assertIsNone(process.poll(), "the first signal drains")
        process.send_signal(signal.SIGTERM)
        self.assertEqual(1, process.wait(5))
        self.assertEqual([], self.stub.pushes(job))
        self.assertEqual("POST /workers/*/unregister", self.stub.calls[-1].route)


if __name__ == "__main__":
    unittest.main()
