"""The OJS worker example (examples/ojs_worker.py) against a fake OJS binding in a thread: no server."""

import contextlib
import importlib.util
import io
import json
import os
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "ojs_worker.py")


def load():
    spec = importlib.util.spec_from_file_location("example_ojs_worker", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeBinding:
    """Hands out the queued jobs one per fetch, records every call, answers beats with ``state``."""

    def __init__(self, jobs, state="running"):
        self.jobs = list(jobs)
        self.state = state
        self.calls = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake.lock:
                    fake.calls.append((self.path, self.headers["Authorization"], body))
                    status, reply = fake.answer(self.path, body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/openjobspec+json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()

    def answer(self, path, body):
        if path == "/ojs/v1/workers/fetch":
            return 200, {"jobs": [self.jobs.pop(0)] if self.jobs and self.state == "running" else []}
        if path == "/ojs/v1/workers/heartbeat":
            return 200, {"state": self.state, "jobs_extended": body["active_jobs"]}
        if path == "/ojs/v1/jobs":
            return 201, {"job": {"id": f"e{len(self.calls)}", **body}}
        if path == "/ojs/v1/workers/ack" and body["job_id"] == "gone":
            return 409, {"error": {"code": "conflict", "message": "not active"}}
        return 200, {"job_id": body["job_id"], "state": "completed" if path.endswith("ack") else "retryable"}

    def bodies(self, path):
        return [body for p, _, body in self.calls if p == "/ojs/v1" + path]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def job(job_id, attempt=1, n=0):
    return {"id": job_id, "type": "echo", "queue": "q", "args": [{"n": n}], "attempt": attempt, "state": "active"}


class OjsWorkerExample(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.example = load()

    def run_worker(self, fake, *extra):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = self.example.main(["--url", fake.url, "--token", "t", "--queue", "q", "--worker-id", "w1",
                                      "--heartbeat-s", "0.02", *extra])
        return code, [json.loads(line) for line in out.getvalue().splitlines()]

    def fake(self, jobs, state="running"):
        fake = FakeBinding(jobs, state)
        self.addCleanup(fake.close)
        return fake

    def test_it_acks_each_job_with_the_echo_and_nacks_every_kth_first_attempt(self):
        fake = self.fake([job("a", n=1), job("b", n=2), job("c", n=3), job("d", attempt=2, n=4), job("gone")])
        code, lines = self.run_worker(fake, "--fail-every", "2", "--max-jobs", "5")
        self.assertEqual(0, code)
        self.assertEqual([("a", "ack"), ("b", "nack"), ("c", "ack"), ("d", "ack"), ("gone", "lost")],
                         [(line["job_id"], line["outcome"]) for line in lines])
        self.assertEqual({"job_id": "a", "worker_id": "w1", "result": {"n": 1, "by": "w1"}},
                         fake.bodies("/workers/ack")[0])
        self.assertEqual({"job_id": "b", "worker_id": "w1", "error": {
            "code": "handler_error", "message": "failing job 2 on purpose", "retryable": True}},
            fake.bodies("/workers/nack")[0])
        self.assertEqual({"queues": ["q"], "count": 1, "worker_id": "w1", "wait_ms": 1000},
                         fake.bodies("/workers/fetch")[0])
        self.assertTrue(all(token == "Bearer t" for _, token, _ in fake.calls))

    def test_it_enqueues_first_then_exits_once_idle(self):
        fake = self.fake([])
        code, lines = self.run_worker(fake, "--enqueue", "2", "--type", "echo", "--idle-exit-s", "0.2")
        self.assertEqual((0, []), (code, lines))
        enqueued = fake.bodies("/jobs")
        self.assertEqual([[{"n": 0}], [{"n": 1}]], [body["args"] for body in enqueued])
        self.assertEqual({"queue": "q", "retry": self.example.RETRY}, enqueued[0]["options"])
        self.assertEqual("echo", enqueued[0]["type"])
        self.assertTrue(fake.bodies("/workers/heartbeat"), "it beat while idle")
        self.assertEqual({"worker_id": "w1", "active_jobs": []}, fake.bodies("/workers/heartbeat")[0])

    def test_quiet_stops_the_fetching_and_terminate_ends_the_worker(self):
        fake = self.fake([job("a")], state="quiet")
        threading.Timer(0.3, lambda: setattr(fake, "state", "terminate")).start()
        code, lines = self.run_worker(fake, "--max-jobs", "1")
        self.assertEqual((0, []), (code, lines))
        fetched_after_beat = [p for p, _, _ in fake.calls[[p for p, _, _ in fake.calls].index(
            "/ojs/v1/workers/heartbeat"):] if p == "/ojs/v1/workers/fetch"]
        self.assertEqual([], fetched_after_beat, "no fetch once the beat said quiet")


if __name__ == "__main__":
    unittest.main()
