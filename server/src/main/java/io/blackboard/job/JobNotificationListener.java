package io.blackboard.job;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The receiving side of {@link JobNotifications}: LISTENs on both channels on a connection of its
 * own and wakes this replica's parked polls and feed readers for what other replicas sent. It
 * reconnects by itself after its connection dies, and then wakes every parked poll and feed
 * reader, since notifications may have been lost meanwhile.
 */
final class JobNotificationListener {

    private static final Logger log = LoggerFactory.getLogger(JobNotifications.class);
    private static final TypeReference<JobNotifications.Message> MESSAGE = new TypeReference<>() { };

    private final JdbcConnectionDetails database;
    private final PollWaiters waiters;
    private final ResultWaiters readers;
    private final JsonMapper json;
    private final String origin;
    private final String ownPrefix;
    private volatile boolean running = true;
    private volatile int listenerBackendPid;

    JobNotificationListener(JdbcConnectionDetails database, PollWaiters waiters, ResultWaiters readers,
            JsonMapper json, String origin) {
        this.database = database;
        this.waiters = waiters;
        this.readers = readers;
        this.json = json;
        this.origin = origin;
        this.ownPrefix = JobNotifications.messagePrefix(origin);
    }

    /** The backend pid of the LISTEN connection (0 while disconnected). */
    int backendPid() {
        return listenerBackendPid;
    }

    /** For good: a listener runs once; {@link JobNotifications} makes a new one for each start. */
    void stop() {
        running = false;
    }

    /** Listens on the calling thread until {@link #stop()}. */
    void run() {
        long backoff = 100;
        while (running) {
            try (Connection connection = JobNotifications.connect(database, "blackboard-listener")) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("listen " + JobNotifications.CHANNEL);
                    statement.execute("listen " + JobNotifications.PUSHED_CHANNEL);
                    try (ResultSet pid = statement.executeQuery("select pg_backend_pid()")) {
                        pid.next();
                        listenerBackendPid = pid.getInt(1);
                    }
                }
                log.info("Listening for job notifications (backend {})", listenerBackendPid);
                waiters.wakeAll(); // whatever was sent while we were not listening
                readers.wake();
                backoff = 100;
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] received = pg.getNotifications(1000);
                    if (received != null) {
                        for (PGNotification notification : received) {
                            if (JobNotifications.PUSHED_CHANNEL.equals(notification.getName())) {
                                if (!origin.equals(notification.getParameter())) {
                                    readers.wake();
                                }
                            } else {
                                deliver(notification.getParameter());
                            }
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listenerBackendPid = 0;
                if (running) {
                    log.warn("Job notification listener lost its connection ({}); reconnecting", e.toString());
                    JobNotifications.pause(backoff);
                    backoff = Math.min(backoff * 2, 5000);
                }
            }
        }
    }

    private void deliver(String payload) {
        if (payload.startsWith(ownPrefix)) {
            return; // this replica's own, as JobNotifications writes it: woken here already, no need to read it
        }
        try {
            JobNotifications.Message message = json.readValue(payload, MESSAGE);
            if (!origin.equals(message.origin())) {
                message.signals().forEach(s -> waiters.wake(s.functionBlockId(), s.selector(), s.count()));
            }
        } catch (RuntimeException e) {
            log.warn("Ignoring an unreadable job notification: {}", e.toString());
        }
    }
}
