package io.blackboard.platform.embedded;

import io.blackboard.platform.embedded.EmbeddedPostgresServer.EmbeddedPostgresRefused;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A refused embedded database ends start-up with its reason and what to do, not a stack trace. */
class EmbeddedPostgresRefusedAnalyzer extends AbstractFailureAnalyzer<EmbeddedPostgresRefused> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, EmbeddedPostgresRefused cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
