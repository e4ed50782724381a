package io.blackboard.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The total-queue check after a full drain (after Jepsen's): nothing acknowledged is lost,
 * nothing unexpected appears, every job ended exactly once, and no ended job changes later.
 */
final class Invariants {

    private final JdbcClient jdbc;

    Invariants(ChaosDatabase database) {
        this.jdbc = database.jdbc();
    }

    /** Waits until every job has ended (PUSHED), or fails after {@code timeout}. */
    void awaitDrained(Collection<UUID> created, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long open = Long.MAX_VALUE;
        while (System.nanoTime() < deadline) {
            open = jdbc.sql("select count(*) from job where status <> 'PUSHED'").query(Long.class).single();
            if (open == 0) {
                return;
            }
            Replica.sleep(250);
        }
        throw new AssertionError(open + " jobs still open after " + timeout);
    }

    void check(Set<UUID> created, List<SimWorker> workers) {
        Set<UUID> stored = new HashSet<>(jdbc.sql("select id from job").query(UUID.class).list());
        Set<UUID> lost = new HashSet<>(created);
        lost.removeAll(stored);
        Set<UUID> unexpected = new HashSet<>(stored);
        unexpected.removeAll(created);
        assertThat(lost).as("lost jobs").isEmpty();
        assertThat(unexpected).as("unexpected jobs").isEmpty();

        assertThat(count("select count(*) from job where status <> 'PUSHED'")).as("jobs not ended").isZero();
        assertThat(count("""
                select count(*) from job j
                 where (select count(*) from job_event e where e.job_id = j.id
                         and e.kind in ('PUSHED', 'FAILED', 'CANCELLED')) <> 1""")).as("jobs not ended exactly once")
                .isZero();
        assertThat(count("""
                select count(*) from job j
                 where (select count(*) from job_event e where e.job_id = j.id and e.kind = 'CLAIMED') <> j.attempt"""))
                .as("jobs whose claims and attempts disagree").isZero();
        assertThat(count("""
                select count(*) from job j
                 where (select kind from job_event e where e.job_id = j.id order by e.id desc limit 1)
                       not in ('PUSHED', 'FAILED', 'CANCELLED')""")).as("jobs changed after they ended").isZero();
        for (SimWorker worker : workers) {
            assertThat(worker.overLimit.get()).as("polls answered past their limit").isZero();
            assertThat(worker.maxHeld.get()).as("jobs held at once by a worker").isLessThanOrEqualTo(worker.concurrency);
            for (UUID job : worker.acknowledged) {
                String holder = jdbc.sql("select worker_id::text || outcome from job where id = :id").param("id", job)
                        .query(String.class).single();
                assertThat(holder).as("acknowledged push of " + job).isEqualTo(worker.id + "SUCCESS");
            }
        }
    }

    /** A fingerprint of every ended job, to show that nothing changes them afterwards. */
    String endedJobs(UUID functionBlock) {
        return jdbc.sql("""
                select md5(coalesce(string_agg(id::text || outcome || coalesce(failure_reason, '') || attempt
                       || pushed_at::text || coalesce(result::text, ''), ',' order by id), ''))
                  from job where status = 'PUSHED' and function_block_id = :block""")
                .param("block", functionBlock).query(String.class).single();
    }

    long count(String sql) {
        return jdbc.sql(sql).query(Long.class).single();
    }
}
