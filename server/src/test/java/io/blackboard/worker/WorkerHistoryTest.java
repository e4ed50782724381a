package io.blackboard.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.blackboard.Api;
import io.blackboard.IntegrationTest;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * A worker's history through the HTTP API: every change of its state, directive or existence,
 * in order, with the database's time, who made it and why; nothing for what changes nothing;
 * pages that neither skip nor repeat while the history grows.
 */
class WorkerHistoryTest extends IntegrationTest {

    private static final DateTimeFormatter ISO_MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");

    @Autowired
    WorkerLivenessSweeper sweeper;

    @Autowired
    WorkerEventReaper reaper;

    /** One line of a history as the API answers it. */
    record Line(long id, String kind, String state, String fromState, String directive, String fromDirective,
            String relatedWorkerId, String actor, String detail, OffsetDateTime at) {
    }

    @Test
    void aWorkersWholeLifeIsItsHistoryInOrderWithDatabaseTimesAndCauses() {
        Api.Response registered = api.as("test-worker").post("/workers/register", Map.of("name", "w"));
        UUID id = UUID.fromString(registered.at("/id").asString());
        Api self = api.as(registered.at("/token").asString());
        Api operator = api.as("test-operator");
        String ping = "/workers/" + id + "/ping";

        assertThat(self.post(ping, Map.of("activeJobIds", List.of())).status()).isEqualTo(200);
        String silentSince = silence(id, "3 minutes");
        sweeper.runOnce();
        OffsetDateTime unreachableAt = stateChangedAt(id);
        assertThat(self.post(ping, Map.of("activeJobIds", List.of())).at("/state").asString()).isEqualTo("ONLINE");
        OffsetDateTime backAt = stateChangedAt(id);
        String silentAgainSince = silence(id, "3 minutes");
        sweeper.runOnce();
        String lostSince = silence(id, "7 minutes");
        sweeper.runOnce();
        OffsetDateTime offlineAt = stateChangedAt(id);
        assertThat(self.post(ping, null).at("/state").asString()).as("a ping without a list").isEqualTo("ONLINE");
        assertThat(operator.put("/workers/" + id + "/directive", Map.of("directive", "QUIET")).status()).isEqualTo(200);
        assertThat(operator.put("/workers/" + id + "/directive", Map.of("directive", "QUIET")).status())
                .as("the same directive again: no change, no event").isEqualTo(200);
        assertThat(self.post("/workers/" + id + "/unregister", null).status()).isEqualTo(200);
        assertThat(operator.delete("/workers/" + id).status()).isEqualTo(204);
        OffsetDateTime deletedAt = jdbc.sql("select deleted_at from worker where id = :id").param("id", id)
                .query(OffsetDateTime.class).single();
        Api.Response again = api.as("test-worker").post("/workers/register",
                Map.of("name", "w", "previousWorkerId", id));
        assertThat(again.status()).as(again.toString()).isEqualTo(201);
        String newId = again.at("/id").asString();

        List<Line> history = history(operator, id);

        assertThat(history).extracting(Line::kind).containsExactly("REGISTERED", "UNREACHABLE", "ONLINE",
                "UNREACHABLE", "OFFLINE", "ONLINE", "DIRECTIVE", "OFFLINE", "DELETED", "REREGISTERED");
        assertThat(history).extracting(Line::fromState).containsExactly(null, "ONLINE", "UNREACHABLE", "ONLINE",
                "UNREACHABLE", "OFFLINE", null, "ONLINE", null, null);
        assertThat(history).extracting(Line::state).containsExactly("ONLINE", "UNREACHABLE", "ONLINE",
                "UNREACHABLE", "OFFLINE", "ONLINE", "ONLINE", "OFFLINE", "OFFLINE", "OFFLINE");
        assertThat(history).extracting(Line::fromDirective).containsExactly(null, null, null, null, null, null,
                "RUN", null, null, null);
        assertThat(history).extracting(Line::directive).containsExactly("RUN", "RUN", "RUN", "RUN", "RUN", "RUN",
                "QUIET", "QUIET", "QUIET", "QUIET");
        assertThat(history).extracting(Line::actor).containsExactly("worker", "sweeper", "worker", "sweeper",
                "sweeper", "worker", "operator", "worker", "operator", "worker");
        assertThat(history).extracting(Line::detail).containsExactly(null, "no ping since " + silentSince, "ping",
                "no ping since " + silentAgainSince, "no ping since " + lostSince, "ping", null, "unregister", "delete",
                "registered again as " + newId);
        assertThat(history.get(9).relatedWorkerId()).isEqualTo(newId);
        // each time is the database's time of the change itself
        assertThat(history.get(1).at().toInstant()).isEqualTo(unreachableAt.toInstant());
        assertThat(history.get(2).at().toInstant()).isEqualTo(backAt.toInstant());
        assertThat(history.get(4).at().toInstant()).isEqualTo(offlineAt.toInstant());
        assertThat(history.get(8).at().toInstant()).isEqualTo(deletedAt.toInstant());
        assertThat(history).extracting(line -> line.at().toInstant()).isSorted();
        assertChain(history);

        List<Line> successor = history(operator, UUID.fromString(newId));
        assertThat(successor).extracting(Line::kind, Line::relatedWorkerId, Line::actor, Line::detail)
                .containsExactly(tuple("REGISTERED", id.toString(), "worker",
                        "replaces " + id));
    }

