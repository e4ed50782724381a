package io.blackboard.ojs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The conformance interpreter itself, without a server: every matcher accepts what it should and
 * rejects what it should, the JSONPath forms and templates resolve as the DSL says, each kind of
 * assertion can fail, and no matcher the vendored suites use is one that cannot fail.
 */
class OjsMatcherTest {

    /** Stands for "nothing at the path" in the tables below. */
    private static final String ABSENT = "<absent>";

    private static JsonNode json(String text) {
        return OjsResponse.json().readTree(text);
    }

    private static JsonNode value(String text) {
        return text.equals(ABSENT) ? null : json(text);
    }

    private static void accepts(String matcher, String... values) {
        for (String v : values) {
            assertThat(OjsMatcher.mismatch(value(v), json(matcher))).as("%s should accept %s", matcher, v).isNull();
        }
    }

    private static void rejects(String matcher, String... values) {
        for (String v : values) {
            assertThat(OjsMatcher.mismatch(value(v), json(matcher))).as("%s should reject %s", matcher, v).isNotNull();
        }
    }

    @Test
    void existenceMatchersTellAbsentFromNull() {
        accepts("\"any\"", "\"x\"", "0", "false", "[]");
        rejects("\"any\"", ABSENT, "null");
        accepts("\"exists\"", "null", "\"x\"");
        rejects("\"exists\"", ABSENT);
        accepts("\"absent\"", ABSENT);
        rejects("\"absent\"", "null", "\"\"", "0");
        accepts("{\"$exists\": true}", "null", "1");
        rejects("{\"$exists\": true}", ABSENT);
        accepts("{\"$exists\": false}", ABSENT);
        rejects("{\"$exists\": false}", "null", "\"x\"");
        accepts("{\"$exists\": true, \"$type\": \"string\"}", "\"x\"");
        rejects("{\"$exists\": true, \"$type\": \"string\"}", ABSENT, "null", "1");
    }

    @Test
    void stringMatchers() {
        accepts("\"string:nonempty\"", "\"a\"");
        rejects("\"string:nonempty\"", "\"\"", "1", ABSENT, "null");
        accepts("\"string:non_empty\"", "\"a\"");
        rejects("\"string:non_empty\"", "\"\"");
        accepts("\"string:uuid\"", "\"550e8400-e29b-41d4-a716-446655440000\"", "\"019461a8-1a2b-7c3d-8e4f-5a6b7c8d9e0f\"");
        rejects("\"string:uuid\"", "\"550E8400-E29B-41D4-A716-446655440000\"", "\"not-a-uuid\"", "1");
        accepts("\"string:uuidv7\"", "\"019461a8-1a2b-7c3d-8e4f-5a6b7c8d9e0f\"");
        rejects("\"string:uuidv7\"", "\"550e8400-e29b-41d4-a716-446655440000\"", "\"019461a8-1a2b-7c3d-cf4f-5a6b7c8d9e0f\"",
                "\"019461A8-1A2B-7C3D-8E4F-5A6B7C8D9E0F\"");
        accepts("\"string:datetime\"", "\"2024-01-15T10:30:00Z\"", "\"2024-01-15T10:30:00.123456+02:00\"");
        rejects("\"string:datetime\"", "\"2024-01-15 10:30:00Z\"", "\"2024-01-15T10:30:00\"", "1705314600");
        accepts("\"string:contains:not found\"", "\"job not found here\"");
        rejects("\"string:contains:not found\"", "\"Not Found\"", "1");
        accepts("\"string:pattern(^test\\\\..*)\"", "\"test.echo\"");
        rejects("\"string:pattern(^test\\\\..*)\"", "\"a.test.echo\"", "1");
        accepts("\"string:pattern(echo)\"", "\"test.echo.x\"");
        accepts("\"available\"", "\"available\"");
        rejects("\"available\"", "\"Available\"", "\"available \"", ABSENT, "null");
        rejects("\"1.0\"", "1.0", "1");
        accepts("\"1.0\"", "\"1.0\"");
    }

