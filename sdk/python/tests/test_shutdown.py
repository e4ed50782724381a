"""Graceful shutdown: abort the parked poll, drain while pinging, release ping after the orphan grace,
unregister last; and the forced stop."""

import threading
import time
import unittest

import _support  # noqa: F401
from worker_case import WorkerCase

from blackboard_worker import StopReason, WorkerState

PING = "POST /workers/*/ping"
POLL = "POST /blackboard/job"
UNREGISTER = "POST /workers/*/unregister"


class GracefulShutdown(WorkerCase):
    stub_options = {"orphan_grace_ms": 400}

    def test_the_shutdown_sequence(self):
        release = threading.Event()
        self.block()(lambda ctx, params: release.wait(5) and {"lines": 1})
        worker = self.worker(concurrency=2, poll_wait=1.0)
        outcome = self.run_in_thread(worker)
        running = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[running]["status"] == "POLLED")
        # the second slot's poll is parked
        self.stub.wait_for(lambda: len(self.stub.calls_to(POLL)) == 2)
        parked = self.stub.calls_to(POLL)[1]
        stopped_at = time.monotonic()
        worker.stop()
        self.wait_until(lambda: worker.state is WorkerState.DRAINING)
        # Like the real server, the stub goes on serving the parked poll after the worker aborted it:
        # it claims this job, and its answer reaches no one (a lost claim).
        lost = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[lost]["status"] == "POLLED")
        time.sleep(0.15)
        self.assertTrue(self.stub.pinged_with(running, after=stopped_at), "pings go on during the drain")
        release.set()
        self.wait_until(lambda: outcome, timeout=5)

        self.assertEqual([0], outcome)
        self.assertEqual(StopReason.CLOSED, worker.stop_reason)
        self.assertEqual(2, len(self.stub.calls_to(POLL)), "no poll after the stop")
        push = self.stub.pushes(running)[0]
        self.assertEqual("SUCCESS", push.body["status"])
        self.assertEqual([], self.stub.pushes(lost))
        release_ping = self.stub.calls_to(PING)[-1]
        self.assertEqual([], release_ping.body["activeJobIds"])
        grace = 0.4
        self.assertGreaterEqual(release_ping.at, self.stub.jobs[lost]["claimedAt"] + grace,
                                "the lost claim is older than the orphan grace: the release ping frees it")
        self.assertGreaterEqual(release_ping.at, parked.at + 1.0 + grace, "the aborted poll's waitMs is waited out")
        self.assertLess(release_ping.at, parked.at + 1.0 + grace + 1.0)
        self.assertGreater(release_ping.at, push.at)
        self.assertEqual(UNREGISTER, self.stub.calls[-1].route)
        self.assertEqual(PING, self.stub.calls[-2].route)

    def test_an_aborted_poll_that_claimed_nothing_costs_its_waitms_but_no_orphan_grace(self):
        self.stub.orphan_grace_ms = 5000
        self.block()(lambda ctx, params: {})
        worker = self.worker(poll_wait=0.5).start()
        self.stub.wait_for(lambda: self.stub.calls_to(POLL))
        parked = self.stub.calls_to(POLL)[-1]
        worker.stop()
        self.assertTrue(worker.wait(4))
        release_ping = self.stub.calls_to(PING)[-1]
        self.assertGreaterEqual(release_ping.at, parked.at + 0.5, "no release ping while the poll may claim")
        self.assertLess(release_ping.at, parked.at + 0.5 + 2.0, "the server holds nothing more: no grace")
        routes = [call.route for call in self.stub.calls]
        # the held-jobs check comes before the release ping (a heartbeat may fall in between when slow)
        self.assertIn("GET /workers/*", routes[routes.index(POLL):-2])
        self.assertEqual(PING, routes[-2])
        self.assertEqual(UNREGISTER, routes[-1])

    def test_without_a_poll_in_flight_there_is_no_orphan_grace_to_wait(self):
        self.stub.orphan_grace_ms = 3000
        started, release = threading.Event(), threading.Event()
        self.block()(lambda ctx, params: started.set() or release.wait(5) and {})
        worker = self.worker(concurrency=1).start()
        self.stub.add_job()
        self.assertTrue(started.wait(2))
        stopped_at = time.monotonic()
        worker.stop()
        release.set()
        self.assertTrue(worker.wait(2))
        self.assertLess(time.monotonic() - stopped_at, 1.0)
        self.assertEqual(UNREGISTER, self.stub.calls[-1].route)

    def test_jobs_left_after_the_drain_timeout_are_cancelled_listed_in_the_release_ping_and_not_pushed(self):
        started, cancelled, done = threading.Event(), threading.Event(), threading.Event()
        self.addCleanup(done.set)

        @self.block()
        def stubborn(ctx, params):
            started.set()
            ctx.cancelled.wait(5)
            cancelled.set()
            done.wait(5)  # a device session that does not give up
            return {}

        worker = self.worker(drain_timeout=0.2, cancel_grace=0.1).start()
        job = self.stub.add_job()
        self.assertTrue(started.wait(2))
        worker.stop()
        self.assertTrue(worker.wait(3))
        self.assertTrue(cancelled.is_set())
        self.assertEqual([job], self.stub.calls_to(PING)[-1].body["activeJobIds"])
        self.assertEqual(UNREGISTER, self.stub.calls[-1].route)
        done.set()
        time.sleep(0.1)
        self.assertEqual([], self.stub.pushes(job))

    def test_a_forced_stop_skips_the_drain_and_the_release_ping_but_unregisters(self):
        done = threading.Event()
        self.addCleanup(done.set)
        self.block()(lambda ctx, params: done.wait(10) and {})
        worker = self.worker(drain_timeout=10)
        outcome = self.run_in_thread(worker)
        job = self.stub.add_job()
        self.stub.wait_for(lambda: self.stub.jobs[job]["status"] == "POLLED")
        worker.stop()
        self.wait_until(lambda: worker.state is WorkerState.DRAINING)
        pings = len(self.stub.calls_to(PING))
        forced_at = time.monotonic()
        worker.force()
        self.wait_until(lambda: outcome, timeout=3)
        self.assertLess(time.monotonic() - forced_at, 1.0)
        self.assertEqual([1], outcome)
        self.assertEqual(UNREGISTER, self.stub.calls[-1].route)
        self.assertLessEqual(len(self.stub.calls_to(PING)), pings + 1)  # at most one routine ping in flight

    def test_close_before_start_and_twice_is_harmless(self):
        self.block()(lambda ctx, params: {})
        worker = self.worker()
        worker.close()
        other = self.worker().start()
        other.close()
        other.close()
        self.assertEqual(WorkerState.STOPPED, other.state)

    def test_a_worker_is_a_context_manager(self):
        self.block()(lambda ctx, params: {"ok": True})
        with self.worker() as worker:
            job = self.stub.add_job()
            self.stub.wait_for(lambda: self.stub.pushes(job))
        self.assertEqual(WorkerState.STOPPED, worker.state)
        self.assertEqual(UNREGISTER, self.stub.calls[-1].route)


if __name__ == "__main__":
    unittest.main()
