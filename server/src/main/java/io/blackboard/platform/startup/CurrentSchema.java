package io.blackboard.platform.startup;

import io.blackboard.platform.startup.SchemaHistoryStore.Applied;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
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

    /** A versioned migration's version as Flyway reads it from a file name: numbers joined by dots or underscores. */
    private static final Pattern VERSION = Pattern.compile("[0-9]+([._][0-9]+)*");

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
        Optional<Map<String, Applied>> expected = migrations(flyway.getLocations(), flyway.getClassLoader());
        if (expected.isEmpty() || expected.get().isEmpty()) {
            return Optional.empty();
        }
        Optional<Map<String, Applied>> applied =
                new SchemaHistoryStore(flyway.getDataSource()).applied(flyway.getTable());
        if (applied.isEmpty() || !applied.get().equals(expected.get())) {
            return Optional.empty();
        }
        return expected.get().keySet().stream().map(MigrationVersion::fromVersion).max(MigrationVersion::compareTo)
                .map(MigrationVersion::getVersion);
    }

    /** Flyway's defaults for everything the decision reads: one schema, SQL migrations only, no callbacks. */
    static boolean plainSetup(Configuration flyway) {
        return flyway.getDataSource() != null && flyway.getDefaultSchema() == null && flyway.getSchemas().length == 0
                && "V".equals(flyway.getSqlMigrationPrefix()) && "__".equals(flyway.getSqlMigrationSeparator())
                && flyway.getSqlMigrationSuffixes().length == 1 && ".sql".equals(flyway.getSqlMigrationSuffixes()[0])
                && flyway.getCallbacks().length == 0 && flyway.getJavaMigrations().length == 0
                && MigrationVersion.LATEST.equals(flyway.getTarget()) && !flyway.isOutOfOrder()
                && flyway.getResolvers().length == 0 && !flyway.isSkipDefaultResolvers()
                && flyway.getResourceProvider() == null && !flyway.isFailOnMissingLocations()
                && StandardCharsets.UTF_8.equals(flyway.getEncoding()) && !flyway.isDetectEncoding();
    }

    /**
     * This build's versioned migrations by version, as their history rows would read; empty when
     * a location is not on the classpath or holds anything else (repeatable migrations, callbacks,
     * Java migrations).
     */
    static Optional<Map<String, Applied>> migrations(Location[] locations, ClassLoader classLoader) {
        PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver(classLoader);
        Map<String, Applied> migrations = new HashMap<>();
        try {
            for (Location location : locations) {
                if (!location.isClassPath()) {
                    return Optional.empty();
                }
                for (Resource resource : resolver.getResources("classpath*:" + location.getRootPath() + "/**/*")) {
                    String name = resource.getFilename();
                    if (name == null || name.isEmpty() || resource.isFile() && resource.getFile().isDirectory()) {
                        continue; // a directory
                    }
                    int separator = name.indexOf("__");
                    if (!resource.isReadable() || !name.startsWith("V") || !name.endsWith(".sql") || separator < 0) {
                        return Optional.empty(); // not a versioned SQL migration, or unreadable: Flyway's to judge
                    }
                    String version = name.substring(1, separator);
                    String description = name.substring(separator + 2, name.length() - ".sql".length());
                    if (!VERSION.matcher(version).matches() || description.isEmpty()) {
                        return Optional.empty();
                    }
                    Applied migration = new Applied(description.replace('_', ' '), "SQL", checksum(resource), true);
                    version = version.replace('_', '.');
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
}
