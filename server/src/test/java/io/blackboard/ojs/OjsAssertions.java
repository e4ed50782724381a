package io.blackboard.ojs;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * A step's {@code assertions} object, its templates already resolved, checked against the
 * step's response and the case's context (for the cross-step ASSERT checks). Every assertion
 * is evaluated and each failure listed; an assertion this runner does not know is a failure too
 * ({@code body_raw}, reserved and unimplemented in the reference, among them), so nothing in a
 * case passes by being ignored.
 */
final class OjsAssertions {

    /** The assertions that need an HTTP answer. */
    static final Set<String> ON_RESPONSE = Set.of("status", "status_in", "body", "body_absent", "body_contains",
            "headers", "timing_ms");

    private OjsAssertions() {
    }

    /** The failures, one line each; empty when every assertion holds. */
    static List<String> check(JsonNode assertions, OjsResponse response, JsonNode context) {
        List<String> failures = new ArrayList<>();
        if (assertions == null) {
            return failures;
        }
        for (Map.Entry<String, JsonNode> entry : assertions.properties()) {
            String key = entry.getKey();
            if (response == null && ON_RESPONSE.contains(key)) {
                failures.add(key + ": this step makes no request, there is no response to check");
                continue;
            }
            JsonNode spec = entry.getValue();
            String shape = shapeProblem(key, spec);
            if (shape != null) {
                failures.add(key + ": " + shape + ", not " + OjsMatcher.show(spec));
                continue;
            }
            switch (key) {
                case "status" -> status(spec, response, failures);
                case "status_in" -> statusIn(spec, response, failures);
                case "body" -> body(spec, response.body(), failures);
                case "body_absent" -> bodyAbsent(spec, response.body(), failures);
                case "body_contains" -> bodyContains(spec, response.raw(), failures);
                case "headers" -> headers(spec, response, failures);
                case "timing_ms" -> timing(spec, response.millis(), failures);
                case "exclusive_claim" -> exclusiveClaim(spec, failures);
                case "equality" -> equality(spec, context, failures);
                default -> failures.add("unsupported assertion '" + key + "'");
            }
        }
        return failures;
    }

    /** A check whose argument has the wrong shape would check nothing: that is a failure. */
    private static String shapeProblem(String key, JsonNode spec) {
        return switch (key) {
            case "status_in", "body_absent", "body_contains" -> spec.isArray() && !spec.isEmpty() ? null : "a non-empty array";
            case "body" -> spec.isObject() ? null : "an object of JSONPath -> matcher";
            case "headers", "timing_ms", "exclusive_claim", "equality" ->
                    spec.isObject() && !spec.isEmpty() ? null : "a non-empty object";
            default -> null;
        };
    }

    private static void status(JsonNode matcher, OjsResponse response, List<String> failures) {
        JsonNode actual = JsonNodeFactory.instance.numberNode(response.status());
        String why = OjsMatcher.mismatch(actual, matcher);
        if (why != null) {
            failures.add("status: expected " + matcher + ", was " + response.status());
        }
    }

    private static void statusIn(JsonNode codes, OjsResponse response, List<String> failures) {
        boolean ok = false;
        for (JsonNode code : codes) {
            ok |= code.isNumber() && code.asInt() == response.status();
        }
        if (!ok) {
            failures.add("status_in: expected one of " + codes + ", was " + response.status());
        }
    }

    private static void body(JsonNode spec, JsonNode body, List<String> failures) {
        if (!spec.isObject()) {
            failures.add("body: the body assertions are an object of JSONPath -> matcher, not " + spec);
            return;
        }
        for (Map.Entry<String, JsonNode> entry : spec.properties()) {
            if (entry.getKey().equals("$or")) {
                anyAlternative(entry.getValue(), body, failures);
            } else {
                path(entry.getKey(), entry.getValue(), body, failures);
            }
        }
    }

    /** A top-level {@code $or}: the body assertions of at least one alternative all hold. */
    private static void anyAlternative(JsonNode alternatives, JsonNode body, List<String> failures) {
        if (!alternatives.isArray() || alternatives.isEmpty()) {
            failures.add("body $or: needs a non-empty array of alternatives, not " + OjsMatcher.show(alternatives));
            return;
        }
        List<String> why = new ArrayList<>();
        for (JsonNode alternative : alternatives) {
            List<String> own = new ArrayList<>();
            body(alternative, body, own);
            if (own.isEmpty()) {
                return;
            }
            why.add(String.join("; ", own));
        }
        failures.add("body $or: no alternative holds: [" + String.join("] or [", why) + "]");
    }

    private static void path(String path, JsonNode matcher, JsonNode body, List<String> failures) {
        JsonNode actual;
        try {
            actual = JsonPathLite.resolve(body, path);
        } catch (IllegalArgumentException e) {
            failures.add("body " + path + ": bad JSONPath (" + e.getMessage() + ")");
            return;
        }
        String why = OjsMatcher.mismatch(actual, matcher);
        if (why != null) {
            failures.add("body " + path + ": expected " + matcher + ", was " + OjsMatcher.show(actual) + " (" + why + ")");
        }
    }

    private static void bodyAbsent(JsonNode paths, JsonNode body, List<String> failures) {
        for (JsonNode path : paths) {
            JsonNode actual;
            try {
                actual = JsonPathLite.resolve(body, path.asString());
            } catch (IllegalArgumentException e) {
                failures.add("body_absent " + path.asString() + ": bad JSONPath (" + e.getMessage() + ")");
                continue;
            }
            if (actual != null) {
                failures.add("body_absent " + path.asString() + ": present, was " + OjsMatcher.show(actual));
            }
        }
    }

