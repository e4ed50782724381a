package io.blackboard.worker;

import io.blackboard.platform.security.Tokens;
import io.blackboard.platform.security.WorkerTokenVerifier;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/**
 * Worker-bound tokens. The plain token is handed out once, at registration; the database keeps
 * only its SHA-256. Verified tokens are remembered briefly so a heartbeat costs no extra query.
 * A deleted worker's token still names its worker: every call made with it reaches the service
 * of that worker, whose own SQL finds the worker deleted and answers 404, so the worker knows to
 * register again (DESIGN.md). Remembering a token can therefore never keep a deleted worker
 * working, on this replica or another; the token is good for its own worker's id alone.
 */
@Component
class WorkerCredentials implements WorkerTokenVerifier {

    private static final long REMEMBER_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int MAX_REMEMBERED = 100_000;

    private record Known(UUID workerId, long until) {
    }

    private final WorkerDirectoryStore store;
    private final Map<String, Known> known = new ConcurrentHashMap<>();

    WorkerCredentials(WorkerDirectoryStore store) {
        this.store = store;
    }

    /** A new token for a worker, and the hash to store with it. */
    record Issued(String token, byte[] hash) {
    }

    static Issued issue() {
        String token = Tokens.generate(Tokens.WORKER_PREFIX);
        return new Issued(token, Tokens.sha256(token));
    }

    @Override
    public Optional<UUID> verify(String token) {
        byte[] hash = Tokens.sha256(token);
        String key = HexFormat.of().formatHex(hash);
        Known remembered = known.get(key);
        if (remembered != null && System.nanoTime() - remembered.until() < 0) {
            return Optional.of(remembered.workerId());
        }
        Optional<UUID> worker = store.byTokenHash(hash);
        if (worker.isPresent()) {
            if (known.size() >= MAX_REMEMBERED) {
                known.clear();
            }
            known.put(key, new Known(worker.get(), System.nanoTime() + REMEMBER_NANOS));
        } else {
            known.remove(key);
        }
        return worker;
    }

    /** Forgets what was remembered of a worker's token, so a deletion takes effect at once. */
    void forget(UUID workerId) {
        known.values().removeIf(k -> k.workerId().equals(workerId));
    }
}
