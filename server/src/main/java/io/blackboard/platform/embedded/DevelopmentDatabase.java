package io.blackboard.platform.embedded;

import java.io.IOException;
import org.springframework.lang.Nullable;

/**
 * Whether this server runs on its embedded development PostgreSQL: {@code server} is null when
 * a URL names the database.
 */
public record DevelopmentDatabase(@Nullable EmbeddedPostgresServer server) implements AutoCloseable {

    public boolean embedded() {
        return server != null;
    }

    @Override
    public void close() throws IOException {
        if (server != null) {
            server.close();
        }
    }
}
