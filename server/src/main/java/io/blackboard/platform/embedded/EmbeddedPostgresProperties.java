package io.blackboard.platform.embedded;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * The embedded development database, used when no {@code SPRING_DATASOURCE_URL} is set: its data
 * directory (BLACKBOARD_EMBEDDED_DATA_DIR, relative to the working directory) and its port
 * (BLACKBOARD_EMBEDDED_PORT, 0 for a free one).
 */
@Validated
@ConfigurationProperties("blackboard.embedded")
public record EmbeddedPostgresProperties(Path dataDir, @Min(0) @Max(65535) int port) {

    public EmbeddedPostgresProperties {
        dataDir = dataDir == null ? Path.of("blackboard-data") : dataDir;
    }
}
