package io.blackboard.platform.startup;

import io.blackboard.platform.startup.SchemaHistoryStore.Applied;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.flywaydb.core.api.Location;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * Whether the database's schema is exactly what Flyway's migrate would leave, decided without
 * Flyway: each versioned SQL migration of this build ({@code V<version>__<description>.sql} in
 * the classpath locations) has its successful row in the schema history, with the same
 * description and Flyway's checksum of the file (CRC-32 of its lines' UTF-8 bytes, line endings
 * and a leading byte-order mark left out), and the history holds nothing else. The answer errs
 * one way only: anything it does not recognise (another setting, another kind of migration or
 * callback, a history it cannot read) is "not current", and Flyway then decides as it always
 * does.
 */
final class CurrentSchema {

    private static final Logger log = LoggerFactory.getLogger(CurrentSchema.class);

    private static final Pattern VERSIONED = Pattern.compile("V([0-9][0-9._]*)__(.+)\\.sql");

    private CurrentSchema() {
    }

    /** The schema's version when it is current; empty when Flyway must run (never an exception). */
    static Optional<String> version(Configuration flyway) {
        try {
            return compare(flyway);
        } catch (RuntimeException e) {
            log.debug("The schema history could not be compared; Flyway decides", e);
            return Optional.empty();
        }
    }

    private static Optional<String> compare(Configuration flyway) {
        if (!plainSetup(flyway)) {
            return Optional.empty();
        }
        Optional<Map<String, Applied>> expected = migrations(flyway.getLocations());
        if (expected.isEmpty() || expected.get().isEmpty()) {
            return Optional.empty();
        }
        Optional<Map<String, Applied>> applied =
                new SchemaHistoryStore(flyway.getDataSource()).applied(flyway.getTable());
        if (applied.isEmpty() || !applied.get().equals(expected.get())) {
            return Optional.empty();
        }
        return expected.get().keySet().stream().max(CurrentSchema::compareVersions);
    }

    /** Flyway's defaults for everything the decision reads: one schema, SQL migrations only, no callbacks. */
    static boolean plainSetup(Configuration flyway) {
        return flyway.getDataSource() != null && flyway.getDefaultSchema() == null && flyway.getSchemas().length == 0
                && "V".equals(flyway.getSqlMigrationPrefix()) && "__".equals(flyway.getSqlMigrationSeparator())
                && flyway.getSqlMigrationSuffixes().length == 1 && ".sql".equals(flyway.getSqlMigrationSuffixes()[0])
                && flyway.getCallbacks().length == 0 && flyway.getJavaMigrations().length == 0
                && MigrationVersion.LATEST.equals(flyway.getTarget()) && !flyway.isOutOfOrder();
    }

    /**
     * This build's versioned migrations by version, as their history rows would read; empty when
     * a location is not on the classpath or holds anything else (repeatable migrations, callbacks,
     * Java migrations).
     */
    static Optional<Map<String, Applied>> migrations(Location[] locations) {
        PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver(
                CurrentSchema.class.getClassLoader());
        Map<String, Applied> migrations = new HashMap<>();
        try {
            for (Location location : locations) {
                if (!location.isClassPath()) {
                    return Optional.empty();
                }
                for (Resource resource : resolver.getResources("classpath*:" + location.getRootPath() + "/**/*")) {
                    String name = resource.getFilename();
                    if (name == null || !resource.isReadable()) {
                        continue; // a directory
                    }
                    Matcher m = VERSIONED.matcher(name);
                    if (!m.matches()) {
                        return Optional.empty();
                    }
                    String version = m.group(1).replace('_', '.');
                    Applied migration = new Applied(m.group(2).replace('_', ' '), "SQL", checksum(resource), true);
                    if (migrations.put(version, migration) != null) {
                        return Optional.empty(); // two files of one version: Flyway's error to report
                    }
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.of(migrations);
    }

    /** Flyway's checksum of a migration: CRC-32 over its lines without their line endings, BOM removed. */
    static int checksum(Resource resource) throws IOException {
        CRC32 crc = new CRC32();
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(resource.getInputStream(), StandardCharsets.UTF_8))) {
            String line = reader.readLine();
            if (line != null && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            for (; line != null; line = reader.readLine()) {
                crc.update(line.getBytes(StandardCharsets.UTF_8));
            }
        }
        return (int) crc.getValue();
    }

    static int compareVersions(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = new BigInteger(i < x.length ? x[i] : "0").compareTo(new BigInteger(i < y.length ? y[i] : "0"));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }
}
