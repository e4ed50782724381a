package io.blackboard.examples;

import io.blackboard.sdk.BlackboardWorker;
import io.blackboard.sdk.FunctionBlock;
import io.blackboard.sdk.FunctionBlockSpec;
import io.blackboard.sdk.JobContext;
import io.blackboard.sdk.Outcome;
import io.blackboard.sdk.RegistrationRejectedException;
import io.blackboard.sdk.StopReason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A worker as our users write them: {@code configBackup 1.0.0} saves a network device's running configuration.
 * The device session is faked (a short wait and a generated configuration), the rest is real: parameters and
 * result checked by their JSON schemas on the server, the file written under {@code BACKUP_DIR}, a device that
 * does not answer reported as a FAILURE, a cancel honoured, ACQUIRE naming the device it locks.
 *
 * <p>Environment: {@code BLACKBOARD_URL} (default http://localhost:8080), {@code BLACKBOARD_WORKER_TOKEN}
 * (dev-worker-token), {@code BLACKBOARD_WORKER_NAME} (config-backup-worker), {@code BLACKBOARD_CONCURRENCY} (4),
 * {@code BLACKBOARD_LABELS} ({@code site=a,vendor=cisco}), {@code BLACKBOARD_DRAIN_TIMEOUT_MS} (20000),
 * {@code BACKUP_DIR} (the temp directory's {@code blackboard-backups}).
 */
public final class ConfigBackupWorker {

    static final FunctionBlockSpec SPEC = FunctionBlockSpec.of("configBackup", "1.0.0")
            .idempotent(true) // saving the same configuration twice is harmless
            .description("Saves a network device's running configuration")
            .paramsSchema("""
                    {"type": "object", "required": ["host"], "additionalProperties": false,
                     "properties": {
                       "host": {"type": "string", "minLength": 1, "maxLength": 253},
                       "vendor": {"enum": ["cisco", "juniper", "arista"]},
                       "timeoutMs": {"type": "integer", "minimum": 100, "maximum": 600000}}}""")
            .resultSchema("""
                    {"type": "object", "required": ["host", "lines", "sha256", "path"],
                     "properties": {
                       "host": {"type": "string"}, "vendor": {"type": "string"},
                       "lines": {"type": "integer", "minimum": 0}, "bytes": {"type": "integer", "minimum": 0},
                       "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}, "path": {"type": "string"},
                       "savedAt": {"type": "string"}}}""");

    private ConfigBackupWorker() {
    }

    public static void main(String[] args) throws IOException {
        Logs.oneLinePerRecord();
        Map<String, String> env = System.getenv();
        Path backups = Path.of(env.getOrDefault("BACKUP_DIR",
                Path.of(System.getProperty("java.io.tmpdir"), "blackboard-backups").toString()));
        Files.createDirectories(backups);
        try (BlackboardWorker worker = BlackboardWorker.builder()
                .baseUrl("http://localhost:8080")
                .token("dev-worker-token")
                .name("config-backup-worker")
                .concurrency(4)
                .fromEnvironment(env) // BLACKBOARD_* variables override the defaults above
                .functionBlock(SPEC, new ConfigBackup(backups))
                .build()) {
            StopReason reason = worker.run(); // until SIGTERM/SIGINT (a second one skips the drain) or TERMINATE
            System.out.println("config-backup-worker stopped: " + reason + ", " + worker.stats());
        } catch (RegistrationRejectedException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
        System.exit(0);
    }

    /** The function block: one device session per job. */
    static final class ConfigBackup implements FunctionBlock {

        private final Path backups;

        ConfigBackup(Path backups) {
            this.backups = backups;
        }

        @Override
        public Outcome execute(JobContext ctx) throws Exception {
            String host = (String) ctx.params().get("host");
            String vendor = (String) ctx.params().getOrDefault("vendor", "cisco");
            String config = fetchRunningConfig(ctx, host, vendor);
            if (config == null) {
                return Outcome.success(); // cancelled: nothing is pushed anyway
            }
            Path file = backups.resolve(host.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + ctx.jobId() + ".cfg");
            byte[] bytes = config.getBytes(StandardCharsets.UTF_8);
            Files.write(file, bytes);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("host", host);
            result.put("vendor", vendor);
            result.put("lines", config.lines().count());
            result.put("bytes", bytes.length);
            result.put("sha256", sha256(bytes));
            result.put("path", file.toString());
            result.put("savedAt", Instant.now().toString());
            return Outcome.success(result);
        }

        /** Locks the device for the workflow: the engine learns what this job holds. */
        @Override
        public Outcome acquire(JobContext ctx) {
            return Outcome.acquired(List.of(Map.of("resource", "device:" + ctx.params().get("host"),
                    "mode", "read")));
        }

        /** A backup changes nothing on the device; undoing it means forgetting the files it wrote. */
        @Override
        public Outcome rollback(JobContext ctx) throws IOException {
            String host = String.valueOf(ctx.params().get("host")).replaceAll("[^A-Za-z0-9._-]", "_");
            int removed = 0;
            try (var files = Files.list(backups)) {
                for (Path file : files.filter(f -> f.getFileName().toString().startsWith(host + "-")).toList()) {
                    Files.deleteIfExists(file);
                    removed++;
                }
            }
            return Outcome.success(Map.of("rolledBack", true, "filesRemoved", removed));
        }

        /**
         * The device session, faked: 200 to 800 ms of "SSH", then a generated configuration. A host named
         * {@code unreachable...} never answers, as real ones sometimes do. Answers null when cancelled.
         */
        private static String fetchRunningConfig(JobContext ctx, String host, String vendor)
                throws InterruptedException, DeviceUnreachableException {
            long timeoutMs = ctx.params().get("timeoutMs") instanceof Number n ? n.longValue() : 10_000;
            long sessionMs = ThreadLocalRandom.current().nextLong(200, 800);
            if (host.startsWith("unreachable")) {
                if (ctx.awaitCancellation(Duration.ofMillis(Math.min(timeoutMs, 2_000)))) {
                    return null;
                }
                throw new DeviceUnreachableException(host + " did not answer on port 22 within "
                        + Math.min(timeoutMs, 2_000) + " ms");
            }
            if (ctx.awaitCancellation(Duration.ofMillis(sessionMs))) {
                return null;
            }
            StringBuilder config = new StringBuilder()
                    .append("! ").append(vendor).append(" running configuration of ").append(host).append('\n')
                    .append("hostname ").append(host).append('\n');
            for (int i = 1; i <= 24; i++) {
                config.append("interface GigabitEthernet0/").append(i).append("\n description uplink-").append(i)
                        .append("\n no shutdown\n!\n");
            }
            return config.append("end\n").toString();
        }

        private static String sha256(byte[] bytes) throws NoSuchAlgorithmException {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        }
    }

    /** The device did not answer: pushed as a FAILURE with this type and message. */
    static final class DeviceUnreachableException extends Exception {
        DeviceUnreachableException(String message) {
            super(message);
        }
    }
}
