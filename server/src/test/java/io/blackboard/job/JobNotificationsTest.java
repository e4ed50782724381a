package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.nio.charset.StandardCharsets;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import tools.jackson.databind.json.JsonMapper;

/** What the other replicas hear: a NOTIFY per channel, from the sender's batched, async-committed statement. */
class JobNotificationsTest extends BlackboardTest {

    @Autowired
    JdbcConnectionDetails database;

    @Autowired
    JobNotifications notifications;

    @Autowired
    JsonMapper json;

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

    /**
     * Creates landing every millisecond: their "jobs became PENDING" go in a NOTIFY at most every
     * 2 ms, each job counted once.
     */
    @Test
    void pendingJobsInQuickSuccessionShareNotifications() throws Exception {
        UUID block = UUID.randomUUID();
        try (Connection listener = JobNotifications.connect(database, "another-replica")) {
            try (Statement listen = listener.createStatement()) {
                listen.execute("listen " + JobNotifications.CHANNEL);
            }
            long start = System.nanoTime();
            for (int i = 0; i < 60; i++) {
                notifications.send(List.of(new JobSignals.Signal(block, null, 1))); // a create after its commit
                Thread.sleep(1);
            }
            long creating = System.nanoTime() - start;

            long told = 0;
            int jobs = 0;
            long quiet = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < quiet) {
                PGNotification[] heard = listener.unwrap(PGConnection.class).getNotifications(100);
                for (PGNotification notification : heard == null ? new PGNotification[0] : heard) {
                    JobNotifications.Message message = json.readValue(notification.getParameter(),
                            JobNotifications.Message.class);
                    int count = message.signals().stream().filter(signal -> signal.functionBlockId().equals(block))
                            .mapToInt(JobSignals.Signal::count).sum();
                    told += count > 0 ? 1 : 0;
                    jobs += count;
                }
            }

            assertThat(jobs).as("every job is counted once").isEqualTo(60);
            assertThat(told).as("PENDING notifications for 60 creates in %d ms", creating / 1_000_000)
                    .isBetween(1L, creating / JobNotifications.NOTIFY_EVERY_NANOS + 2);
        }
    }

    /**
     * Four hundred signals at once, and one whose selector alone is far above NOTIFY's 8000 bytes
     * (64 labels of multi-byte characters): every block is told, in messages PostgreSQL takes,
     * the large one without its selector (which wakes every poll of its block to look).
     */
    @Test
    void manySignalsAndAHugeSelectorGoInMessagesThatFit() throws Exception {
        Map<UUID, JobSignals.Signal> sent = new HashMap<>();
        for (int i = 0; i < 400; i++) {
            JobSignals.Signal signal = new JobSignals.Signal(UUID.randomUUID(), Map.of("site", "s" + i), 1);
            sent.put(signal.functionBlockId(), signal);
        }
        Map<String, String> huge = new HashMap<>();
        for (int i = 0; i < 64; i++) {
            huge.put("label-" + i + "-" + "\u00e9".repeat(90), "\u00fc".repeat(500));
        }
        UUID hugeBlock = UUID.randomUUID();
        try (Connection listener = JobNotifications.connect(database, "another-replica")) {
            try (Statement listen = listener.createStatement()) {
                listen.execute("listen " + JobNotifications.CHANNEL);
            }
            List<JobSignals.Signal> signals = new ArrayList<>(sent.values());
            signals.add(new JobSignals.Signal(hugeBlock, huge, 2));
            notifications.send(signals);

            Map<UUID, JobSignals.Signal> told = new HashMap<>();
            int messages = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (told.size() < 401 && System.nanoTime() < deadline) {
                PGNotification[] heard = listener.unwrap(PGConnection.class).getNotifications(200);
                for (PGNotification notification : heard == null ? new PGNotification[0] : heard) {
                    assertThat(notification.getParameter().getBytes(StandardCharsets.UTF_8).length).isLessThan(8000);
                    messages++;
                    json.readValue(notification.getParameter(), JobNotifications.Message.class).signals()
                            .forEach(signal -> told.put(signal.functionBlockId(), signal));
                }
            }

            assertThat(told).hasSize(401).containsAllEntriesOf(sent);
            assertThat(told.get(hugeBlock)).isEqualTo(new JobSignals.Signal(hugeBlock, null, 2));
            assertThat(messages).as("split into several messages").isGreaterThan(1);
        }
    }
}