    @Test
    void whatChangesNothingWritesNothing() {
        UUID id = registerWorker("w");
        UUID block = registerBlocks(id, List.of(block("echo", "1"))).getFirst();
        api.post("/blackboard/jobs", Map.of("functionBlockId", block, "type", "EXECUTE"));
        String held = api.post("/blackboard/job", Map.of("workerId", id)).at("/0/id").asString();
        long before = count("worker_event");

        for (int i = 0; i < 5; i++) {
            assertThat(api.post("/workers/" + id + "/ping", Map.of("activeJobIds", List.of(held))).status())
                    .isEqualTo(200);
            assertThat(api.post("/workers/" + id + "/ping", null).status()).isEqualTo(200);
        }
        UUID idle = registerWorker("idle");
        before++;
        for (int i = 0; i < 5; i++) {
            assertThat(api.post("/workers/" + idle + "/ping", Map.of("activeJobIds", List.of())).status())
                    .isEqualTo(200);
        }
        api.put("/workers/" + id + "/directive", Map.of("directive", "RUN"));
        assertThat(sweeper.runOnce()).isEqualTo(new WorkerLivenessSweeper.Result(0, 0, 0, 0));
        api.post("/workers/" + idle + "/unregister", null);
        before++;
        api.post("/workers/" + idle + "/unregister", null);
        api.delete("/workers/" + idle);
        before++;
        api.delete("/workers/" + idle);
        assertThat(api.post("/workers/" + idle + "/ping", null).status()).isEqualTo(404);

        assertThat(count("worker_event")).as("only the registration, unregister and delete of 'idle'")
                .isEqualTo(before);
    }

