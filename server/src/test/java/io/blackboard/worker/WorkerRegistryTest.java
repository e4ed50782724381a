package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

class WorkerRegistryTest extends IntegrationTest {

    @Autowired
    JdbcTemplate jdbcTemplate;

    @Test
    void registrationAnswers201WithTheWorkerOnline() {
        Api.Response response = api.post("/workers/register", Map.of("name", "cisco-worker", "hostname", "site-a-01",
                "ip", "10.0.0.7", "pid", 4242, "version", "1.4.0", "labels", Map.of("site", "a", "vendor", "cisco"),
                "concurrency", 4));

        assertThat(response.status()).isEqualTo(201);
        UUID id = UUID.fromString(response.at("/id").asString());
        assertThat(response.at("/name").asString()).isEqualTo("cisco-worker");
        assertThat(response.at("/state").asString()).isEqualTo("ONLINE");
        assertThat(response.at("/directive").asString()).isEqualTo("RUN");
        assertThat(response.at("/labels/vendor").asString()).isEqualTo("cisco");
        assertThat(response.at("/concurrency").asInt()).isEqualTo(4);
        assertThat(response.at("/heldJobs").asInt()).isZero();
        assertThat(api.get("/workers/" + id).at("/hostname").asString()).isEqualTo("site-a-01");
    }

    @Test
    void registrationAnswersWhatAClientAdaptsToAndRecordsItsSdk() {
        Api.Response response = api.post("/workers/register", Map.of("name", "sdk-worker",
                "sdkName", "blackboard-python", "sdkVersion", "0.1.0"));

        assertThat(response.status()).as(response.toString()).isEqualTo(201);
        assertThat(response.at("/serverVersion").asString())
                .isEqualTo(api.get("/v3/api-docs").at("/info/version").asString()).isNotBlank();
        assertThat(response.at("/apiVersion").asString()).isEqualTo("1.1");
        assertThat(response.at("/pingIntervalMs").asLong()).isEqualTo(20_000);
        assertThat(response.at("/orphanGraceMs").asLong()).isEqualTo(10_000);
        assertThat(response.at("/maxPollWaitMs").asInt()).isEqualTo(30_000);
        assertThat(response.at("/sdkName").asString()).isEqualTo("blackboard-python");
        Api.Response shown = api.get("/workers/" + response.at("/id").asString());
        assertThat(shown.at("/sdkName").asString()).isEqualTo("blackboard-python");
        assertThat(shown.at("/sdkVersion").asString()).isEqualTo("0.1.0");
        assertThat(shown.at("/serverVersion").isMissingNode()).as("only registration answers it").isTrue();

        assertProblem(api.post("/workers/register", Map.of("name", "w", "sdkName", "")), 400, "sdkName");
        assertProblem(api.post("/workers/register", Map.of("name", "w", "sdkVersion", "v".repeat(101))), 400,
                "sdkVersion");
    }

    @Test
    void concurrencyDefaultsToOne() {
        UUID id = registerWorker("plain");
        assertThat(api.get("/workers/" + id).at("/concurrency").asInt()).isEqualTo(1);
    }

    @Test
    void invalidRegistrationsAre400ProblemsNamingTheFieldAndStoreNothing() {
        assertProblem(api.post("/workers/register", Map.of("hostname", "x")), 400, "name");
        assertProblem(api.post("/workers/register", Map.of("name", " ")), 400, "name");
        assertProblem(api.post("/workers/register", Map.of("name", "w", "concurrency", 0)), 400, "concurrency");
        assertProblem(api.post("/workers/register", Map.of("name", "w", "concurrency", "many")), 400, "concurrency");
        assertProblem(api.post("/workers/register", Map.of("name", "w", "pid", -1)), 400, "pid");
        assertProblem(api.post("/workers/register", Map.of("name", "w", "labels", List.of("a"))), 400, "labels");
        assertProblem(api.post("/workers/register", Map.of("name", "x".repeat(201))), 400, "name");
        assertProblem(api.post("/workers/register", "{\"name\": \"w\""), 400, "JSON");
        assertProblem(api.post("/workers/register", null), 400, "body");

        assertThat(count("worker")).isZero();
    }