    @Test
    void unknownPrefixedMatchersFailInsteadOfComparingLiterally() {
        rejects("\"string:uuidv8\"", "\"string:uuidv8\"", "\"x\"");
        rejects("\"number:odd\"", "1", "\"number:odd\"");
        rejects("\"array:sorted\"", "[]", "\"array:sorted\"");
        rejects("{\"$regex\": \"x\"}", "\"x\"");
        rejects("{\"$exists\": true, \"$typo\": 1}", "\"x\"");
    }

    @Test
    void numberMatchers() {
        accepts("42", "42", "42.0");
        rejects("42", "43", "\"42\"", ABSENT, "null");
        accepts("3.14", "3.14");
        accepts("-100", "-100");
        accepts("\"number:positive\"", "1", "0.5");
        rejects("\"number:positive\"", "0", "-1", "\"1\"");
        accepts("\"number:non_negative\"", "0", "7");
        rejects("\"number:non_negative\"", "-1", ABSENT);
        accepts("\"number:range(400,422)\"", "400", "422", "409");
        rejects("\"number:range(400,422)\"", "399", "423", "\"400\"");
        accepts("\"number:range(-10, 10)\"", "-10", "0");
        accepts("{\"range\": {\"min\": 1000, \"max\": 3000}}", "1000", "3000", "2000");
        rejects("{\"range\": {\"min\": 1000, \"max\": 3000}}", "999", "3001", "\"2000\"");
        accepts("{\"range\": {\"min\": 1000}}", "1000000");
        rejects("{\"range\": {\"max\": 5}}", "6");
        rejects("{\"range\": {}}", "1");
    }

    @Test
    void approximateMatchersUseHalfTheValueWithAFloorOf100() {
        accepts("\"~1000\"", "500", "1500", "1000");
        rejects("\"~1000\"", "499", "1501", "\"1000\"", ABSENT);
        accepts("\"~2000\"", "1000", "3000");
        rejects("\"~2000\"", "999", "3001");
        accepts("\"~100\"", "0", "200");
        rejects("\"~100\"", "201");
        accepts("\"~50\"", "0", "150");
        rejects("\"~50\"", "151");
    }

    @Test
    void arrayMatchers() {
        accepts("\"array:nonempty\"", "[1]");
        rejects("\"array:nonempty\"", "[]", "{}", "\"x\"", ABSENT);
        accepts("\"array:empty\"", "[]");
        rejects("\"array:empty\"", "[null]", ABSENT, "{}");
        accepts("\"array:length:1\"", "[{}]");
        rejects("\"array:length:1\"", "[]", "[1,2]");
        accepts("\"array:length(0)\"", "[]");
        rejects("\"array:length(0)\"", "[1]");
        accepts("\"array:min_length:2\"", "[1,2]", "[1,2,3]");
        rejects("\"array:min_length:2\"", "[1]");
        accepts("\"array:min:1\"", "[1]");
        rejects("\"array:min:1\"", "[]");
        accepts("\"contains:urgent\"", "[\"a\", \"urgent\"]");
        rejects("\"contains:urgent\"", "[\"a\"]", "[\"urgently\"]", ABSENT);
        accepts("\"contains:42\"", "[41, 42]");
        accepts("\"not_contains:deleted\"", "[\"a\"]", "[]");
        rejects("\"not_contains:deleted\"", "[\"deleted\"]", ABSENT);
        accepts("{\"$size\": 3}", "[1,2,3]");
        rejects("{\"$size\": 3}", "[1,2]", "{}");
        accepts("{\"$size\": 0}", "[]");
        rejects("{\"$size\": 0}", ABSENT, "[1]");
        accepts("{\"$size\": {\"$gte\": 1}}", "[1]", "[1,2]");
        rejects("{\"$size\": {\"$gte\": 1}}", "[]");
    }

