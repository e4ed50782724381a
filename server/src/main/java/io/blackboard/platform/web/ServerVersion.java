package io.blackboard.platform.web;

import org.springframework.lang.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.info.BuildProperties;
import org.springframework.boot.info.GitProperties;
import org.springframework.stereotype.Component;

/**
 * What this server is and speaks, as clients are told (the OpenAPI document, a worker's
 * registration): the version it was built from, the project's version plus, from a git
 * checkout, its commit (semantic versioning's build metadata, e.g. {@code 0.1.0-SNAPSHOT+7d168ea}),
 * and the version of the HTTP API, which changes only when a client must change.
 */
@Component
public class ServerVersion {

    /**
     * The API's version: the paths and fields of DESIGN.md and docs/api.md. The major number
     * changes only when a client must change; the minor one when something is added that a client
     * may use once it sees it (1.1: {@code POST /blackboard/job/next}).
     */
    public static final String API_VERSION = "1.1";

    /** The longest a poll may wait for work ({@code waitMs}), and so how long a client should let it run. */
    public static final int MAX_POLL_WAIT_MS = 30_000;

    private final String version;

    ServerVersion(ObjectProvider<BuildProperties> build, ObjectProvider<GitProperties> git) {
        this.version = version(build.getIfAvailable(), git.getIfAvailable());
    }

    static String version(@Nullable BuildProperties build, @Nullable GitProperties git) {
        String version = build == null ? "dev" : build.getVersion();
        return git == null || git.getShortCommitId() == null ? version : version + "+" + git.getShortCommitId();
    }

    public String version() {
        return version;
    }
}
