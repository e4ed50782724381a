package io.blackboard.platform.security;

import io.blackboard.platform.embedded.DevelopmentDatabase;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * The configured role tokens, kept only as SHA-256 hashes and compared in constant time. With
 * none configured, one token per role is generated and logged once: the server is never open. On
 * the embedded development database they are the fixed development tokens instead (the same as
 * docker-compose.yml's), so the README's curl lines work as written.
 */
@Component
class RoleTokens {

    enum Role {
        /** May register workers. */
        WORKER,
        /** Creates, reads and cancels jobs, reads results. */
        ENGINE,
        /** Reads everything, deletes, cleans up, directs workers, acts for any worker. */
        OPERATOR,
        /** Fetches, acks, nacks and heartbeats through the OJS binding, as any OJS worker id. */
        OJS_WORKER
    }

    private record Entry(byte[] hash, Role role) {
    }

    private static final Logger log = LoggerFactory.getLogger(RoleTokens.class);
    private final List<Entry> entries = new ArrayList<>();

    @Autowired
    RoleTokens(SecurityProperties properties, ObjectProvider<DevelopmentDatabase> database) {
        this(properties, database.getIfAvailable(() -> new DevelopmentDatabase(null)).embedded());
    }

    RoleTokens(SecurityProperties properties, boolean embeddedDatabase) {
        boolean none = properties.workerTokens().isEmpty() && properties.engineTokens().isEmpty()
                && properties.operatorTokens().isEmpty() && properties.ojsWorkerTokens().isEmpty();
        if (none && embeddedDatabase) {
            add(List.of("dev-worker-token"), Role.WORKER);
            add(List.of("dev-engine-token"), Role.ENGINE);
            add(List.of("dev-operator-token"), Role.OPERATOR);
            add(List.of("dev-ojs-worker-token"), Role.OJS_WORKER);
            log.warn("Embedded database and no BLACKBOARD_WORKER_TOKENS, BLACKBOARD_ENGINE_TOKENS or "
                    + "BLACKBOARD_OPERATOR_TOKENS set: the development tokens are in force: worker=dev-worker-token "
                    + "engine=dev-engine-token operator=dev-operator-token ojs-worker=dev-ojs-worker-token");
        } else if (none) {
            String worker = Tokens.generate("bbr_");
            String engine = Tokens.generate("bbe_");
            String operator = Tokens.generate("bbo_");
            String ojsWorker = Tokens.generate("bbj_");
            add(List.of(worker), Role.WORKER);
            add(List.of(engine), Role.ENGINE);
            add(List.of(operator), Role.OPERATOR);
            add(List.of(ojsWorker), Role.OJS_WORKER);
            log.warn("No BLACKBOARD_WORKER_TOKENS, BLACKBOARD_ENGINE_TOKENS or BLACKBOARD_OPERATOR_TOKENS set; "
                    + "tokens generated for this run only (set them for several replicas): worker={} engine={} "
                    + "operator={} ojs-worker={}", worker, engine, operator, ojsWorker);
        } else {
            add(properties.workerTokens(), Role.WORKER);
            add(properties.engineTokens(), Role.ENGINE);
            add(properties.operatorTokens(), Role.OPERATOR);
            add(properties.ojsWorkerTokens(), Role.OJS_WORKER);
        }
    }

    private void add(List<String> tokens, Role role) {
        tokens.forEach(token -> entries.add(new Entry(Tokens.sha256(token), role)));
    }

    /** The roles of a token: every configured token is compared, each in constant time. */
    Set<Role> rolesOf(String token) {
        byte[] presented = Tokens.sha256(token);
        Set<Role> roles = EnumSet.noneOf(Role.class);
        for (Entry entry : entries) {
            if (MessageDigest.isEqual(entry.hash(), presented)) {
                roles.add(entry.role());
            }
        }
        return roles;
    }
}