    @Test
    void positionalArraysAndPlainObjectsMatchElementByElement() {
        String matcher = "[\"arg1\", 42, true, null, {\"nested\": \"value\"}]";
        accepts(matcher, "[\"arg1\", 42, true, null, {\"nested\": \"value\"}]");
        rejects(matcher, "[\"arg1\", 42, true, null]", "[\"arg1\", 42, true, null, {\"nested\": \"other\"}]",
                "[\"arg1\", 42, true, null, {\"nested\": \"value\", \"more\": 1}]", "[\"arg1\", 43, true, null, {\"nested\": \"value\"}]");
        accepts("[\"string:nonempty\", \"string:nonempty\"]", "[\"a\", \"b\"]");
        rejects("[\"string:nonempty\", \"string:nonempty\"]", "[\"a\", \"\"]", "[\"a\"]");
        accepts("true", "true");
        rejects("true", "false", "\"true\"", ABSENT);
        accepts("false", "false");
        rejects("false", "true", "null");
        accepts("null", "null");
        rejects("null", ABSENT, "0", "\"\"");
    }

    @Test
    void objectOperators() {
        accepts("{\"$match\": \"^Validation.*\"}", "\"ValidationError\"");
        rejects("{\"$match\": \"^Validation.*\"}", "\"SchemaValidation\"", "1", ABSENT);
        accepts("{\"$match\": \"application/(openjobspec\\\\+)?json\"}", "\"application/json\"", "\"application/openjobspec+json\"");
        rejects("{\"$match\": \"application/(openjobspec\\\\+)?json\"}", "\"text/plain\"");
        accepts("{\"$in\": [\"available\", \"active\"]}", "\"active\"");
        rejects("{\"$in\": [\"available\", \"active\"]}", "\"completed\"", ABSENT);
        accepts("{\"$in\": [200, 201]}", "201");
        rejects("{\"$in\": []}", "1");
        accepts("{\"$or\": [\"string:nonempty\", {\"$exists\": false}]}", "\"x\"", ABSENT);
        rejects("{\"$or\": [\"string:nonempty\", {\"$exists\": false}]}", "\"\"", "null");
        accepts("{\"$empty\": true}", ABSENT, "null", "\"\"", "[]", "{}");
        rejects("{\"$empty\": true}", "[1]", "\"x\"", "0");
        accepts("{\"$empty\": false}", "[1]");
        rejects("{\"$empty\": false}", ABSENT);
        for (String type : List.of("string", "number", "boolean", "null", "array", "object")) {
            accepts("{\"$type\": \"" + type + "\"}", Map.of("string", "\"s\"", "number", "1.5", "boolean", "true",
                    "null", "null", "array", "[]", "object", "{}").get(type));
        }
        rejects("{\"$type\": \"number\"}", "\"1\"", ABSENT);
        rejects("{\"$type\": \"integer\"}", "1");
    }

    @Test
    void oneOfComparesTheValuesText() {
        accepts("\"one_of:200,201,409\"", "201", "\"409\"");
        rejects("\"one_of:200,201,409\"", "202", ABSENT);
    }

