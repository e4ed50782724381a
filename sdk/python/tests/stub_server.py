"""A scriptable stand-in for the Blackboard server, for the unit tests (http.server in a thread).

By default it behaves like a small Blackboard of API 1.1: registration, function blocks, pings with a
directive and cancelJobIds, long polls that claim queued jobs, pushes fenced by worker and attempt,
POST /blackboard/job/next (pushes, then claims within the worker's concurrency), progress reports (fenced as
pushes, one recorded per job every ``progress_gap`` seconds), a job's ``retryPolicy`` (a FAILURE it retries goes
back to the queue at once; one it does not, with onExhausted PARK, parks), unregister, and a few engine
endpoints. ``api_version="1"`` makes it an older server, without /next (its path answers 404).
``script(route, *replies)`` makes the next calls to a route answer otherwise (a Reply, DROP to close the
connection unanswered, ``item(reply)`` for a /next answer whose push item says ``reply``, or a callable
deciding per call).
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Deque, Dict, List, Optional, Set, Union

ENROLMENT_TOKEN = "dev-worker-token"
ENGINE_TOKEN = "dev-engine-token"


class Reply:
    def __init__(self, status: int, body: Any = None, headers: Optional[Dict[str, str]] = None,
                 close: bool = False) -> None:
        self.status = status
        self.body = body
        self.headers = headers or {}
        self.close = close  # close the connection after answering, without saying so


def problem(status: int, kind: str, detail: str = "", **members: Any) -> Reply:
    headers = {"Content-Type": "application/problem+json"}
    if "retry_after" in members:
        headers["Retry-After"] = str(members.pop("retry_after"))
    return Reply(status, {"type": f"/problems/{kind}", "status": status, "detail": detail, **members}, headers)


DROP = object()  # read the request, then close the connection without an answer

Scripted = Union[Reply, object, Callable[["Call"], Optional[Reply]]]


class Call:
    def __init__(self, method: str, path: str, route: str, body: Any, token: Optional[str],
                 headers: Optional[Dict[str, str]] = None) -> None:
        self.method = method
        self.headers = headers or {}
        self.path = path
        self.route = route
        self.body = body
        self.token = token
        self.at = time.monotonic()
        self.answered_at: Optional[float] = None
        self.status: Optional[int] = None
        self.answer: Any = None  # the body answered

    def __repr__(self) -> str:
        return f"Call({self.route}, {self.body!r}, status={self.status})"


def route_of(method: str, path: str) -> str:
    path = path.split("?")[0]
    path = re.sub(r"^/workers/[^/]+/(ping|unregister)$", r"/workers/*/\1", path)
    if method == "GET":
        path = re.sub(r"^/workers/[^/*]+$", "/workers/*", path)
    path = re.sub(r"^/blackboard/jobs/[^/]+(/cancel)?$", r"/blackboard/jobs/*\1", path)
    return f"{method} {path}"


class StubBlackboard:
    def __init__(self, *, ping_interval_ms: int = 50, orphan_grace_ms: int = 200, max_poll_wait_ms: int = 30000,
                 new_fields: bool = True, api_version: str = "1.1", progress_gap: float = 2.0) -> None:
        self.ping_interval_ms = ping_interval_ms
        self.orphan_grace_ms = orphan_grace_ms
        self.max_poll_wait_ms = max_poll_wait_ms
        self.new_fields = new_fields
        self.api_version = api_version
        self.progress_gap = progress_gap
        self.concurrency: Dict[str, int] = {}  # worker id -> its registered concurrency
        self.most_held: Dict[str, int] = {}    # worker id -> the most jobs it held at once (POLLED)
        self.cond = threading.Condition()
        self.calls: List[Call] = []
        self.workers: Dict[str, str] = {}  # id -> token
        self.deleted: Set[str] = set()
        self.pending: Deque[str] = deque()
        self.jobs: Dict[str, Dict[str, Any]] = {}
        self.directive = "RUN"
        self.cancel: Set[str] = set()
        self.results_feed: List[Dict[str, Any]] = []
        self.scripts: Dict[str, Deque[Scripted]] = {}
        self.closing = False
        self.errors: List[str] = []
        self._ids = itertools.count(1)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    # -------------------------------------------------------------- test API

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "StubBlackboard":
        self._thread.start()
        return self

    def stop(self) -> None:
        with self.cond:
            self.closing = True
            self.cond.notify_all()
        self.server.shutdown()
        self.server.server_close()

    def script(self, route: str, *replies: Scripted) -> None:
        with self.cond:
            self.scripts.setdefault(route, deque()).extend(replies)

    def add_job(self, payload: Any = None, *, type: str = "EXECUTE", block: str = "echo@1", **fields: Any) -> str:
        """A PENDING job; ``fields`` are more members of its JSON (``retryPolicy``, ...)."""
        with self.cond:
            job_id = f"job-{next(self._ids)}"
            self.jobs[job_id] = {"id": job_id, "functionBlockId": f"fb-{block}", "type": type, "status": "PENDING",
                                 "payload": payload, "attempt": 0, "workerId": None, "correlationId": "corr-1",
                                 "deadline": None, "outcome": None, "errors": [], **fields}
            self.pending.append(job_id)
            self.cond.notify_all()
            return job_id

    def set_directive(self, directive: str) -> None:
        with self.cond:
            self.directive = directive

    def delete_worker(self, worker_id: str) -> None:
        with self.cond:
            self.deleted.add(worker_id)
            for job in self.jobs.values():
                if job["workerId"] == worker_id and job["status"] == "POLLED":
                    job.update(status="PUSHED", outcome="FAILURE", failureReason="WORKER_DELETED")

    def calls_to(self, route: str) -> List[Call]:
        with self.cond:
            return [c for c in self.calls if c.route == route]

    def wait_for(self, predicate: Callable[[], Any], timeout: float = 5.0) -> Any:
        """Wait until predicate() (called under the lock) is truthy; fail the test otherwise."""
        with self.cond:
            value = self.cond.wait_for(predicate, timeout)
        if not value:
            raise AssertionError(f"timed out after {timeout} s waiting for {predicate}")
        return value

    def pushes(self, job_id: Optional[str] = None) -> List[Call]:
        """The pushes (of ``job_id``): single pushes, and each item of a /next as a Call of its own whose
        status and answer (the job, or the problem) are the item's."""
        found = []
        with self.cond:
            for c in self.calls:
                if c.route == "POST /blackboard/job/result":
                    found.append(c)
                elif c.route == "POST /blackboard/job/next":
                    answered = (c.answer or {}).get("results") if c.status == 200 else None
                    for i, body in enumerate((c.body or {}).get("results") or []):
                        item = Call(c.method, c.path, c.route, body, c.token)
                        item.at, item.answered_at = c.at, c.answered_at
                        item.status = answered[i]["status"] if answered else c.status
                        item.answer = (answered[i].get("job") or answered[i].get("problem")) if answered else c.answer
                        found.append(item)
        return [c for c in found if job_id is None or (c.body or {}).get("jobId") == job_id]

    def nexts(self) -> List[Call]:
        return self.calls_to("POST /blackboard/job/next")

    def item(self, reply: Reply, *, fenced: bool = True) -> Callable[[Call], Reply]:
        """For script(): a /next answered 200 whose push items say ``reply`` and land nothing; the
        claim follows as usual (``fenced=False``: past the worker's concurrency, as no real server does)."""
        def answer(call: Call) -> Reply:
            refused = self._worker(call, call.body.get("workerId"))
            if refused:
                return refused
            items = [{"jobId": body.get("jobId"), "status": reply.status, "job": None, "problem": reply.body}
                     for body in call.body.get("results") or []]
            return Reply(200, {"results": items, "jobs": self._claim(call.body["workerId"], call.body.get("limit", 1),
                                                                      fenced=fenced)})
        return answer

    def pinged_with(self, job_id: str, after: float = 0.0) -> bool:
        return any(c.at >= after and job_id in ((c.body or {}).get("activeJobIds") or [])
                   for c in self.calls if c.route == "POST /workers/*/ping")

    # -------------------------------------------------------------- the server side

    def _handler_class(self) -> type:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                auth = self.headers.get("Authorization") or ""
                token = auth[7:] if auth.startswith("Bearer ") else None
                call = Call(method, self.path, route_of(method, self.path), body, token, dict(self.headers.items()))
                with stub.cond:
                    stub.calls.append(call)
                    stub.cond.notify_all()
                    scripted = stub.scripts.get(call.route)
                    action = scripted.popleft() if scripted else None
                reply = action(call) if callable(action) else action
                if reply is DROP:
                    self.close_connection = True
                    return
                if reply is None:
                    try:
                        reply = stub._default(call)
                    except Exception as e:  # a stub bug or a malformed request: say which
                        reply = problem(500, "stub-error", f"{call.route} {call.body!r}: {e!r}")
                        stub.errors.append(reply.body["detail"])
                data = b"" if reply.body is None else json.dumps(reply.body).encode()
                call.answer = reply.body
                call.status = reply.status
                call.answered_at = time.monotonic()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.headers.get("Content-Type", "application/json"))
                    for key, value in reply.headers.items():
                        if key != "Content-Type":
                            self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                except OSError:
                    self.close_connection = True  # the client went away (an aborted poll)
                if reply.close:
                    self.close_connection = True
                with stub.cond:
                    stub.cond.notify_all()

        return Handler

    def _default(self, call: Call) -> Reply:
        handler = {
            "POST /workers/register": self._register,
            "POST /function-blocks/register": self._register_blocks,
            "POST /workers/*/ping": self._ping,
            "POST /blackboard/job": self._poll,
            "POST /blackboard/job/result": self._push,
            "POST /blackboard/job/next": self._next if self.api_version != "1" else None,
            "POST /blackboard/job/progress": self._progress,
            "POST /workers/*/unregister": self._unregister,
            "GET /workers/*": self._get_worker,
            "POST /blackboard/jobs": self._create,
            "GET /blackboard/jobs/*": self._get_job,
            "POST /blackboard/jobs/*/cancel": self._cancel,
            "GET /blackboard/results": self._results,
            "GET /function-blocks": self._catalog,
        }.get(call.route)
        if handler is None:
            return problem(404, "not-found", call.route)
        return handler(call)

    def _worker(self, call: Call, worker_id: Optional[str]) -> Optional[Reply]:
        """None when the call is this live worker's; else the answer the server would give."""
        with self.cond:
            if worker_id in self.deleted:
                return problem(404, "worker-not-found", f"worker {worker_id} is unknown or deleted")
            if worker_id not in self.workers or self.workers[worker_id] != call.token:
                return problem(401, "unauthorized", "unknown token")
        return None

    def _register(self, call: Call) -> Reply:
        if call.token != ENROLMENT_TOKEN:
            return problem(401, "unauthorized", "unknown token")
        with self.cond:
            n = next(self._ids)
            worker_id, token = f"w-{n}", f"bbw_{n}"
            self.workers[worker_id] = token
            self.concurrency[worker_id] = call.body.get("concurrency", 1)
        body = {"id": worker_id, "name": call.body["name"], "state": "ONLINE", "token": token}
        if self.new_fields:
            body.update(serverVersion="stub", apiVersion=self.api_version, pingIntervalMs=self.ping_interval_ms,
                        orphanGraceMs=self.orphan_grace_ms, maxPollWaitMs=self.max_poll_wait_ms,
                        sdkName=call.body.get("sdkName"), sdkVersion=call.body.get("sdkVersion"))
        return Reply(201, body)

    def _register_blocks(self, call: Call) -> Reply:
        refused = self._worker(call, call.body.get("workerId"))
        if refused:
            return refused
        return Reply(200, [{"id": f"fb-{b['name']}@{b['version']}", "name": b["name"], "version": b["version"]}
                           for b in call.body["functionBlocks"]])

    def _ping(self, call: Call) -> Reply:
        refused = self._worker(call, call.path.split("/")[2])
        if refused:
            return refused
        with self.cond:
            return Reply(200, {"state": "ONLINE", "directive": self.directive, "serverTime": "now",
                               "pingIntervalMs": self.ping_interval_ms, "cancelJobIds": sorted(self.cancel)})

    def _poll(self, call: Call) -> Reply:
        worker_id = call.body.get("workerId")
        refused = self._worker(call, worker_id)
        if refused:
            return refused
        limit = call.body.get("limit", 1)
        deadline = time.monotonic() + call.body.get("waitMs", 0) / 1000.0
        with self.cond:
            while not self.pending and not self.closing and self.directive == "RUN":
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(min(left, 0.02))
        return Reply(200, self._claim(worker_id, limit))

    def _held(self, worker_id: str) -> int:
        return sum(1 for j in self.jobs.values() if j["workerId"] == worker_id and j["status"] == "POLLED")

    def _claim(self, worker_id: str, limit: int, *, fenced: bool = False) -> List[Dict[str, Any]]:
        """Claims up to limit queued jobs (fenced: never past the worker's concurrency, as /next does)."""
        with self.cond:
            if fenced:
                limit = min(limit, self.concurrency.get(worker_id, 1) - self._held(worker_id))
            claimed = []
            while self.pending and len(claimed) < limit and self.directive == "RUN":
                job = self.jobs[self.pending.popleft()]
                job.update(status="POLLED", workerId=worker_id, attempt=job["attempt"] + 1, claimedAt=time.monotonic(),
                           scheduled=False, progressRecorded=None)
                claimed.append(dict(job))
            self.most_held[worker_id] = max(self.most_held.get(worker_id, 0), self._held(worker_id))
            return claimed

    def _push(self, call: Call) -> Reply:
        body = call.body
        refused = self._worker(call, body.get("workerId"))
        return refused or self._land(body)

    def _land(self, body: Dict[str, Any]) -> Reply:
        with self.cond:
            job = self.jobs.get(body["jobId"])
            if job is None:
                return problem(404, "job-not-found")
            if (job["status"] == "PUSHED" and job.get("pushed") == body) or body in job.get("retried", []):
                return Reply(200, dict(job))
            if job["status"] != "POLLED" or job["workerId"] != body["workerId"] or job["attempt"] != body["attempt"]:
                return problem(409, "job-not-held", "not your claim", jobStatus=job["status"],
                               outcome=job.get("outcome"))
            if body["status"] == "FAILURE" and job.get("retryPolicy"):
                job["errors"] = job["errors"] + [{"attempt": job["attempt"], "workerId": body["workerId"],
                                                  "error": body.get("error"), "at": "now"}]
                if self._retries(job, body.get("error")):
                    job.update(status="PENDING", scheduled=True, runAt="soon", workerId=None, error=body.get("error"),
                               retried=job.get("retried", []) + [body])
                    self.pending.append(job["id"])
                    self.cond.notify_all()
                    return Reply(200, dict(job))
                if job["retryPolicy"].get("onExhausted") == "PARK":
                    job.update(status="PARKED", error=body.get("error"), pushed=body)
                    return Reply(200, dict(job))
            job.update(status="PUSHED", outcome=body["status"], pushed=body)
            self.results_feed.append(dict(job))
            self.cond.notify_all()
            return Reply(200, dict(job))

    @staticmethod
    def _retries(job: Dict[str, Any], error: Any) -> bool:
        """Whether the job's retry policy runs it again after this error (attempts left, a retryable error)."""
        policy = job["retryPolicy"]
        error = error if isinstance(error, dict) else {}
        code = error.get("code")
        final = error.get("retryable") is False or any(
            code is not None and (code == p or (p.endswith("*") and code.startswith(p[:-1])))
            for p in policy.get("nonRetryableErrors") or [])
        return not final and job["attempt"] < policy.get("maxAttempts", job.get("maxAttempts", 3))

    def _progress(self, call: Call) -> Reply:
        """Fenced as a push; recorded at most once every progress_gap seconds per job."""
        body = call.body
        refused = self._worker(call, body.get("workerId"))
        if refused:
            return refused
        with self.cond:
            job = self.jobs.get(body["jobId"])
            if job is None:
                return problem(404, "job-not-found")
            if job["status"] != "POLLED" or job["workerId"] != body["workerId"] or job["attempt"] != body["attempt"]:
                return problem(409, "job-not-held", "not your claim", jobStatus=job["status"])
            if not 0 <= body["percent"] <= 100 or len(body.get("message") or "") > 200:
                return problem(400, "invalid-request", "percent or message")
            now = time.monotonic()
            if job.get("progressRecorded") is not None and now - job["progressRecorded"] < self.progress_gap:
                return Reply(200, {"jobId": job["id"], "recorded": False, "deadline": None})
            job.update(progressPercent=body["percent"], progressMessage=body.get("message"), progressRecorded=now,
                       progressAt="now")
            return Reply(200, {"jobId": job["id"], "recorded": True, "deadline": "2026-11-22T02:50:00Z"})

    def _next(self, call: Call) -> Reply:
        """The pushes land one by one as single pushes would; then up to limit jobs are claimed, never past
        the worker's concurrency, and never waiting."""
        worker_id = call.body.get("workerId")
        refused = self._worker(call, worker_id)
        if refused:
            return refused
        results = call.body.get("results") or []
        if any(body.get("workerId") != worker_id for body in results):
            return problem(400, "bad-request", "results[].workerId: every push must name the request's workerId")
        with self.cond:
            items = []
            for body in results:
                landed = self._land(body)
                items.append({"jobId": body["jobId"], "status": landed.status,
                              "job": landed.body if landed.status == 200 else None,
                              "problem": None if landed.status == 200 else landed.body})
            jobs = self._claim(worker_id, call.body.get("limit", 1), fenced=True)
            return Reply(200, {"results": items, "jobs": jobs})

    def _get_worker(self, call: Call) -> Reply:
        worker_id = call.path.split("/")[2]
        refused = self._worker(call, worker_id)
        if refused:
            return refused
        with self.cond:
            held = sum(1 for j in self.jobs.values() if j["workerId"] == worker_id and j["status"] == "POLLED")
        return Reply(200, {"id": worker_id, "state": "ONLINE", "heldJobs": held})

    def _unregister(self, call: Call) -> Reply:
        worker_id = call.path.split("/")[2]
        refused = self._worker(call, worker_id)
        return refused or Reply(200, {"id": worker_id, "state": "OFFLINE"})

    def _engine(self, call: Call) -> Optional[Reply]:
        return None if call.token == ENGINE_TOKEN else problem(401, "unauthorized")

    def _create(self, call: Call) -> Reply:
        refused = self._engine(call)
        if refused:
            return refused
        items = call.body if isinstance(call.body, list) else [call.body]
        made = []
        for item in items:
            block = (item["functionBlockId"].replace("fb-", "", 1) if "functionBlockId" in item
                     else f"{item['functionBlockName']}@{item.get('functionBlockVersion', '1')}")
            job_id = self.add_job(item.get("payload"), type=item["type"], block=block)
            self.jobs[job_id].update({k: v for k, v in item.items() if k not in ("payload", "type")})
            made.append(dict(self.jobs[job_id]))
        return Reply(201, made if isinstance(call.body, list) else made[0])

    def _get_job(self, call: Call) -> Reply:
        job = self.jobs.get(call.path.split("/")[3])
        return self._engine(call) or (Reply(200, job) if job else problem(404, "job-not-found"))

    def _cancel(self, call: Call) -> Reply:
        job = self.jobs.get(call.path.split("/")[3])
        if job is None:
            return problem(404, "job-not-found")
        job.update(status="PUSHED", outcome="CANCELLED")
        return self._engine(call) or Reply(200, job)

    def _results(self, call: Call) -> Reply:
        query = dict(p.split("=", 1) for p in call.path.split("?", 1)[1].split("&"))
        start = int(query.get("after", "0-0").split("-")[1])
        page = self.results_feed[start:start + int(query.get("limit", 100))]
        return self._engine(call) or Reply(200, {"results": page, "next": f"1-{start + len(page)}"})

    def _catalog(self, call: Call) -> Reply:
        return self._engine(call) or Reply(200, [{"id": "fb-echo@1", "name": "echo", "version": "1"},
                                                 {"id": "fb-two@1", "name": "two", "version": "1"},
                                                 {"id": "fb-two@2", "name": "two", "version": "2"}])