    @Test
    void pingAnswersStateDirectiveAndServerTime() {
        UUID id = registerWorker("w");

        Api.Response reply = api.post("/workers/" + id + "/ping", null);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.at("/state").asString()).isEqualTo("ONLINE");
        assertThat(reply.at("/directive").asString()).isEqualTo("RUN");
        assertThat(reply.at("/pingIntervalMs").asLong()).isEqualTo(20000);
        assertThat(reply.at("/serverTime").asString()).isNotBlank();
        assertThat(reply.at("/cancelJobIds").isArray()).isTrue();
    }

    @Test
    void pingRecordsTheHeartbeatOnTheDatabaseClock() {
        UUID id = registerWorker("w");
        jdbc.sql("update worker set last_seen_at = now() - interval '1 hour' where id = :id").param("id", id).update();

        api.post("/workers/" + id + "/ping", Map.of());

        boolean fresh = jdbc.sql("select last_seen_at > now() - interval '1 minute' from worker where id = :id")
                .param("id", id).query(Boolean.class).single();
        assertThat(fresh).isTrue();
    }

    @Test
    void everyPingLeavesItsWalFlushToTheWalWriterWhileADirectiveCommitsDurably() {
        UUID idle = registerWorker("idle");
        UUID busy = registerWorker("busy");
        UUID block = registerBlocks(busy, List.of(block("echo", "1"))).getFirst();
        Map<String, Object> job = Map.of("functionBlockId", block, "type", "EXECUTE");
        api.post("/blackboard/jobs", job);
        UUID held = UUID.fromString(api.post("/blackboard/job", Map.of("workerId", busy)).at("/0/id").asString());

        jdbc.sql("update job set deadline = now() + interval '1 second' where id = :id").param("id", held).update();

        int idleUnflushed = unflushedAfter(() -> api.post("/workers/" + idle + "/ping", Map.of("activeJobIds", List.of())));
        int leaseUnflushed = unflushedAfter(() -> api.post("/workers/" + busy + "/ping",
                Map.of("activeJobIds", List.of(held))));
        int noListUnflushed = unflushedAfter(() -> api.post("/workers/" + busy + "/ping", null));
        AtomicBoolean quiet = new AtomicBoolean();
        int directiveUnflushed = unflushedAfter(() -> api.put("/workers/" + idle + "/directive",
                Map.of("directive", quiet.getAndSet(!quiet.get()) ? "RUN" : "QUIET")));

        // the WAL writer flushes every 200 ms, so a read right after a ping usually finds its commit unflushed
        assertThat(idleUnflushed).as("of 10 idle pings, answered before their commit was on disk").isGreaterThanOrEqualTo(5);
        assertThat(leaseUnflushed).as("of 10 pings extending a lease").isGreaterThanOrEqualTo(5);
        assertThat(noListUnflushed).as("of 10 pings without a list").isGreaterThanOrEqualTo(5);
        assertThat(directiveUnflushed).as("of 10 directives, which commit durably").isLessThanOrEqualTo(3);
        assertThat(jdbc.sql("select deadline > now() + interval '1 minute' from job where id = :id").param("id", held)
                .query(Boolean.class).single()).as("the lease was extended").isTrue();
    }

    @Test
    void thePingsAsynchronousCommitLastsItsOwnTransactionOnly() {
        UUID id = registerWorker("w");
        String ping = WorkerStore.WORKER_PING.replace(":id", "?");

        List<String> settings = jdbcTemplate.execute((ConnectionCallback<List<String>>) connection -> {
            List<String> seen = new ArrayList<>();
            connection.setAutoCommit(false);
            run(connection, ping, id);
            seen.add(setting(connection));
            connection.rollback();
            connection.setAutoCommit(true);
            run(connection, ping, id);
            seen.add(setting(connection));
            return seen;
        });

        assertThat(settings).as("inside the ping's transaction, then on the same connection after it")
                .containsExactly("off", "on");
    }

    private static void run(Connection connection, String sql, UUID id) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setObject(1, id);
            statement.executeQuery().close();
        }
    }

    private static String setting(Connection connection) throws SQLException {
        try (var statement = connection.createStatement(); var rs = statement.executeQuery("show synchronous_commit")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Of 10 pings, how many were answered while the WAL they wrote was not yet flushed to disk. */
    private int unflushedAfter(Runnable ping) {
        int unflushed = 0;
        for (int i = 0; i < 10; i++) {
            ping.run();
            if (jdbc.sql("select pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn()").query(Boolean.class).single()) {
                unflushed++;
            }
        }
        return unflushed;
    }

    @Test
    void pingOfAnUnknownWorkerIs404() {
        assertProblem(api.post("/workers/" + UUID.randomUUID() + "/ping", null), 404, "register again");
        assertProblem(api.post("/workers/not-a-uuid/ping", null), 400, "not-a-uuid");
    }

    @Test
    void unregisterIsOfflineAtOnceKeepsFunctionBlocksAndTheNextPingBringsItBack() {
        UUID id = registerWorker("w");
        registerBlocks(id, List.of(block("echo", "1.0.0")));

        Api.Response unregistered = api.post("/workers/" + id + "/unregister", null);

        assertThat(unregistered.status()).isEqualTo(200);
        assertThat(unregistered.at("/state").asString()).isEqualTo("OFFLINE");
        assertThat(api.get("/workers/" + id + "/function-blocks").body()).hasSize(1);
        assertThat(api.get("/workers/online").body()).isEmpty();

        assertThat(api.post("/workers/" + id + "/ping", null).at("/state").asString()).isEqualTo("ONLINE");
        assertThat(api.get("/workers/online").body()).hasSize(1);
        assertProblem(api.post("/workers/" + UUID.randomUUID() + "/unregister", null), 404, "not registered");
    }

    @Test
    void listsFilterByStateAndHideDeletedWorkersUnlessAsked() {
        UUID online = registerWorker("online");
        UUID offline = registerWorker("offline");
        UUID deleted = registerWorker("deleted");
        api.post("/workers/" + offline + "/unregister", null);
        assertThat(api.delete("/workers/" + deleted).status()).isEqualTo(204);

        assertThat(ids(api.get("/workers"))).containsExactly(online, offline);
        assertThat(ids(api.get("/workers?findDeleted=true"))).containsExactly(online, offline, deleted);
        assertThat(ids(api.get("/workers/online"))).containsExactly(online);
        assertThat(ids(api.get("/workers?state=offline"))).containsExactly(offline);
        assertThat(ids(api.get("/workers?state=OFFLINE&findDeleted=true"))).containsExactly(offline, deleted);
        assertProblem(api.get("/workers?state=sleeping"), 400, "sleeping");
        assertProblem(api.get("/workers?findDeleted=maybe"), 400, "findDeleted");
    }

    @Test
    void deleteIsSoftAndTheWorkerMustRegisterAgain() {
        UUID id = registerWorker("w");

        assertThat(api.delete("/workers/" + id).status()).isEqualTo(204);

        Api.Response shown = api.get("/workers/" + id);
        assertThat(shown.at("/deletedAt").isNull()).isFalse();
        assertThat(shown.at("/state").asString()).isEqualTo("OFFLINE");
        assertProblem(api.post("/workers/" + id + "/ping", null), 404, "register again");
        assertThat(api.delete("/workers/" + id).status()).as("deleting again changes nothing").isEqualTo(204);
        assertProblem(api.delete("/workers/" + UUID.randomUUID()), 404, "not registered");
        assertThat(count("worker")).isEqualTo(1);
    }

    @Test
    void unknownWorkerDetailsAre404() {
        assertProblem(api.get("/workers/" + UUID.randomUUID()), 404, "not registered");
        assertProblem(api.get("/workers/" + UUID.randomUUID() + "/function-blocks"), 404, "not registered");
    }

    @Test
    void directivesAreStoredAndEchoedInPings() {
        UUID id = registerWorker("w");

        assertThat(api.put("/workers/" + id + "/directive", Map.of("directive", "QUIET")).at("/directive").asString())
                .isEqualTo("QUIET");
        assertThat(api.post("/workers/" + id + "/ping", null).at("/directive").asString()).isEqualTo("QUIET");
        assertProblem(api.put("/workers/" + id + "/directive", Map.of("directive", "NAP")), 400, "directive");
        assertProblem(api.put("/workers/" + UUID.randomUUID() + "/directive", Map.of("directive", "RUN")), 404,
                "not registered");
    }

    @Test
    void cleanupDeletesOnlyWorkersOfflinePastTheThreshold() {
        UUID longGone = registerWorker("long-gone");
        UUID recentlyGone = registerWorker("recently-gone");
        UUID online = registerWorker("online");
        api.post("/workers/" + longGone + "/unregister", null);
        api.post("/workers/" + recentlyGone + "/unregister", null);
        jdbc.sql("update worker set state_changed_at = now() - interval '25 hours' where id = :id")
                .param("id", longGone).update();

        assertThat(api.post("/workers/cleanup", null).at("/deleted").asInt()).isEqualTo(1);
        assertThat(ids(api.get("/workers"))).containsExactly(recentlyGone, online);

        assertThat(api.post("/workers/cleanup-offline", null).at("/deleted").asInt()).isEqualTo(1);
        assertThat(ids(api.get("/workers"))).containsExactly(online);
        assertThat(api.post("/workers/cleanup-offline", null).at("/deleted").asInt()).isZero();
    }

    static List<UUID> ids(Api.Response response) {
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body().valueStream().map(w -> UUID.fromString(w.get("id").asString())).toList();
    }
}
