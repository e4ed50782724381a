"""An Open Job Spec worker (and producer) that talks to Blackboard's OJS binding only: /ojs/v1.

It needs neither the Blackboard SDK nor registration: it names itself with --worker-id, and the server
makes that name a Blackboard worker on its first fetch or heartbeat. Its token is one of the server's
BLACKBOARD_OJS_WORKER_TOKENS. Standard library only, Python 3.9+.

    python3 sdk/python/examples/ojs_worker.py --url http://localhost:8080 --token "$TOKEN" \\
        --queue default --worker-id ojs-1 --enqueue 10 --type echo --fail-every 3 --idle-exit-s 5

--enqueue N --type T first enqueues N jobs of type T (args [{"n": i}]) into the queue, with a retry
policy of 3 attempts 0.1 s apart (the token then needs the engine role too). The worker then fetches one
job at a time, runs the echo handler ({"n": ..., "by": worker id}) and acks it; with --fail-every K it
nacks every K-th job it runs instead, as a retryable handler_error, if that was the job's first attempt
(so the retry, whoever runs it, succeeds). A heartbeat thread beats every --heartbeat-s seconds with the
job in hand; the answer's state "quiet" stops the fetching, "terminate" ends the worker. Each job run is
one JSON line on stdout: {"job_id": ..., "attempt": ..., "outcome": "ack" | "nack" | "lost" | "error"} ("lost":
the ack or nack was refused with 409, the job is no longer this worker's; "error": any other failure, after
which the job comes back when its lease runs out). It exits after --max-jobs jobs, or
--idle-exit-s seconds without a job, or on terminate; exit status 0, or 1 after fetches failed for 30 s.
"""

import argparse
import json
import sys
import threading
import time
import urllib.error
import urllib.request

API = "/ojs/v1"
FETCH_WAIT_MS = 1000                # a fetch asks to wait up to this long for a job (Blackboard answers at once)
RETRY = {"max_attempts": 3, "initial_interval": "PT0.1S", "backoff_coefficient": 2.0,
         "max_interval": "PT1S", "jitter": False}
UNAVAILABLE_FOR_S = 30              # give up after the server was unreachable this long


class Client:
    """JSON over HTTP with a bearer token: post(path, body) answers (status, body as a dict)."""

    def __init__(self, url, token):
        self.url = url.rstrip("/")
        self.token = token

    def post(self, path, body):
        request = urllib.request.Request(self.url + API + path, data=json.dumps(body).encode("utf-8"), method="POST",
                                         headers={"Content-Type": "application/openjobspec+json",
                                                  "Accept": "application/openjobspec+json, application/json",
                                                  "Authorization": "Bearer " + self.token})
        try:
            with urllib.request.urlopen(request, timeout=FETCH_WAIT_MS / 1000 + 30) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return e.code, json.loads(text or b"{}")
            except ValueError:
                return e.code, {"error": {"code": "not_json", "message": text[:200].decode("utf-8", "replace")}}


def job_request(job_type, queue, n):
    """The enqueue body of the n-th job."""
    return {"type": job_type, "args": [{"n": n}], "options": {"queue": queue, "retry": RETRY}}


def handle(job, worker_id):
    """The handler: echoes the job's first argument's n, and says who ran it."""
    args = job.get("args") or [{}]
    first = args[0] if isinstance(args[0], dict) else {}
    return {"n": first.get("n"), "by": worker_id}


def should_fail(job, handled, fail_every):
    """With --fail-every K: nack the K-th, 2K-th, ... job run, but only on its first attempt."""
    return bool(fail_every) and (handled + 1) % fail_every == 0 and job.get("attempt", 1) <= 1


def emit(line):
    print(json.dumps(line), flush=True)


def log(message):
    print(message, file=sys.stderr, flush=True)