    @Test
    void jsonPathDotIndexWildcardAndFilter() {
        JsonNode body = json("""
                {"job": {"id": "a", "error": null, "args": [[1, [2, 3]], {"k": "v"}]},
                 "jobs": [{"id": "j1", "state": "active", "n": 1}, {"id": "j2", "state": "available", "n": 2},
                          {"state": "active"}],
                 "odd-key": {"x.y": 5}}
                """);
        assertThat(JsonPathLite.resolve(body, "$.job.id")).isEqualTo(json("\"a\""));
        assertThat(JsonPathLite.resolve(body, "$.job.args[0][1][0]")).isEqualTo(json("2"));
        assertThat(JsonPathLite.resolve(body, "$.job.args[1].k")).isEqualTo(json("\"v\""));
        assertThat(JsonPathLite.resolve(body, "$.job.args[5]")).isNull();
        assertThat(JsonPathLite.resolve(body, "$.job.error")).isEqualTo(json("null"));
        assertThat(JsonPathLite.resolve(body, "$.job.result")).isNull();
        assertThat(JsonPathLite.resolve(body, "$.job.id.deeper")).isNull();
        assertThat(JsonPathLite.resolve(body, "$.jobs[*].id")).isEqualTo(json("[\"j1\", \"j2\"]"));
        assertThat(JsonPathLite.resolve(body, "$.jobs[*].missing")).isEqualTo(json("[]"));
        assertThat(JsonPathLite.resolve(body, "$.job.args[*][*]")).isEqualTo(json("[1, [2, 3]]"));
        assertThat(JsonPathLite.resolve(body, "$.nothing[*].id")).isNull();
        assertThat(JsonPathLite.resolve(body, "$.jobs[?(@.state=='active')].id")).isEqualTo(json("\"j1\""));
        assertThat(JsonPathLite.resolve(body, "$.jobs[?(@.id==\"j2\")]")).isEqualTo(json("{\"id\": \"j2\", \"state\": \"available\", \"n\": 2}"));
        assertThat(JsonPathLite.resolve(body, "$.jobs[?(@.n==2)].id")).isEqualTo(json("\"j2\""));
        assertThat(JsonPathLite.resolve(body, "$.jobs[?(@.id=='j9')]")).isNull();
        assertThat(JsonPathLite.resolve(body, "$.job[?(@.id=='a')]")).as("a filter on an object").isNull();
        assertThat(JsonPathLite.resolve(body, "$['odd-key']['x.y']")).isEqualTo(json("5"));
        assertThat(JsonPathLite.resolve(body, "$")).isSameAs(body);
        assertThat(JsonPathLite.resolve(null, "$.job")).isNull();
    }

