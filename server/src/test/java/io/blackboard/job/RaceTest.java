package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Races made deterministic: one side is held inside its transaction at the racy point while
 * the other runs to completion.
 */
class RaceTest extends BlackboardTest {

    @Autowired
    ClaimStore claims;

    @Autowired
    PushStore pushes;

    @Autowired
    StuckJobSweeper stuckJobs;

    @Autowired
    TransactionTemplate tx;

    @Test
    void twoClaimersAtTheSamePointOnOneJobOneGetsItAndTheOtherAnEmptyAnswer() throws Exception {
        workerServingEcho(Map.of());
        UUID second = worker("second", Map.of(), List.of(block("echo", "1.0.0")));
        UUID job = createJob(echo, Map.of());
        CountDownLatch firstClaimed = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);

        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            // the first claimer has picked and updated the job, and is held before its commit
            Future<List<JobView>> first = pool.submit(() -> tx.execute(status -> {
                List<JobView> got = claimOnce(worker);
                firstClaimed.countDown();
                await(release);
                return got;
            }));
            assertThat(firstClaimed.await(10, TimeUnit.SECONDS)).isTrue();
            Future<List<JobView>> other = pool.submit(() -> tx.execute(status -> claimOnce(second)));

            assertThat(other.get(10, TimeUnit.SECONDS)).as("the second claimer, without waiting").isEmpty();
            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).extracting(JobView::id).containsExactly(job);
        }
        assertThat(job(job).get("workerId").asString()).isEqualTo(worker.toString());
        assertThat(jdbc.sql("select count(*) from job_event where kind = 'CLAIMED'").query(Long.class).single())
                .isEqualTo(1);
    }

    /**
     * The sweeper's read and write are one guarded statement; the racy moment is a push that
     * has already changed the row when the sweeper reaches it. The push holds the row, the
     * sweeper passes over it, the push commits: the push stands and the sweeper changed nothing.
     */
    @Test
    void aSweeperRacingAPushLeavesThePushStanding() throws Exception {
        workerServingEcho(Map.of());
        UUID job = createJob(echo, Map.of());
        claim(worker, 1);
        expire(job);
        CountDownLatch pushed = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);

        try (ExecutorService pool = Executors.newFixedThreadPool(2)) {
            Future<?> push = pool.submit(() -> tx.executeWithoutResult(status -> {
                assertThat(pushes.push(new PushStore.Push(job, worker, 1, PushStatus.SUCCESS, "{\"ok\": true}", null, null,
                        null), false)).isPresent();
                pushed.countDown();
                await(release);
            }));
            assertThat(pushed.await(10, TimeUnit.SECONDS)).isTrue();
            StuckJobSweeper.Result swept = pool.submit(stuckJobs::runOnce).get(10, TimeUnit.SECONDS);
            release.countDown();
            push.get(10, TimeUnit.SECONDS);

            assertThat(swept).isEqualTo(new StuckJobSweeper.Result(0, 0));
        }
        assertThat(job(job).get("outcome").asString()).isEqualTo("SUCCESS");
        assertThat(stuckJobs.runOnce()).as("and later passes leave it alone").isEqualTo(new StuckJobSweeper.Result(0, 0));
    }

    private List<JobView> claimOnce(UUID workerId) {
        ClaimStore.PollingWorker polling = claims.lockForPoll(workerId).orElseThrow();
        return claims.claim(workerId, polling, polling.functionBlockIds(),
                Collections.nCopies(polling.functionBlockIds().size(), null), 1, Duration.ofMinutes(12));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
