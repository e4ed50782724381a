package io.blackboard.chaos;

import io.blackboard.Api;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Several server processes on one fresh database, and the simulated workers that use them; the
 * harness of the multi-process tests. Closing it kills the workers and stops every replica.
 */
final class Cluster implements AutoCloseable {

    final ChaosDatabase database = ChaosDatabase.fromEnvironment();
    final List<Replica> replicas = new ArrayList<>();
    final List<SimWorker> workers = new ArrayList<>();

    /** Starts {@code count} replicas named {@code name-0}, {@code name-1}, ... and empties the database. */
    Cluster(String name, int count, Map<String, String> environment) {
        for (int i = 0; i < count; i++) {
            replicas.add(new Replica(name + "-" + i, database, environment).start());
        }
        database.reset();
    }

    /** A live replica's API, picked at random on every call: the load balancer in front of them. */
    Supplier<Api> anyLiveReplica() {
        return () -> {
            List<Replica> live = replicas.stream().filter(Replica::alive).toList();
            return live.get(ThreadLocalRandom.current().nextInt(live.size())).api();
        };
    }

    /** Registers a simulated worker through any replica; closing the cluster kills it. */
    SimWorker worker(String name, int concurrency, List<Map<String, Object>> blocks) {
        SimWorker worker = SimWorker.register(anyLiveReplica(), name, concurrency, blocks);
        workers.add(worker);
        return worker;
    }

    /** The id of a function block the workers registered, by name. */
    UUID block(String name) {
        Api.Response catalog = anyLiveReplica().get().as("test-engine").get("/function-blocks");
        return catalog.body().valueStream().filter(fb -> fb.get("name").asString().equals(name))
                .map(fb -> UUID.fromString(fb.get("id").asString())).findFirst().orElseThrow();
    }

    /** Stops every worker's loops, so that what they did can be checked. */
    void stopWorkers() throws InterruptedException {
        for (SimWorker worker : workers) {
            worker.stop();
        }
    }

    @Override
    public void close() throws Exception {
        workers.forEach(SimWorker::crash);
        for (Replica replica : replicas) {
            replica.close();
        }
    }
}
