package io.blackboard.job;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sends, and through {@link JobNotificationListener} receives, "jobs became PENDING" (channel {@value #CHANNEL}) and "jobs became PUSHED" (channel
 * {@value #PUSHED_CHANNEL}, for result-feed readers) between replicas with PostgreSQL
 * LISTEN/NOTIFY, each on a dedicated connection outside the pool. Sending is asynchronous and
 * coalesced, so no transaction waits for a NOTIFY. A lost notification costs latency only: parked
 * polls and feed readers also re-check periodically.
 */
@Component
class JobNotifications implements SmartLifecycle {

    static final String CHANNEL = "blackboard_jobs";
    static final String PUSHED_CHANNEL = "blackboard_results";
    /** Stands in the outbox for "jobs became PUSHED"; at most one is queued at a time. */
    private static final JobSignals.Signal PUSHED = new JobSignals.Signal(new UUID(0, 0), null, 0);
    private static final Logger log = LoggerFactory.getLogger(JobNotifications.class);
    private static final int MAX_PAYLOAD = 7000;
    /** The least time between two "jobs became PUSHED" notifications of this replica. */
    static final long PUSHED_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /**
     * The least time between two NOTIFY statements of this replica: under a stream of creates,
     * the signals of that time go in one (each statement is a transaction for PostgreSQL and a
     * wake-up of every replica's listener). A signal after a quiet spell goes at once.
     */
    static final long NOTIFY_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /** What travels in one NOTIFY: the sending replica and its signals. */
    record Message(String origin, List<JobSignals.Signal> signals) {
    }

    /** How every message of the replica {@code origin} begins as written: its listener skips them unread. */
    static String messagePrefix(String origin) {
        return "{\"origin\":\"" + origin + "\"";
    }

    /** This replica's id in its messages. */
    String origin() {
        return origin;
    }

    private final JdbcConnectionDetails database;
    private final JsonMapper json;
    private final String origin = UUID.randomUUID().toString();
    private final BlockingQueue<JobSignals.Signal> outbox = new LinkedBlockingQueue<>(100_000);
    private final AtomicBoolean pushedQueued = new AtomicBoolean();
    private final PollWaiters waiters;
    private final ResultWaiters readers;
    private volatile boolean running;
    /** The sending thread of the current start; one left over from an earlier start ends. */
    private volatile Thread sender;
    private volatile JobNotificationListener listener;
    private Thread listening;

    JobNotifications(JdbcConnectionDetails database, PollWaiters waiters, ResultWaiters readers, JsonMapper json) {
        this.database = database;
        this.waiters = waiters;
        this.readers = readers;
        this.json = json;
    }

    void send(List<JobSignals.Signal> signals) {
        for (JobSignals.Signal signal : signals) {
            if (!outbox.offer(signal)) {
                log.warn("Notification outbox full; parked polls on other replicas will find the jobs on re-check");
                return;
            }
        }
    }

    /** Tells the other replicas' feed readers that jobs became PUSHED; one NOTIFY per send, however many. */
    void sendPushed() {
        if (pushedQueued.compareAndSet(false, true) && !outbox.offer(PUSHED)) {
            pushedQueued.set(false);
        }
    }

    /** The backend pid of the LISTEN connection (0 while disconnected), for operators and tests. */
    int listenerBackendPid() {
        JobNotificationListener current = listener;
        return current == null ? 0 : current.backendPid();
    }

    @Override
    public void start() {
        running = true;
        sender = Thread.ofVirtual().name("notify-sender").unstarted(this::sendLoop);
        sender.start();
        // a new listener each time: one that a stop interrupted may still be winding down
        listener = new JobNotificationListener(database, waiters, readers, json, origin);
        listening = Thread.ofVirtual().name("notify-listener").start(listener::run);
    }

    @Override
    public void stop() {
        running = false;
        listener.stop();
        sender.interrupt();
        listening.interrupt();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Sends what the outbox holds, one statement per round, at most every
     * {@link #NOTIFY_EVERY_NANOS}. "Jobs became PUSHED" goes at most every
     * {@link #PUSHED_EVERY_NANOS}: a busy replica lands hundreds of pushes a second, and
     * each NOTIFY is a transaction of its own for PostgreSQL and a wake-up of every other
     * replica's listener, for feed readers that then read every result since their cursor
     * anyway. "Jobs became PENDING" goes in the next round: a parked poll waits on it.
     */
    private void sendLoop() {
        Connection connection = null;
        boolean pushedDue = false; // a PUSHED notification waits for its turn
        long pushedSentAt = System.nanoTime() - PUSHED_EVERY_NANOS;
        long sentAt = System.nanoTime() - NOTIFY_EVERY_NANOS;
        while (running && Thread.currentThread() == sender) {
            JobSignals.Signal first = null;
            try {
                long now = System.nanoTime();
                long untilPushed = Math.max(PUSHED_EVERY_NANOS - (now - pushedSentAt),
                        NOTIFY_EVERY_NANOS - (now - sentAt));
                first = outbox.poll(pushedDue ? Math.max(0, untilPushed) : TimeUnit.SECONDS.toNanos(1),
                        TimeUnit.NANOSECONDS);
                List<JobSignals.Signal> batch = new ArrayList<>();
                if (first != null) {
                    long early = NOTIFY_EVERY_NANOS - (System.nanoTime() - sentAt);
                    if (early > 0) {
                        TimeUnit.NANOSECONDS.sleep(early); // what comes meanwhile goes along
                    }
                    batch.add(first);
                    first = null;
                    outbox.drainTo(batch);
                }
                pushedDue |= batch.removeIf(signal -> signal == PUSHED);
                boolean pushed = pushedDue && System.nanoTime() - pushedSentAt >= PUSHED_EVERY_NANOS;
                if (batch.isEmpty() && !pushed) {
                    continue;
                }
                if (pushed) {
                    pushedQueued.set(false); // pushes from now on queue another notification
                }
                if (connection == null || connection.isClosed()) {
                    connection = connectSender(database);
                }
                List<String> channels = new ArrayList<>();
                List<String> payloads = new ArrayList<>();
                for (String payload : payloads(coalesce(batch))) {
                    channels.add(CHANNEL);
                    payloads.add(payload);
                }
                if (pushed) {
                    channels.add(PUSHED_CHANNEL);
                    payloads.add(origin);
                }
                notify(connection, channels, payloads);
                sentAt = System.nanoTime();
                if (pushed) {
                    pushedDue = false;
                    pushedSentAt = System.nanoTime();
                }
            } catch (InterruptedException e) {
                // stopped: what was taken and not sent goes back for the next start
                if (first != null && !outbox.offer(first) && first == PUSHED) {
                    pushedQueued.set(false);
                }
                Thread.currentThread().interrupt();
                break;
            } catch (SQLException | RuntimeException e) {
                log.warn("Could not send job notifications ({}); other replicas will re-check", e.toString());
                close(connection);
                connection = null;
                pause(500);
            }
        }
        if (pushedDue && !outbox.offer(PUSHED)) {
            pushedQueued.set(false); // the next push queues one again
        }
        close(connection);
    }

    /**
     * The sending connection. Its transactions commit without waiting for the WAL flush: a
     * NOTIFY is delivered when its transaction commits, flushed or not, and a crash that could
     * lose the commit also ends every listener's connection, so nothing waits on the disk for it.
     */
    private static Connection connectSender(JdbcConnectionDetails database) throws SQLException {
        Connection connection = connect(database, "blackboard-notify");
        try (Statement async = connection.createStatement()) {
            async.execute("set synchronous_commit = off");
        } catch (SQLException e) {
            close(connection);
            throw e;
        }
        return connection;
    }

    /** Every notification of one batch in one statement, so one transaction and one commit. */
    private static void notify(Connection connection, List<String> channels, List<String> payloads)
            throws SQLException {
        try (PreparedStatement notify = connection.prepareStatement(
                "select count(pg_notify(n.channel, n.payload))"
                        + " from unnest(cast(? as text[]), cast(? as text[])) as n(channel, payload)")) {
            notify.setArray(1, connection.createArrayOf("text", channels.toArray()));
            notify.setArray(2, connection.createArrayOf("text", payloads.toArray()));
            notify.execute();
        }
    }

    private static List<JobSignals.Signal> coalesce(List<JobSignals.Signal> batch) {
        Map<List<Object>, JobSignals.Signal> merged = new LinkedHashMap<>();
        for (JobSignals.Signal signal : batch) {
            merged.merge(Arrays.asList(signal.functionBlockId(), signal.selector()), signal,
                    (a, b) -> new JobSignals.Signal(a.functionBlockId(), a.selector(), a.count() + b.count()));
        }
        return List.copyOf(merged.values());
    }

    /**
     * NOTIFY payloads must stay under 8000 bytes: the signals in messages of at most
     * {@link #MAX_PAYLOAD} bytes, each signal written once. A signal too large for a message of
     * its own (a selector of many long labels) goes without its selector, which wakes every
     * parked poll for its block to look: a wake-up too many, not one lost.
     */
    private List<String> payloads(List<JobSignals.Signal> signals) {
        String empty = json.writeValueAsString(new Message(origin, List.of()));
        if (!empty.endsWith("[]}")) {
            throw new IllegalStateException("A message is not written as expected: " + empty);
        }
        String head = empty.substring(0, empty.length() - 2);
        int frame = utf8Length(empty);
        List<String> payloads = new ArrayList<>();
        StringBuilder message = new StringBuilder(head);
        int bytes = frame;
        boolean first = true;
        for (JobSignals.Signal signal : signals) {
            String written = json.writeValueAsString(signal);
            int length = utf8Length(written);
            if (frame + length > MAX_PAYLOAD) {
                written = json.writeValueAsString(
                        new JobSignals.Signal(signal.functionBlockId(), null, signal.count()));
                length = utf8Length(written);
            }
            if (!first && bytes + 1 + length > MAX_PAYLOAD) {
                payloads.add(message.append("]}").toString());
                message = new StringBuilder(head);
                bytes = frame;
                first = true;
            }
            message.append(first ? "" : ",").append(written);
            bytes += length + (first ? 0 : 1);
            first = false;
        }
        if (!first) {
            payloads.add(message.append("]}").toString());
        }
        return payloads;
    }

    private static int utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    static Connection connect(JdbcConnectionDetails database, String applicationName) throws SQLException {
        Properties properties = new Properties();
        if (database.getUsername() != null) {
            properties.setProperty("user", database.getUsername());
        }
        if (database.getPassword() != null) {
            properties.setProperty("password", database.getPassword());
        }
        properties.setProperty("ApplicationName", applicationName);
        properties.setProperty("tcpKeepAlive", "true");
        properties.setProperty("connectTimeout", "5");
        Connection connection = DriverManager.getConnection(database.getJdbcUrl(), properties);
        connection.setAutoCommit(true);
        return connection;
    }

    static void close(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // already broken
            }
        }
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
