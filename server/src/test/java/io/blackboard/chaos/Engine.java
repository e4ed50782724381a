package io.blackboard.chaos;

import io.blackboard.Api;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The workflow engine's side of the load: jobs in batches of random size, each with an
 * idempotency key, retried on another replica until acknowledged, so a replica dying
 * mid-request neither loses nor doubles a job.
 */
final class Engine {

    final Set<UUID> created = ConcurrentHashMap.newKeySet();
    /** Answers that no fault excuses: a 5xx other than 503, or a 503 without Retry-After. */
    final ServerErrors serverErrors = new ServerErrors();
    private final Supplier<Api> replicas;
    private final String run = UUID.randomUUID().toString();
    private final AtomicLong sequence = new AtomicLong();

    Engine(Supplier<Api> replicas) {
        this.replicas = replicas;
    }

    void create(UUID functionBlock, int count, Map<String, Object> extra) {
        int done = 0;
        while (done < count) {
            int size = Math.min(count - done, ThreadLocalRandom.current().nextInt(1, 501));
            List<Map<String, Object>> batch = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                Map<String, Object> job = new HashMap<>(Map.of("functionBlockId", functionBlock, "type", "EXECUTE",
                        "payload", Map.of("n", done + i), "idempotencyKey", run + "/" + sequence.incrementAndGet()));
                job.putAll(extra);
                batch.add(job);
            }
            submit(batch);
            done += size;
        }
    }

    private void submit(List<Map<String, Object>> batch) {
        while (true) {
            try {
                Api.Response response = serverErrors.seen(replicas.get().as("test-engine").post("/blackboard/jobs", batch));
                if (response.status() == 201 || response.status() == 200) {
                    response.body().valueStream().forEach(job -> created.add(UUID.fromString(job.get("id").asString())));
                    return;
                }
            } catch (RuntimeException e) {
                // retried below, with the same idempotency keys
            }
            Replica.sleep(100);
        }
    }
}
