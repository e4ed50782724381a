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

            assertThat(heard.get(JobNotifications.CHANNEL)).contains(echo.toString());
            assertThat(heard.get(JobNotifications.PUSHED_CHANNEL)).isNotBlank();
        }
    }
}