class Worker:
    def __init__(self, client, args):
        self.client = client
        self.args = args
        self.active = set()         # the ids of the jobs in hand, for the heartbeat
        self.lock = threading.Lock()
        self.state = "running"      # the last heartbeat's state: running, quiet or terminate
        self.stopped = threading.Event()

    def beat_forever(self):
        while not self.stopped.wait(self.args.heartbeat_s):
            with self.lock:
                active = sorted(self.active)
            try:
                status, reply = self.client.post("/workers/heartbeat",
                                                 {"worker_id": self.args.worker_id, "active_jobs": active})
            except OSError as e:
                log(f"heartbeat failed: {e}")
                continue
            if status == 200 and reply.get("state") in ("running", "quiet", "terminate"):
                if reply["state"] != self.state:
                    log(f"state {self.state} -> {reply['state']}")
                self.state = reply["state"]
            else:
                log(f"heartbeat answered {status}: {reply}")

    def run(self):
        beater = threading.Thread(target=self.beat_forever, name="heartbeat", daemon=True)
        beater.start()
        handled, last_job, unavailable_since = 0, time.monotonic(), None
        try:
            while self.state != "terminate" and (not self.args.max_jobs or handled < self.args.max_jobs):
                if self.args.idle_exit_s and time.monotonic() - last_job > self.args.idle_exit_s:
                    log(f"no job for {self.args.idle_exit_s} s: exiting")
                    break
                if self.state == "quiet":
                    time.sleep(0.2)
                    continue
                try:
                    status, reply = self.client.post("/workers/fetch", {
                        "queues": [self.args.queue], "count": 1, "worker_id": self.args.worker_id,
                        "wait_ms": FETCH_WAIT_MS})
                except OSError as e:
                    status, reply = 0, {"error": {"message": str(e)}}
                if status != 200:
                    unavailable_since = unavailable_since or time.monotonic()
                    if time.monotonic() - unavailable_since > UNAVAILABLE_FOR_S:
                        log(f"fetches failed for {UNAVAILABLE_FOR_S} s; the last answered {status}: {reply}")
                        return 1
                    log(f"fetch answered {status}: {reply}")
                    time.sleep(1)
                    continue
                unavailable_since = None
                jobs = reply.get("jobs") or []
                if not jobs:
                    time.sleep(0.05)  # a server that does not wait for wait_ms is not hammered
                    continue
                for job in jobs:
                    self.run_one(job, handled)
                    handled += 1
                last_job = time.monotonic()
            return 0
        finally:
            self.stopped.set()

    def run_one(self, job, handled):
        job_id, attempt = job["id"], job.get("attempt")
        with self.lock:
            self.active.add(job_id)
        try:
            if self.args.work_ms:
                time.sleep(self.args.work_ms / 1000)
            if should_fail(job, handled, self.args.fail_every):
                outcome, path, body = "nack", "/workers/nack", {
                    "job_id": job_id, "worker_id": self.args.worker_id,
                    "error": {"code": "handler_error", "message": f"failing job {handled + 1} on purpose",
                              "retryable": True}}
            else:
                outcome, path, body = "ack", "/workers/ack", {
                    "job_id": job_id, "worker_id": self.args.worker_id, "result": handle(job, self.args.worker_id)}
            try:
                status, reply = self.client.post(path, body)
            except OSError as e:
                status, reply = 0, {"error": {"message": str(e)}}
            if status == 409:
                outcome = "lost"
            elif status != 200:  # the job's lease will run out and the job come back
                log(f"{path} of {job_id} answered {status}: {reply}")
                outcome = "error"
            emit({"job_id": job_id, "attempt": attempt, "outcome": outcome})
        finally:
            with self.lock:
                self.active.discard(job_id)


def enqueue(client, args):
    for n in range(args.enqueue):
        status, reply = client.post("/jobs", job_request(args.type, args.queue, n))
        if status != 201:
            raise RuntimeError(f"enqueue {n} answered {status}: {reply}")
    log(f"enqueued {args.enqueue} jobs of type {args.type} into {args.queue}")


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--queue", default="default")
    p.add_argument("--worker-id", required=True)
    p.add_argument("--enqueue", type=int, default=0, metavar="N", help="enqueue N jobs first")
    p.add_argument("--type", default="echo", help="the type of the jobs enqueued")
    p.add_argument("--fail-every", type=int, default=0, metavar="K", help="nack every K-th job once")
    p.add_argument("--work-ms", type=int, default=0, help="how long the handler takes")
    p.add_argument("--heartbeat-s", type=float, default=5.0)
    stop = p.add_mutually_exclusive_group()
    stop.add_argument("--max-jobs", type=int, default=0, metavar="M")
    stop.add_argument("--idle-exit-s", type=float, default=0, metavar="S")
    return p.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    client = Client(args.url, args.token)
    if args.enqueue:
        enqueue(client, args)
    return Worker(client, args).run()


if __name__ == "__main__":
    sys.exit(main())