    private static void bodyContains(JsonNode parts, String raw, List<String> failures) {
        for (JsonNode part : parts) {
            if (!raw.contains(part.asString())) {
                failures.add("body_contains: the body does not contain " + part);
            }
        }
    }

    /** Names case-insensitive; a string value must equal the header exactly, an object is a matcher. */
    private static void headers(JsonNode expected, OjsResponse response, List<String> failures) {
        for (Map.Entry<String, JsonNode> entry : expected.properties()) {
            String actual = response.header(entry.getKey());
            JsonNode matcher = entry.getValue();
            boolean ok = matcher.isString() ? matcher.stringValue().equals(actual)
                    : OjsMatcher.matches(actual == null ? null : JsonNodeFactory.instance.stringNode(actual), matcher);
            if (!ok) {
                failures.add("header " + entry.getKey() + ": expected " + matcher + ", was "
                        + (actual == null ? "(absent)" : "\"" + actual + "\""));
            }
        }
    }

    private static void timing(JsonNode spec, long millis, List<String> failures) {
        for (Map.Entry<String, JsonNode> entry : spec.properties()) {
            long bound = entry.getValue().asLong();
            String why = switch (entry.getKey()) {
                case "less_than" -> millis < bound ? null : "not less than " + bound;
                case "greater_than" -> millis > bound ? null : "not greater than " + bound;
                case "approximate" -> OjsMatcher.approximately(JsonNodeFactory.instance.numberNode(millis),
                        BigDecimal.valueOf(bound));
                default -> "unknown timing check";
            };
            if (why != null) {
                failures.add("timing_ms " + entry.getKey() + " " + bound + ": took " + millis + " ms (" + why + ")");
            }
        }
    }

    /**
     * ASSERT's {@code exclusive_claim}: of the {@code fetches} (each a fetch's jobs array), at most
     * one holds {@code job_id} (always: that is what exclusive means), exactly one with
     * {@code exactly_one_has_job}, and exactly one is empty with {@code exactly_one_empty}.
     */
    private static void exclusiveClaim(JsonNode spec, List<String> failures) {
        for (String key : spec.propertyNames()) {
            if (!Set.of("job_id", "fetches", "exactly_one_has_job", "exactly_one_empty").contains(key)) {
                failures.add("exclusive_claim: unknown field '" + key + "'");
            }
        }
        JsonNode jobId = spec.get("job_id");
        JsonNode fetches = spec.get("fetches");
        if (jobId == null || !jobId.isString() || !OjsTemplates.unresolved(jobId).isEmpty()) {
            failures.add("exclusive_claim: job_id is not a resolved id: " + OjsMatcher.show(jobId));
            return;
        }
        if (fetches == null || !fetches.isArray() || fetches.size() < 2) {
            failures.add("exclusive_claim: fetches must list at least two fetches' jobs arrays, was " + OjsMatcher.show(fetches));
            return;
        }
        int holders = 0;
        int empty = 0;
        for (int i = 0; i < fetches.size(); i++) {
            JsonNode jobs = fetches.get(i);
            if (!jobs.isArray()) {
                failures.add("exclusive_claim: fetch " + (i + 1) + " is not a jobs array: " + OjsMatcher.show(jobs));
                return;
            }
            holders += holds(jobs, jobId.stringValue()) ? 1 : 0;
            empty += jobs.isEmpty() ? 1 : 0;
        }
        claimCounts(spec, holders, empty, fetches, failures);
    }

    private static boolean holds(JsonNode jobs, String jobId) {
        for (JsonNode job : jobs) {
            JsonNode id = job.get("id");
            if (id != null && id.isString() && id.stringValue().equals(jobId)) {
                return true;
            }
        }
        return false;
    }

    private static void claimCounts(JsonNode spec, int holders, int empty, JsonNode fetches, List<String> failures) {
        String seen = " (fetches: " + OjsMatcher.show(fetches) + ")";
        if (holders > 1) {
            failures.add("exclusive_claim: " + holders + " fetches hold the job, it was claimed more than once" + seen);
        } else if (spec.path("exactly_one_has_job").asBoolean(false) && holders != 1) {
            failures.add("exclusive_claim: exactly one fetch should hold the job, none does" + seen);
        }
        if (spec.path("exactly_one_empty").asBoolean(false) && empty != 1) {
            failures.add("exclusive_claim: exactly one fetch should be empty, " + empty + " are" + seen);
        }
    }

    /** ASSERT's {@code equality}: the value at each path into the context equals the given value. */
    private static void equality(JsonNode spec, JsonNode context, List<String> failures) {
        for (Map.Entry<String, JsonNode> entry : spec.properties()) {
            JsonNode actual;
            try {
                actual = JsonPathLite.resolve(context, entry.getKey());
            } catch (IllegalArgumentException e) {
                failures.add("equality " + entry.getKey() + ": bad JSONPath (" + e.getMessage() + ")");
                continue;
            }
            if (actual == null || !actual.equals(entry.getValue())) {
                failures.add("equality " + entry.getKey() + ": was " + OjsMatcher.show(actual)
                        + ", expected " + OjsMatcher.show(entry.getValue()));
            }
        }
    }
}
