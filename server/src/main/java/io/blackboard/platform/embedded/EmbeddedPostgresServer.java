package io.blackboard.platform.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL that this process starts, owns and stops: the development default when no
 * datasource is configured. Its data lives in {@code <dataDir>/postgres-<major>} and survives
 * restarts. One server process per data directory: a file lock held for the process's life says
 * which process owns it, so a second one is refused while a postmaster left behind by a killed
 * run (the lock died with it) is stopped and the data directory reused.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

    /** The PostgreSQL major version of the binaries in the pom (a data directory is tied to it). */
    static final String MAJOR = "17";
    static final String DATABASE = "blackboard";
    static final String USER = "postgres";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
    private static final Duration ORPHAN_STOP_WAIT = Duration.ofSeconds(30);

    private final Path dataDirectory;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final EmbeddedPostgres postgres;

    private EmbeddedPostgresServer(Path dataDirectory, FileChannel lockChannel, FileLock lock,
            EmbeddedPostgres postgres) {
        this.dataDirectory = dataDirectory;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.postgres = postgres;
    }

    /**
     * Starts PostgreSQL on {@code <dataDir>/postgres-17}, creating the cluster and the
     * {@value #DATABASE} database on first use.
     *
     * @throws EmbeddedPostgresRefused when another live process owns the data directory
     */
    public static EmbeddedPostgresServer start(Path dataDir, int port) throws IOException {
        return start(dataDir, port, false);
    }

    /** As {@link #start(Path, int)}; {@code fresh} first deletes the data of earlier runs (tests). */
    public static EmbeddedPostgresServer start(Path dataDir, int port, boolean fresh) throws IOException {
        Path root = dataDir.toAbsolutePath().normalize();
        Files.createDirectories(root);
        Path pgData = root.resolve("postgres-" + MAJOR);
        FileChannel channel = FileChannel.open(root.resolve("blackboard.lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = tryLock(channel);
        if (lock == null) {
            channel.close();
            throw new EmbeddedPostgresRefused("The embedded PostgreSQL's data directory " + root
                    + " is in use by another Blackboard process: the embedded database serves one server process.",
                    "Run several replicas against one shared PostgreSQL (SPRING_DATASOURCE_URL), or give this"
                            + " process a data directory of its own (BLACKBOARD_EMBEDDED_DATA_DIR).");
        }
        try {
            stopOrphanedPostmaster(pgData);
            if (fresh) {
                deleteRecursively(pgData);
            }
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(pgData)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setRegisterShutdownHook(false) // the Spring context stops it, after the pool is closed
                    // the library's defaults trade durability for speed: a kept data directory
                    // gets PostgreSQL's own (fsync, synchronous commit), a fresh test one keeps fsync off
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", fresh ? "off" : "on")
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start();
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(pgData, channel, lock, postgres);
            server.createDatabase();
            return server;
        } catch (IOException | RuntimeException e) {
            lock.release();
            channel.close();
            throw e;
        }
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // this JVM holds it already
        }
    }

    /**
     * A postmaster whose server process was killed (kill -9 runs no shutdown) keeps running and
     * holds the data directory; nobody else can own it while we hold the lock, so stop it.
     */
    private static void stopOrphanedPostmaster(Path pgData) throws IOException {
        Path pidFile = pgData.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        List<String> lines = Files.readAllLines(pidFile);
        Optional<ProcessHandle> postmaster = lines.isEmpty() ? Optional.empty()
                : ProcessHandle.of(Long.parseLong(lines.getFirst().trim()))
                        .filter(p -> p.info().command().map(c -> c.contains("postgres")).orElse(false));
        if (postmaster.isEmpty()) {
            return; // a stale pid file: PostgreSQL itself cleans it up on start
        }
        log.warn("A PostgreSQL left running by an earlier Blackboard process (pid {}) holds {}: stopping it",
                postmaster.get().pid(), pgData);
        postmaster.get().destroy(); // SIGTERM: PostgreSQL's smart shutdown, its clients are gone
        try {
            postmaster.get().onExit().get(ORPHAN_STOP_WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("The PostgreSQL left running on " + pgData + " (pid " + postmaster.get().pid()
                    + ") did not stop within " + ORPHAN_STOP_WAIT + "; stop it and start again", e);
        }
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (Files.exists(directory)) {
            try (var paths = Files.walk(directory)) {
                for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    private void createDatabase() throws IOException {
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                var exists = connection.prepareStatement("select 1 from pg_database where datname = ?")) {
            exists.setString(1, DATABASE);
            if (!exists.executeQuery().next()) {
                connection.createStatement().execute("create database " + DATABASE);
            }
        } catch (SQLException e) {
            throw new IOException("Could not create the database " + DATABASE + " in the embedded PostgreSQL", e);
        }
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/" + DATABASE;
    }

    public String username() {
        return USER;
    }

    public int port() {
        return postgres.getPort();
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Stops PostgreSQL (a fast shutdown: it waits for no client) and releases the data directory. */
    @Override
    public void close() throws IOException {
        try {
            postgres.close();
            log.info("Embedded PostgreSQL stopped; its data stays in {}", dataDirectory);
        } finally {
            lock.release();
            lockChannel.close();
        }
    }

    /** The embedded database may not be used here; the message says what to do instead. */
    public static final class EmbeddedPostgresRefused extends IllegalStateException {

        private final String action;

        EmbeddedPostgresRefused(String message, String action) {
            super(message);
            this.action = action;
        }

        String action() {
            return action;
        }
    }
}