    /** Two operators change the directive over and over while a reader follows the history page by page. */
    @Test
    void pagesFollowedByTheirCursorNeitherSkipNorRepeatWhileEventsAreAdded() throws Exception {
        UUID id = registerWorker("w");
        String directive = "/workers/" + id + "/directive";
        List<Future<?>> writers = new ArrayList<>();
        List<Long> read = new ArrayList<>();
        try (var pool = Executors.newFixedThreadPool(2)) {
            for (String first : List.of("QUIET", "TERMINATE")) {
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < 60; i++) {
                        api.put(directive, Map.of("directive", i % 2 == 0 ? first : "RUN"));
                    }
                }));
            }
            String cursor = null;
            while (true) {
                boolean finished = writers.stream().allMatch(Future::isDone);
                Api.Response page = api.get("/workers/" + id + "/events?limit=7"
                        + (cursor == null ? "" : "&after=" + cursor));
                assertThat(page.status()).as(page.toString()).isEqualTo(200);
                List<Line> lines = lines(page.at("/events"));
                if (!page.at("/next").isNull()) {
                    assertThat(lines).hasSize(7);
                    lines.forEach(line -> read.add(line.id()));
                    cursor = page.at("/next").asString();
                } else if (finished) {
                    lines.forEach(line -> read.add(line.id()));
                    break;
                }
                // else: the end for now; read on from the same cursor once more is written
            }
            for (Future<?> writer : writers) {
                writer.get();
            }
        }

        List<Long> stored = jdbc.sql("select id from worker_event where worker_id = :id order by id")
                .param("id", id).query(Long.class).list();
        assertThat(stored.size()).as("the directives changed often").isGreaterThan(40);
        assertThat(read).as("every event once, in order").isEqualTo(stored);
        assertChain(history(api, id));
    }

    /** A ping and the sweeper meet: whichever wins, the history tells it, and ends in the worker's state. */
    @Test
    void pingsRacingTheSweeperLeaveEachHistoryAnUnbrokenChain() throws Exception {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            ids.add(registerWorker("w" + i));
        }
        jdbc.sql("update worker set last_seen_at = now() - interval '3 minutes'").update();
        List<Callable<Object>> work = new ArrayList<>();
        work.add(() -> sweeper.runOnce());
        for (UUID id : ids) {
            work.add(() -> api.post("/workers/" + id + "/ping", Map.of("activeJobIds", List.of())).status());
        }
        work.add(work.size() / 2, () -> sweeper.runOnce());
        try (var pool = Executors.newFixedThreadPool(8)) {
            for (Future<Object> done : pool.invokeAll(work)) {
                done.get();
            }
        }

        int revived = 0;
        for (UUID id : ids) {
            List<Line> history = history(api, id);
            assertThat(history.stream().map(Line::kind).toList()).as(id.toString()).isIn(List.of("REGISTERED"),
                    List.of("REGISTERED", "UNREACHABLE", "ONLINE"));
            revived += history.size() > 1 ? 1 : 0;
            assertChain(history);
            assertThat(history.getLast().state()).isEqualTo(api.get("/workers/" + id).at("/state").asString());
        }
        assertThat(revived).as("workers the sweeper marked before their ping").isPositive();
    }

    @Test
    void theActorIsWhoeverMadeTheChange() {
        Api operator = api.as("test-operator");
        UUID byOperator = UUID.fromString(operator.post("/workers/register", Map.of("name", "o")).at("/id").asString());
        operator.post("/workers/" + byOperator + "/unregister", null);
        assertThat(operator.post("/workers/cleanup-offline", null).at("/deleted").asInt()).isEqualTo(1);

        Api.Response registered = api.as("test-worker").post("/workers/register", Map.of("name", "s"));
        UUID bySweeper = UUID.fromString(registered.at("/id").asString());
        api.as(registered.at("/token").asString()).post("/workers/" + bySweeper + "/unregister", null);
        jdbc.sql("update worker set state_changed_at = now() - interval '25 hours' where id = :id")
                .param("id", bySweeper).update();
        String offlineSince = iso(jdbc.sql("select state_changed_at from worker where id = :id")
                .param("id", bySweeper).query(OffsetDateTime.class).single());
        assertThat(sweeper.runOnce().deleted()).isEqualTo(1);

        assertThat(history(operator, byOperator)).extracting(Line::kind, Line::actor).containsExactly(
                tuple("REGISTERED", "operator"),
                tuple("OFFLINE", "operator"),
                tuple("DELETED", "operator"));
        assertThat(history(operator, byOperator).getLast().detail()).startsWith("cleanup-offline: OFFLINE since ");
        assertThat(history(operator, bySweeper)).extracting(Line::kind, Line::actor, Line::detail).containsExactly(
                tuple("REGISTERED", "worker", null),
                tuple("OFFLINE", "worker", "unregister"),
                tuple("DELETED", "sweeper", "OFFLINE since " + offlineSince));
    }

    @Test
    void aRegistrationMayNameOnlyADeletedWorkerAsTheOneItReplaces() {
        UUID live = registerWorker("live");
        long workers = count("worker");

        Api.Response refused = api.post("/workers/register", Map.of("name", "w", "previousWorkerId", live));
        assertProblem(refused, 409, "not a deleted one");
        assertThat(refused.at("/type").asString()).isEqualTo("/problems/worker-not-deleted");
        assertThat(count("worker")).isEqualTo(workers);
        assertProblem(api.post("/workers/register", Map.of("name", "w", "previousWorkerId", "not-a-uuid")), 400,
                "previousWorkerId");

        // one the server never knew (its database restored from before it, say) is only noted
        UUID unknown = UUID.randomUUID();
        UUID id = UUID.fromString(api.post("/workers/register", Map.of("name", "w", "previousWorkerId", unknown))
                .at("/id").asString());
        assertThat(history(api, id)).extracting(Line::kind, Line::relatedWorkerId).containsExactly(
                tuple("REGISTERED", unknown.toString()));
        assertThat(history(api, live)).extracting(Line::kind).containsExactly("REGISTERED");
    }

    @Test
    void anUnknownWorkerIs404AndABadCursorOrLimitIs400() {
        UUID id = registerWorker("w");

        assertProblem(api.get("/workers/" + UUID.randomUUID() + "/events"), 404, "not registered");
        assertProblem(api.get("/workers/not-a-uuid/events"), 400, "not-a-uuid");
        for (String after : List.of("not-a-cursor", "ZS0x", "MTIzNDU2L3g", "%20")) { // ZS0x: "e-1"
            assertProblem(api.get("/workers/" + id + "/events?after=" + after), 400, "not a cursor");
        }
        for (String limit : List.of("0", "1001", "-5")) {
            assertProblem(api.get("/workers/" + id + "/events?limit=" + limit), 400, "limit");
        }
        assertProblem(api.get("/workers/" + id + "/events?limit=many"), 400, "limit");
        assertThat(api.get("/workers/" + id + "/events?limit=1000").status()).isEqualTo(200);
    }

    @Test
    void aWorkerReadsItsOwnHistoryOnlyAndTheEngineNone() {
        Api.Response me = api.as("test-worker").post("/workers/register", Map.of("name", "me"));
        UUID id = UUID.fromString(me.at("/id").asString());
        UUID other = registerWorker("other");
        Api self = api.as(me.at("/token").asString());

        assertThat(self.get("/workers/" + id + "/events").status()).isEqualTo(200);
        assertThat(self.get("/workers/" + other + "/events").status()).isEqualTo(403);
        assertThat(api.as("test-engine").get("/workers/" + id + "/events").status()).isEqualTo(403);
        assertThat(api.as(null).get("/workers/" + id + "/events").status()).isEqualTo(401);
    }

    @Test
    void eventsOlderThanTheRetentionAreReapedAndTheRestKept() {
        UUID id = registerWorker("w");
        api.put("/workers/" + id + "/directive", Map.of("directive", "QUIET"));
        api.put("/workers/" + id + "/directive", Map.of("directive", "RUN"));
        jdbc.sql("""
                update worker_event set at = now() - interval '31 days'
                 where worker_id = :id and kind in ('REGISTERED', 'DIRECTIVE') and from_directive is distinct from 'QUIET'
                """).param("id", id).update();

        assertThat(reaper.runOnce().deleted()).isEqualTo(2);
        assertThat(history(api, id)).extracting(Line::kind, Line::fromDirective).containsExactly(
                tuple("DIRECTIVE", "QUIET"));
        assertThat(reaper.runOnce().deleted()).isZero();
        assertThat(reaper.interval()).as("a tenth of 30 days, at most the liveness check's interval")
                .isEqualTo(java.time.Duration.ofSeconds(15));
    }

    /**
     * Each line starts where the one before it ended: its fromState and fromDirective (where it
     * changed them) are the previous line's state and directive, and what it did not change is as
     * the previous line left it. A change recorded from a stale view of the worker breaks it.
     */
    private static void assertChain(List<Line> history) {
        assertThat(history.getFirst().kind()).isEqualTo("REGISTERED");
        for (int i = 1; i < history.size(); i++) {
            Line before = history.get(i - 1);
            Line line = history.get(i);
            assertThat(line.id()).isGreaterThan(before.id());
            assertThat(line.fromState() == null ? line.state() : line.fromState()).as("line %d: %s", i, line)
                    .isEqualTo(before.state());
            assertThat(line.fromDirective() == null ? line.directive() : line.fromDirective())
                    .as("line %d: %s", i, line).isEqualTo(before.directive());
        }
    }

    /** The whole history, page by page. */
    private List<Line> history(Api caller, UUID id) {
        List<Line> all = new ArrayList<>();
        String cursor = null;
        do {
            Api.Response page = caller.get("/workers/" + id + "/events?limit=3" + (cursor == null ? "" : "&after=" + cursor));
            assertThat(page.status()).as(page.toString()).isEqualTo(200);
            all.addAll(lines(page.at("/events")));
            cursor = page.at("/next").isNull() ? null : page.at("/next").asString();
        } while (cursor != null);
        return all;
    }

    private static List<Line> lines(JsonNode events) {
        List<Line> lines = new ArrayList<>();
        for (JsonNode e : events) {
            lines.add(new Line(e.get("id").asLong(), text(e, "kind"), text(e, "state"), text(e, "fromState"),
                    text(e, "directive"), text(e, "fromDirective"), text(e, "relatedWorkerId"), text(e, "actor"),
                    text(e, "detail"), OffsetDateTime.parse(text(e, "at"))));
        }
        return lines;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        assertThat(value).as(field + " in " + node).isNotNull();
        return value.isNull() ? null : value.asString();
    }

    /** Moves the worker's last ping back; answers it as an event's detail spells it. */
    private String silence(UUID id, String interval) {
        return iso(jdbc.sql("""
                update worker set last_seen_at = now() - cast(:interval as interval) where id = :id
                returning last_seen_at""").param("interval", interval).param("id", id)
                .query(OffsetDateTime.class).single());
    }

    private OffsetDateTime stateChangedAt(UUID id) {
        return jdbc.sql("select state_changed_at from worker where id = :id").param("id", id)
                .query(OffsetDateTime.class).single();
    }

    private static String iso(OffsetDateTime at) {
        return at.withOffsetSameInstant(ZoneOffset.UTC).format(ISO_MILLIS);
    }
}
