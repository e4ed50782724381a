package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;

/** What the other replicas hear: a NOTIFY per channel, from the sender's batched, async-committed statement. */
class JobNotificationsTest extends BlackboardTest {

    @Autowired
    JdbcConnectionDetails database;

    @Autowired
    JobNotifications notifications;

    @Test
    void aCreatedJobAndAPushReachAnotherReplicasListener() throws Exception {
        workerServingEcho(Map.of());
        try (Connection listener = JobNotifications.connect(database, "another-replica")) {
            try (Statement listen = listener.createStatement()) {
                listen.execute("listen " + JobNotifications.CHANNEL + "; listen " + JobNotifications.PUSHED_CHANNEL);
            }
            UUID job = claimedJob(echo);
            push(job, worker, Map.of("status", "SUCCESS"));

            Map<String, String> heard = new HashMap<>();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (heard.size() < 2 && System.nanoTime() < deadline) {
                PGNotification[] notifications = listener.unwrap(PGConnection.class).getNotifications(500);
                for (PGNotification notification : notifications == null ? new PGNotification[0] : notifications) {
                    heard.merge(notification.getName(), notification.getParameter(), (a, b) -> a + b);
                }
            }

            assertThat(heard.get(JobNotifications.CHANNEL)).contains(echo.toString())
                    .as("this replica's listener skips its own messages by how they begin, unread")
                    .startsWith(JobNotifications.messagePrefix(notifications.origin()));
            assertThat(heard.get(JobNotifications.PUSHED_CHANNEL)).isNotBlank();
        }
    }

    /** Pushes landing every millisecond: "jobs became PUSHED" goes at most every 10 ms, and the last is still told. */
    @Test
    void pushesInQuickSuccessionAreToldAtMostEveryTenMilliseconds() throws Exception {
        try (Connection listener = JobNotifications.connect(database, "another-replica")) {
            try (Statement listen = listener.createStatement()) {
                listen.execute("listen " + JobNotifications.PUSHED_CHANNEL);
            }
            long start = System.nanoTime();
            for (int i = 0; i < 60; i++) {
                notifications.sendPushed(); // what a landed push does after its commit
                Thread.sleep(1);
            }
            long pushing = System.nanoTime() - start;

            long told = 0;
            long quiet = System.nanoTime() + 1_000_000_000L; // the last notification comes within 10 ms
            while (System.nanoTime() < quiet) {
                PGNotification[] heard = listener.unwrap(PGConnection.class).getNotifications(100);
                told += heard == null ? 0 : heard.length;
            }

            assertThat(told).as("PUSHED notifications for 60 pushes in %d ms", pushing / 1_000_000)
                    .isBetween(1L, pushing / JobNotifications.PUSHED_EVERY_NANOS + 2);
        }
    }
}