    @Test
    void malformedPathsAreRejected() {
        for (String path : List.of("job.id", "$.", "$.jobs[", "$.jobs[-1]", "$.jobs[x]", "$.jobs[?(@.a>1)]", "$x")) {
            assertThatThrownBy(() -> JsonPathLite.resolve(json("{}"), path)).as(path).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void templatesResolveFromEarlierSteps() {
        JsonNode context = json("""
                {"steps": {"step-1": {"response": {"status": 201, "body": {"job": {"id": "j1", "attempt": 2,
                   "score": 2.0, "ratio": 0.25, "args": [1, {"a": true}], "gone": null}}}},
                 "step-2": {"response": {"status": 200, "body": {"jobs": [{"id": "j1"}]}}}}}
                """);
        JsonNode resolved = OjsTemplates.resolve(json("""
                {"job_id": "{{steps.step-1.response.body.job.id}}",
                 "fetches": ["{{steps.step-2.response.body.jobs}}", "{{ steps.step-1.response.body.job.args }}"],
                 "attempt": "{{steps.step-1.response.body.job.attempt}}",
                 "text": "/jobs/{{steps.step-1.response.body.job.id}}/{{steps.step-1.response.body.job.attempt}}/{{steps.step-1.response.body.job.score}}/{{steps.step-1.response.body.job.ratio}}",
                 "first": "{{steps.step-2.response.body.jobs[0].id}}",
                 "$.jobs[?(@.id=='{{steps.step-1.response.body.job.id}}')]": "exists",
                 "status": "{{steps.step-1.response.status}}",
                 "missing": "{{steps.step-9.response.body.job.id}}",
                 "nulled": "x{{steps.step-1.response.body.job.gone}}"}
                """), context);
        assertThat(resolved.get("job_id")).isEqualTo(json("\"j1\""));
        assertThat(resolved.get("fetches")).isEqualTo(json("[[{\"id\": \"j1\"}], [1, {\"a\": true}]]"));
        assertThat(resolved.get("attempt")).isEqualTo(json("2"));
        assertThat(resolved.get("text")).isEqualTo(json("\"/jobs/j1/2/2/0.25\""));
        assertThat(resolved.get("first")).isEqualTo(json("\"j1\""));
        assertThat(resolved.has("$.jobs[?(@.id=='j1')]")).isTrue();
        assertThat(resolved.get("status")).isEqualTo(json("201"));
        assertThat(resolved.get("missing")).isEqualTo(json("\"{{steps.step-9.response.body.job.id}}\""));
        assertThat(OjsTemplates.unresolved(resolved)).containsExactly("{{steps.step-9.response.body.job.id}}",
                "{{steps.step-1.response.body.job.gone}}");
    }

    private static OjsResponse response(int status, String contentType, String body) {
        return OjsResponse.of(status, contentType == null ? Map.of() : Map.of("content-type", List.of(contentType)), body, 120);
    }

    private static List<String> check(String assertions, OjsResponse response) {
        return OjsAssertions.check(json(assertions), response, json("{}"));
    }

    @Test
    void statusInEveryForm() {
        OjsResponse r = response(409, null, "");
        assertThat(check("{\"status\": 409}", r)).isEmpty();
        assertThat(check("{\"status\": 200}", r)).singleElement().asString().contains("status: expected 200, was 409");
        assertThat(check("{\"status\": \"number:range(400,422)\"}", r)).isEmpty();
        assertThat(check("{\"status\": \"number:range(400,408)\"}", r)).hasSize(1);
        assertThat(check("{\"status\": \"one_of:200,201,409\"}", r)).isEmpty();
        assertThat(check("{\"status\": \"one_of:200,201\"}", r)).hasSize(1);
        assertThat(check("{\"status\": {\"$in\": [200, 409]}}", r)).isEmpty();
        assertThat(check("{\"status\": {\"$in\": [200, 204]}}", r)).hasSize(1);
        assertThat(check("{\"status_in\": [200, 409]}", r)).isEmpty();
        assertThat(check("{\"status_in\": [200, 201]}", r)).hasSize(1);
        assertThat(check("{\"status_in\": []}", r)).hasSize(1);
    }

    @Test
    void bodyAssertionsWithTopLevelOr() {
        OjsResponse r = response(200, "application/openjobspec+json", "{\"jobs\": [{\"state\": \"available\", \"id\": \"j\"}]}");
        assertThat(check("{\"body\": {\"$.jobs[0].state\": \"available\", \"$.jobs\": \"array:length:1\"}}", r)).isEmpty();
        assertThat(check("{\"body\": {\"$.jobs[0].state\": \"active\", \"$.jobs[0].id\": \"x\"}}", r)).hasSize(2)
                .anySatisfy(f -> assertThat(f).contains("$.jobs[0].state").contains("\"active\"").contains("\"available\""));
        assertThat(check("{\"body\": {\"$or\": [{\"$.jobs\": \"array:empty\"}, {\"$.jobs[0].state\": \"available\"}]}}", r)).isEmpty();
        assertThat(check("{\"body\": {\"$or\": [{\"$.jobs\": \"array:empty\"}, {\"$.jobs[0].state\": \"active\"}]}}", r))
                .singleElement().asString().startsWith("body $or: no alternative holds");
        assertThat(check("{\"body\": {\"$or\": []}}", r)).hasSize(1);
        assertThat(check("{\"body\": {\"$.jobs[\": \"any\"}}", r)).singleElement().asString().contains("bad JSONPath");
    }

    @Test
    void anEmptyBodyIsEmptyAndHasNothingInIt() {
        OjsResponse empty = response(204, null, "");
        assertThat(check("{\"body\": {\"$or\": [{\"$.jobs\": {\"$size\": 0}}, {\"$\": {\"$empty\": true}}]}}", empty)).isEmpty();
        assertThat(check("{\"body\": {\"$.jobs\": {\"$size\": 0}}}", empty)).hasSize(1);
        OjsResponse notJson = response(500, "text/plain", "boom");
        assertThat(notJson.body()).isNull();
        assertThat(check("{\"body_contains\": [\"boom\"]}", notJson)).isEmpty();
    }

    @Test
    void bodyAbsentAndBodyContains() {
        OjsResponse r = response(200, null, "{\"job\": {\"state\": \"completed\", \"error\": null}}");
        assertThat(check("{\"body_absent\": [\"$.job.result\", \"$.job.started_at\"]}", r)).isEmpty();
        assertThat(check("{\"body_absent\": [\"$.job.state\", \"$.job.error\"]}", r)).hasSize(2);
        assertThat(check("{\"body_absent\": []}", r)).hasSize(1);
        assertThat(check("{\"body_contains\": [\"\\\"state\\\": \\\"completed\\\"\"]}", r)).isEmpty();
        assertThat(check("{\"body_contains\": [\"\\\"state\\\":\\\"completed\\\"\"]}", r)).hasSize(1);
    }

    @Test
    void headersByNameInAnyCaseWithExactValues() {
        OjsResponse r = response(201, "application/openjobspec+json", "{}");
        assertThat(check("{\"headers\": {\"Content-Type\": \"application/openjobspec+json\"}}", r)).isEmpty();
        assertThat(check("{\"headers\": {\"CONTENT-TYPE\": \"application/openjobspec+json\"}}", r)).isEmpty();
        assertThat(check("{\"headers\": {\"Content-Type\": \"application/json\"}}", r)).hasSize(1);
        assertThat(check("{\"headers\": {\"OJS-Version\": \"1.0\"}}", r)).singleElement().asString().contains("(absent)");
        assertThat(check("{\"headers\": {\"Content-Type\": {\"$match\": \"application/(openjobspec\\\\+)?json\"}}}", r)).isEmpty();
        OjsResponse charset = response(201, "application/openjobspec+json;charset=UTF-8", "{}");
        assertThat(check("{\"headers\": {\"Content-Type\": \"application/openjobspec+json\"}}", charset)).hasSize(1);
    }

    @Test
    void timing() {
        OjsResponse r = response(200, null, "{}"); // took 120 ms
        assertThat(check("{\"timing_ms\": {\"less_than\": 121, \"greater_than\": 119, \"approximate\": 200}}", r)).isEmpty();
        assertThat(check("{\"timing_ms\": {\"less_than\": 120}}", r)).hasSize(1);
        assertThat(check("{\"timing_ms\": {\"greater_than\": 120}}", r)).hasSize(1);
        assertThat(check("{\"timing_ms\": {\"approximate\": 3000}}", r)).hasSize(1);
        assertThat(check("{\"timing_ms\": {\"about\": 100}}", r)).hasSize(1);
    }

    private static List<String> exclusive(String fetchA, String fetchB, boolean oneEmpty) {
        String spec = "{\"exclusive_claim\": {\"job_id\": \"j1\", \"fetches\": [" + fetchA + ", " + fetchB
                + "], \"exactly_one_has_job\": true" + (oneEmpty ? ", \"exactly_one_empty\": true" : "") + "}}";
        return OjsAssertions.check(json(spec), null, json("{}"));
    }

    @Test
    void exclusiveClaimIsEvaluated() {
        assertThat(exclusive("[{\"id\": \"j1\"}]", "[]", true)).isEmpty();
        assertThat(exclusive("[]", "[{\"id\": \"j1\"}]", true)).isEmpty();
        assertThat(exclusive("[{\"id\": \"j1\"}]", "[{\"id\": \"j1\"}]", true)).anySatisfy(f -> assertThat(f).contains("claimed more than once"));
        assertThat(exclusive("[{\"id\": \"j1\"}]", "[{\"id\": \"j1\"}]", false)).hasSize(1);
        assertThat(exclusive("[]", "[]", true)).hasSize(2);
        assertThat(exclusive("[{\"id\": \"j1\"}]", "[{\"id\": \"j2\"}]", true)).singleElement().asString().contains("exactly one fetch should be empty");
        assertThat(exclusive("[{\"id\": \"j1\"}]", "[{\"id\": \"j2\"}]", false)).isEmpty();
        assertThat(exclusive("[{\"id\": \"j1\"}]", "\"{{steps.step-3.response.body.jobs}}\"", true)).singleElement().asString()
                .contains("not a jobs array");
        assertThat(OjsAssertions.check(json("{\"exclusive_claim\": {\"job_id\": \"{{steps.x.response.body.id}}\","
                + " \"fetches\": [[], []]}}"), null, json("{}"))).hasSize(1);
    }

    @Test
    void equalityComparesValuesInTheContext() {
        JsonNode context = json("{\"steps\": {\"a\": {\"response\": {\"body\": {\"job\": {\"attempt\": 0}}}},"
                + " \"b\": {\"response\": {\"body\": {\"job\": {\"attempt\": 0}}}}}}");
        JsonNode same = json("{\"equality\": {\"$.steps.a.response.body\": {\"job\": {\"attempt\": 0}}}}");
        assertThat(OjsAssertions.check(same, null, context)).isEmpty();
        JsonNode other = json("{\"equality\": {\"$.steps.a.response.body\": {\"job\": {\"attempt\": 1}}}}");
        assertThat(OjsAssertions.check(other, null, context)).hasSize(1);
        JsonNode missing = json("{\"equality\": {\"$.steps.c.response.body\": {\"job\": {\"attempt\": 0}}}}");
        assertThat(OjsAssertions.check(missing, null, context)).hasSize(1);
    }

    @Test
    void unknownAssertionsAndResponseChecksWithoutAResponseFail() {
        OjsResponse r = response(200, null, "{}");
        assertThat(check("{\"body_raw\": \"{}\"}", r)).singleElement().asString().contains("unsupported assertion 'body_raw'");
        assertThat(OjsAssertions.check(json("{\"status\": 200}"), null, json("{}"))).singleElement().asString()
                .contains("no response");
        assertThat(check("{\"headers\": {}}", r)).hasSize(1);
    }

    /**
     * Every matcher of the vendored level 0 and 1 cases rejects at least one of a few plain values:
     * none of them can pass whatever the server answers. Matchers holding a template are left out
     * (they become literals at run time, and literals reject other values).
     */
    @Test
    void noMatcherOfTheSuitesIsVacuous() {
        List<String> probes = List.of(ABSENT, "null", "\"\"", "\"x\"", "0", "-1", "1.5", "1000000", "true", "false",
                "[]", "[1]", "{}", "{\"a\": 1}");
        Set<JsonNode> matchers = new LinkedHashSet<>();
        for (OjsCase c : OjsCase.load(Path.of("../conformance/ojs/suites"))) {
            for (JsonNode step : c.steps()) {
                collectMatchers(step.path("assertions"), matchers);
            }
        }
        assertThat(matchers).as("matchers found in the suites").hasSizeGreaterThan(40);
        List<String> vacuous = new ArrayList<>();
        for (JsonNode matcher : matchers) {
            boolean rejectsOne = probes.stream().anyMatch(p -> !OjsMatcher.matches(value(p), matcher));
            if (!rejectsOne) {
                vacuous.add(matcher.toString());
            }
        }
        assertThat(vacuous).as("matchers that accept every probe").isEmpty();
    }

    private static void collectMatchers(JsonNode assertions, Set<JsonNode> into) {
        if (assertions.has("status")) {
            into.add(assertions.get("status"));
        }
        JsonNode body = assertions.get("body");
        if (body != null) {
            collectBody(body, into);
        }
        JsonNode headers = assertions.get("headers");
        if (headers != null) {
            headers.forEach(into::add);
        }
        into.removeIf(m -> !OjsTemplates.unresolved(m).isEmpty());
    }

    private static void collectBody(JsonNode body, Set<JsonNode> into) {
        for (Map.Entry<String, JsonNode> entry : body.properties()) {
            if (entry.getKey().equals("$or")) {
                entry.getValue().forEach(alternative -> collectBody(alternative, into));
            } else {
                into.add(entry.getValue());
            }
        }
    }
}
