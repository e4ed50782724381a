package io.blackboard.platform.web;

import io.blackboard.platform.web.OpenApiContract.Operation;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The requests of {@link ContractTest}, built from an operation's schemas with a seeded
 * {@link Random}: valid ones, and invalid ones mutated from them. A case names the rows it uses
 * ({@code {{worker}}}, {@code {{polled}}}) rather than their ids, so it can be sent again, smaller,
 * after the database was seeded afresh.
 */
final class ContractCases {

    /** Who calls: each role's token of the tests' configuration, the worker's own, a bogus one, none. */
    enum Role {
        NONE(null), BOGUS("bogus-token"), WORKER("test-worker"), ENGINE("test-engine"), OPERATOR("test-operator"),
        OJS_WORKER("test-ojs-worker"), ALL("test-all"), OWN_WORKER("{{workerToken}}");

        final String token;

        Role(String token) {
            this.token = token;
        }
    }

    /** A body: a JSON tree, or text that may not be JSON at all. */
    sealed interface Body permits Json, Raw {
        String text();
    }

    record Json(JsonNode tree) implements Body {
        public String text() {
            return JSON.writeValueAsString(tree);
        }
    }

    record Raw(String text) implements Body {
    }

    record Param(String name, String value) {
    }

    /**
     * One request. {@code invalid}: the document itself calls its body wrong (malformed, missing
     * though required, in a media type it does not accept), so it must not succeed; its parameters
     * and JSON body are checked against their schemas when it is judged.
     */
    record Case(String kind, Role role, Map<String, String> path, List<Param> query, String contentType, Body body,
            boolean invalid) {

        Case with(String kind, Map<String, String> path, List<Param> query, String contentType, Body body,
                boolean invalid) {
            return new Case(kind, role, path, query, contentType, body, invalid);
        }
    }

    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** A long poll of a valid request waits at most this long, so a run stays bounded (LongPollTest covers waiting). */
    private static final int MAX_WAIT_MS = 500;
    private static final List<String> HOSTILE = List.of("", " ", "\u0000", "a\u0000b", "null", "NaN", "-1",
            "9".repeat(40), "' OR '1'='1", "'; drop table job; --", "1) or pg_sleep(3) is null --",
            "../../../../etc/passwd", "..", "%00", "%zz", "{{", "${jndi:ldap://127.0.0.1/a}",
            "<script>alert(1)</script>", "\uD83D\uDE00\uD83D\uDCA5", "\u202Eevil", "e\u0301\u0301\u0301", "\uFEFFbom",
            "\uFFFF", "line\r\nX-Injected: 1", "x".repeat(100_000), "\u00FC".repeat(5_000),
            "00000000-0000-0000-0000-000000000000", "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c5");
    private static final List<String> MALFORMED = List.of("", "{\"a\": [1, 2", "nul", "{'a': 1}", "{\"a\": 1,}",
            "[", "\"\\ud800\"", "{\"name\": \"\\ud800\", \"workerId\": \"\\u0000\"}", "1e999999",
            "{\"a\": 1}{\"b\": 2}", "\u0000", "{\"a\": 01}");
    private static final String BOUNDARY = "contract-boundary";

    private final OpenApiContract contract;

    ContractCases(OpenApiContract contract) {
        this.contract = contract;
    }

    // ---- valid requests ----

    Case valid(Operation operation, Random random, Role role) {
        Map<String, String> path = new LinkedHashMap<>();
        for (JsonNode p : operation.parameters("path")) {
            path.put(p.path("name").asString(), idFor(operation.path(), p.path("name").asString(), random));
        }
        List<Param> query = new ArrayList<>();
        for (JsonNode p : operation.parameters("query")) {
            if (p.path("required").asBoolean(false) || random.nextBoolean()) {
                JsonNode value = value(p.path("schema"), p.path("name").asString(), random, 0);
                if (value.isArray()) {
                    value.forEach(item -> query.add(new Param(p.path("name").asString(), scalar(item))));
                } else if (!value.isNull()) {
                    query.add(new Param(p.path("name").asString(), scalar(value)));
                }
            }
        }
        Body body = null;
        String contentType = null;
        if (operation.requestMediaTypes().contains("application/json")
                && (operation.bodyRequired() || random.nextInt(4) > 0)) {
            body = new Json(value(operation.jsonRequestSchema(), "", random, 0));
            contentType = "application/json";
        }
        return new Case("valid", role, path, query, contentType, body, false);
    }

    /** A value the schema allows; ids name the seeded rows where the name says which. */
    private JsonNode value(JsonNode schema, String name, Random random, int depth) {
        schema = contract.resolve(schema);
        if (schema == null || schema.isMissingNode()) {
            return NODES.objectNode();
        }
        for (String choice : List.of("oneOf", "anyOf")) {
            if (schema.has(choice)) {
                return value(schema.get(choice).get(random.nextInt(schema.get(choice).size())), name, random, depth);
            }
        }
        if (schema.has("enum")) {
            List<JsonNode> values = new ArrayList<>();
            schema.get("enum").forEach(values::add);
            return values.get(random.nextInt(values.size()));
        }
        if (schema.has("default") && random.nextInt(5) == 0) {
            return schema.get("default");
        }
        return switch (type(schema)) {
            case "object" -> object(schema, random, depth);
            case "array" -> {
                ArrayNode array = NODES.arrayNode();
                int min = schema.path("minItems").asInt(0);
                int count = min + random.nextInt(Math.max(1, Math.min(schema.path("maxItems").asInt(3), min + 3) - min + 1));
                for (int i = 0; i < count && depth < 4; i++) {
                    array.add(value(schema.path("items"), singular(name), random, depth + 1));
                }
                yield array;
            }
            case "integer" -> NODES.numberNode(integer(schema, name, random));
            case "number" -> {
                double min = schema.path("minimum").asDouble(-1000), max = schema.path("maximum").asDouble(1000);
                yield NODES.numberNode(min + (max - min) * random.nextDouble());
            }
            case "boolean" -> NODES.booleanNode(random.nextBoolean());
            case "null" -> NODES.nullNode();
            default -> NODES.stringNode(string(schema, name, random));
        };
    }

    private ObjectNode object(JsonNode schema, Random random, int depth) {
        ObjectNode object = NODES.objectNode();
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(r -> required.add(r.asString()));
        schema.path("properties").properties().forEach(p -> {
            if (required.contains(p.getKey()) || (depth < 3 && random.nextBoolean())) {
                object.set(p.getKey(), value(p.getValue(), p.getKey(), random, depth + 1));
            }
        });
        JsonNode additional = schema.path("additionalProperties");
        if (additional.isObject() && additional.has("type") && !schema.has("properties")) {
            for (int i = random.nextInt(3); i > 0; i--) {
                object.set("k" + random.nextInt(100), value(additional, "", random, depth + 1));
            }
        }
        return object;
    }

    private static long integer(JsonNode schema, String name, Random random) {
        long min = schema.path("minimum").asLong(-1000), max = schema.path("maximum").asLong(1000);
        if (name.equals("waitMs")) {
            max = Math.min(max, MAX_WAIT_MS);
        }
        return switch (random.nextInt(4)) {
            case 0 -> min;
            case 1 -> max;
            default -> min + (long) (random.nextDouble() * Math.min(1000, max - min));
        };
    }

    private String string(JsonNode schema, String name, Random random) {
        String format = schema.path("format").asString("");
        if (format.equals("uuid")) {
            return idFor("", name, random);
        }
        if (format.equals("date-time")) {
            return Instant.parse("2026-01-01T00:00:00Z").plus(random.nextInt(10_000), ChronoUnit.HOURS).toString();
        }
        int min = schema.path("minLength").asInt(0), max = schema.path("maxLength").asInt(40);
        int length = min + random.nextInt(Math.max(1, Math.min(max, min + 12) - min + 1));
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append("abcdefghijklmnopqrstuvwxyz0123456789-_".charAt(random.nextInt(38)));
        }
        return text.toString();
    }

    /** The seeded row a parameter or field of that name means, and now and then an id nothing has. */
    private static String idFor(String path, String name, Random random) {
        if (random.nextInt(8) == 0) {
            return new UUID(random.nextLong(), random.nextLong()).toString();
        }
        String owner = name.equals("id") ? path.replaceAll("^.*/([^/]+)/\\{id}.*$", "$1") : name;
        String key = owner.toLowerCase(Locale.ROOT).replace("-", "");
        if (key.contains("worker")) {
            return "{{worker}}";
        }
        if (key.contains("functionblock")) {
            return "{{block}}";
        }
        if (key.contains("deadletter")) {
            return "{{parked}}";
        }
        if (key.contains("job")) {
            return List.of("{{polled}}", "{{pending}}", "{{parked}}").get(random.nextInt(3));
        }
        return new UUID(random.nextLong(), random.nextLong()).toString();
    }

    private static String type(JsonNode schema) {
        JsonNode type = schema.path("type");
        if (type.isArray()) {
            for (JsonNode t : type) {
                if (!t.asString().equals("null")) {
                    return t.asString();
                }
            }
            return "null";
        }
        if (type.isString()) {
            return type.asString();
        }
        return schema.has("properties") ? "object" : "string";
    }

    private static String singular(String name) {
        return name.endsWith("s") ? name.substring(0, name.length() - 1) : name;
    }

    private static String scalar(JsonNode value) {
        return value.isString() ? value.asString() : value.toString();
    }

    // ---- invalid requests, mutated from valid ones ----

    /** One mutation of a valid case, chosen among those that apply to the operation. */
    Case mutate(Case valid, Operation operation, Random random) {
        List<String> kinds = new ArrayList<>(List.of("hostile query", "wrong query type", "content type"));
        if (!valid.path().isEmpty()) {
            kinds.addAll(List.of("hostile id", "hostile id"));
        }
        if (valid.body() instanceof Json) {
            kinds.addAll(List.of("wrong type", "missing field", "extra field", "out of range", "hostile string",
                    "deep nesting", "malformed", "wrong type", "hostile string", "out of range"));
            if (random.nextInt(6) == 0) {
                kinds.add("oversize");
            }
        } else if (!operation.requestMediaTypes().isEmpty()) {
            kinds.add("missing body");
        }
        String kind = kinds.get(random.nextInt(kinds.size()));
        return switch (kind) {
            case "hostile id" -> hostileId(valid, random);
            case "hostile query" -> hostileQuery(valid, operation, random);
            case "wrong query type" -> wrongQuery(valid, operation, random);
            case "content type" -> contentType(valid, operation, random);
            case "missing body" -> valid.with(kind, valid.path(), valid.query(), null, null, operation.bodyRequired());
            case "malformed" -> {
                String text = MALFORMED.get(random.nextInt(MALFORMED.size()));
                yield valid.with(kind, valid.path(), valid.query(), "application/json", new Raw(text),
                        !text.isEmpty() || operation.bodyRequired());
            }
            case "deep nesting" -> {
                int depth = List.of(300, 1500, 5000).get(random.nextInt(3));
                String deep = random.nextBoolean() ? "[".repeat(depth) + "]".repeat(depth)
                        : "{\"a\": ".repeat(depth) + "1" + "}".repeat(depth);
                yield valid.with(kind, valid.path(), valid.query(), "application/json",
                        new Raw(withMember(valid.body().text(), "\"x\": " + deep)), false);
            }
            case "oversize" -> valid.with(kind, valid.path(), valid.query(), "application/json",
                    new Raw(withMember(valid.body().text(), "\"x\": [" + String.join(",",
                            Collections.nCopies(2_300_000 / 8, "\"abcde\"")) + "]")), false);
            default -> bodyMutation(kind, valid, operation.bodyRequired(), random);
        };
    }

    private Case hostileId(Case valid, Random random) {
        Map<String, String> path = new LinkedHashMap<>(valid.path());
        String name = path.keySet().iterator().next();
        List<String> ids = new ArrayList<>(HOSTILE);
        ids.addAll(List.of("not-a-uuid", "{{worker}}", "{{block}}", "{{pending}}", "{{parked}}",
                new UUID(random.nextLong(), random.nextLong()).toString().toUpperCase(Locale.ROOT),
                "{{worker}}/../{{block}}"));
        String id = ids.get(random.nextInt(ids.size()));
        path.put(name, id);
        return valid.with("hostile id", path, valid.query(), valid.contentType(), valid.body(), valid.invalid());
    }

    private static boolean isUuid(String id) {
        return id.matches("\\{\\{\\w+}}") || id.matches("(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    }

    private Case hostileQuery(Case valid, Operation operation, Random random) {
        List<Param> query = new ArrayList<>(valid.query());
        List<JsonNode> params = operation.parameters("query");
        String name = params.isEmpty() || random.nextInt(5) == 0 ? "unknown" + random.nextInt(10)
                : params.get(random.nextInt(params.size())).path("name").asString();
        String value = HOSTILE.get(random.nextInt(HOSTILE.size()));
        query.removeIf(p -> p.name().equals(name) && random.nextBoolean());
        query.add(new Param(name, value));
        return valid.with("hostile query", valid.path(), query, valid.contentType(), valid.body(), valid.invalid());
    }

    /** Whether a path or query value of the case breaks its parameter's schema: the document calls it invalid. */
    boolean parametersBreak(Operation operation, Case c) {
        for (JsonNode p : operation.parameters("path")) {
            String value = c.path().get(p.path("name").asString());
            if (value != null && breaks(p.path("schema"), value)) {
                return true;
            }
        }
        for (JsonNode p : operation.parameters("query")) {
            boolean array = type(contract.resolve(p.path("schema"))).equals("array");
            boolean required = p.path("required").asBoolean(false);
            for (Param param : c.query()) {
                if (param.name().equals(p.path("name").asString())) {
                    // an empty value of an optional parameter is its absence, as servers read it; so
                    // is a blank one of a parameter converted from text (a number, a uuid)
                    boolean absent = !required && (param.value().isEmpty()
                            || param.value().isBlank() && converted(contract.resolve(p.path("schema"))));
                    if (!absent && breaks(p.path("schema"), param.value())) {
                        return true;
                    }
                    if (!array) {
                        break; // a parameter that is no list is read from its first occurrence
                    }
                }
            }
        }
        return false;
    }

    /** Whether the server converts the parameter's text to another type (where blank reads as absent). */
    private static boolean converted(JsonNode schema) {
        return !type(schema).equals("string") || schema.has("format");
    }

    /** Whether a value certainly breaks its parameter's schema (type, range, length, enum, uuid). */
    private boolean breaks(JsonNode schema, String value) {
        schema = contract.resolve(schema);
        String type = type(schema);
        if (type.equals("integer")) {
            try {
                long number = Long.parseLong(value);
                return number < schema.path("minimum").asLong(Long.MIN_VALUE)
                        || number > schema.path("maximum").asLong(Long.MAX_VALUE);
            } catch (NumberFormatException e) {
                return true;
            }
        }
        if (type.equals("boolean")) {
            return !value.equals("true") && !value.equals("false");
        }
        if (type.equals("array")) {
            return breaks(schema.path("items"), value);
        }
        if (schema.has("enum")) {
            for (JsonNode allowed : schema.get("enum")) {
                if (allowed.asString().equals(value)) {
                    return false;
                }
            }
            return true;
        }
        if (schema.path("format").asString("").equals("uuid") && !isUuid(value)) {
            return true;
        }
        int length = value.codePointCount(0, value.length());
        return length > schema.path("maxLength").asInt(Integer.MAX_VALUE) || length < schema.path("minLength").asInt(0);
    }

    private Case wrongQuery(Case valid, Operation operation, Random random) {
        List<JsonNode> params = operation.parameters("query");
        if (params.isEmpty()) {
            return hostileQuery(valid, operation, random);
        }
        JsonNode param = params.get(random.nextInt(params.size()));
        String name = param.path("name").asString();
        JsonNode schema = contract.resolve(param.path("schema"));
        List<String> values = new ArrayList<>(List.of("abc", "1.5", "true", "[]", "{}", "-0"));
        if (schema.has("maximum")) {
            values.add(String.valueOf(schema.get("maximum").asLong() + 1));
            values.add("99999999999999999999999");
        }
        if (schema.has("minimum")) {
            values.add(String.valueOf(schema.get("minimum").asLong() - 1));
        }
        String value = values.get(random.nextInt(values.size()));
        List<Param> query = new ArrayList<>(valid.query());
        query.removeIf(p -> p.name().equals(name));
        query.add(new Param(name, value));
        if (random.nextInt(4) == 0) {
            query.add(new Param(name, value)); // repeated
        }
        return valid.with("wrong query type", valid.path(), query, valid.contentType(), valid.body(),
                valid.invalid());
    }

    private Case contentType(Case valid, Operation operation, Random random) {
        String json = valid.body() == null ? "{}" : valid.body().text();
        List<Map.Entry<String, String>> choices = List.of(
                Map.entry("text/plain", json),
                Map.entry("application/xml", "<request><name>x</name></request>"),
                Map.entry("multipart/form-data; boundary=" + BOUNDARY, "--" + BOUNDARY
                        + "\r\nContent-Disposition: form-data; name=\"body\"\r\nContent-Type: application/json\r\n\r\n"
                        + json + "\r\n--" + BOUNDARY + "--\r\n"),
                Map.entry("multipart/form-data; boundary=" + BOUNDARY, "not multipart at all"),
                Map.entry("multipart/form-data", json),
                Map.entry("application/x-www-form-urlencoded", "name=x&workerId=%7B%7Bworker%7D%7D&limit=1"),
                Map.entry("", json),
                Map.entry("garbage;;", json),
                Map.entry("application/octet-stream", json));
        Map.Entry<String, String> choice = choices.get(random.nextInt(choices.size()));
        String mediaType = choice.getKey().replaceAll(";.*", "");
        boolean invalid = !operation.requestMediaTypes().isEmpty() && !operation.requestMediaTypes().contains(mediaType);
        return valid.with("content type", valid.path(), valid.query(), choice.getKey(), new Raw(choice.getValue()),
                invalid);
    }

    private Case bodyMutation(String kind, Case valid, boolean bodyRequired, Random random) {
        JsonNode tree = ((Json) valid.body()).tree().deepCopy();
        ObjectNode target = anObject(tree, random);
        if (target == null || (target.isEmpty() && !kind.equals("extra field"))) {
            JsonNode replacement = List.<JsonNode>of(NODES.numberNode(42), NODES.stringNode("x"), NODES.nullNode(),
                    NODES.booleanNode(true), tree.isArray() ? NODES.objectNode() : NODES.arrayNode())
                    .get(random.nextInt(5));
            // JSON null for an optional body is no body: valid (the document allows null there)
            return valid.with(kind, valid.path(), valid.query(), "application/json", new Json(replacement),
                    bodyRequired || !replacement.isNull());
        }
        List<String> names = new ArrayList<>(target.propertyNames());
        String name = names.isEmpty() ? "x" : names.get(random.nextInt(names.size()));
        switch (kind) {
            case "wrong type" -> target.set(name, otherType(target.get(name), random));
            case "missing field" -> target.remove(name);
            case "extra field" -> target.set(List.of("status", "attempt", "id", "__proto__", "x" + random.nextInt(99))
                    .get(random.nextInt(5)), random.nextBoolean() ? NODES.stringNode("PUSHED") : NODES.numberNode(9));
            case "out of range" -> target.set(name, outOfRange(target.get(name), random));
            default -> target.set(name, NODES.stringNode(HOSTILE.get(random.nextInt(HOSTILE.size()))));
        }
        return valid.with(kind, valid.path(), valid.query(), "application/json", new Json(tree), false);
    }

    /** An object of the tree (the root, or one inside it) to mutate. */
    private static ObjectNode anObject(JsonNode tree, Random random) {
        List<ObjectNode> objects = new ArrayList<>();
        collectObjects(tree, objects, 0);
        return objects.isEmpty() ? null : objects.get(random.nextInt(objects.size()));
    }

    private static void collectObjects(JsonNode node, List<ObjectNode> objects, int depth) {
        if (depth > 3) {
            return;
        }
        if (node instanceof ObjectNode object) {
            objects.add(object);
        }
        node.forEach(child -> collectObjects(child, objects, depth + 1));
    }

    private static JsonNode otherType(JsonNode value, Random random) {
        List<JsonNode> others = new ArrayList<>(List.of(NODES.numberNode(123), NODES.stringNode("text"),
                NODES.booleanNode(true), NODES.nullNode(), NODES.arrayNode().add(1), NODES.objectNode().put("a", 1),
                NODES.numberNode(1.5)));
        others.removeIf(other -> value != null && other.getNodeType() == value.getNodeType());
        return others.get(random.nextInt(others.size()));
    }

    private static JsonNode outOfRange(JsonNode value, Random random) {
        List<JsonNode> values = List.of(NODES.numberNode(-1), NODES.numberNode(0),
                NODES.numberNode(Integer.MAX_VALUE + 1L), NODES.numberNode(new BigInteger("9".repeat(30))),
                NODES.numberNode(new BigDecimal("1e400")), NODES.numberNode(-2147483649L), NODES.numberNode(1e308),
                NODES.stringNode("y".repeat(10_001)));
        return values.get(random.nextInt(values.size()));
    }

    /** The JSON text with one more member in its first object (or element in its first array). */
    private static String withMember(String json, String member) {
        int at = json.indexOf('{');
        if (at < 0 || (json.indexOf('[') >= 0 && json.indexOf('[') < at)) {
            int array = json.indexOf('[');
            if (array < 0) {
                return "{" + member + "}";
            }
            String element = member.substring(member.indexOf(':') + 1).trim();
            return json.substring(0, array + 1) + element + (json.charAt(array + 1) == ']' ? "" : ", ")
                    + json.substring(array + 1);
        }
        return json.substring(0, at + 1) + member + (json.charAt(at + 1) == '}' ? "" : ", ") + json.substring(at + 1);
    }

    // ---- shrinking ----

    /** Cases a little simpler than this one, the ones that remove most first. */
    List<Case> simpler(Case c) {
        List<Case> simpler = new ArrayList<>();
        for (int i = 0; i < c.query().size(); i++) {
            List<Param> query = new ArrayList<>(c.query());
            query.remove(i);
            simpler.add(c.with(c.kind(), c.path(), query, c.contentType(), c.body(), c.invalid()));
        }
        for (int i = 0; i < c.query().size(); i++) {
            String value = c.query().get(i).value();
            if (value.length() > 1) {
                List<Param> query = new ArrayList<>(c.query());
                query.set(i, new Param(c.query().get(i).name(), value.substring(0, value.length() / 2)));
                simpler.add(c.with(c.kind(), c.path(), query, c.contentType(), c.body(), c.invalid()));
            }
        }
        c.path().forEach((name, value) -> {
            if (value.length() > 1 && !value.startsWith("{{")) {
                Map<String, String> path = new LinkedHashMap<>(c.path());
                path.put(name, value.substring(0, value.length() / 2));
                simpler.add(c.with(c.kind(), path, c.query(), c.contentType(), c.body(), c.invalid()));
            }
        });
        if (c.body() instanceof Raw raw && raw.text().length() > 2) {
            simpler.add(c.with(c.kind(), c.path(), c.query(), c.contentType(),
                    new Raw(raw.text().substring(0, raw.text().length() / 2)), c.invalid()));
        }
        if (c.body() instanceof Raw raw) {
            try {
                simpler.add(c.with(c.kind(), c.path(), c.query(), c.contentType(), new Json(JSON.readTree(raw.text())),
                        c.invalid()));
            } catch (RuntimeException notJson) {
                // stays raw
            }
        }
        if (c.body() instanceof Json json) {
            for (JsonNode smaller : smallerTrees(json.tree())) {
                simpler.add(c.with(c.kind(), c.path(), c.query(), c.contentType(), new Json(smaller), c.invalid()));
            }
        }
        return simpler;
    }

    /** The tree with one member or element removed, or one value made smaller. */
    private static List<JsonNode> smallerTrees(JsonNode tree) {
        List<JsonNode> smaller = new ArrayList<>();
        List<String> pointers = new ArrayList<>();
        collectPointers(tree, "", pointers);
        for (String pointer : pointers) {
            JsonNode copy = tree.deepCopy();
            String parentPointer = pointer.substring(0, pointer.lastIndexOf('/'));
            String last = pointer.substring(pointer.lastIndexOf('/') + 1).replace("~1", "/").replace("~0", "~");
            JsonNode parent = parentPointer.isEmpty() ? copy : copy.at(parentPointer);
            JsonNode node = parent instanceof ObjectNode o ? o.get(last) : parent.get(Integer.parseInt(last));
            if (parent instanceof ObjectNode object) {
                object.remove(last);
            } else {
                ((ArrayNode) parent).remove(Integer.parseInt(last));
            }
            smaller.add(copy);
            JsonNode reduced = reduced(node);
            if (reduced != null) {
                JsonNode copy2 = tree.deepCopy();
                JsonNode parent2 = parentPointer.isEmpty() ? copy2 : copy2.at(parentPointer);
                if (parent2 instanceof ObjectNode object) {
                    object.set(last, reduced);
                } else {
                    ((ArrayNode) parent2).set(Integer.parseInt(last), reduced);
                }
                smaller.add(copy2);
            }
        }
        return smaller;
    }

    private static JsonNode reduced(JsonNode node) {
        if (node.isString() && node.asString().length() > 1) {
            return NODES.stringNode(node.asString().substring(0, node.asString().length() / 2));
        }
        if (node.isArray() && node.size() > 1) {
            ArrayNode half = NODES.arrayNode();
            for (int i = 0; i < node.size() / 2; i++) {
                half.add(node.get(i));
            }
            return half;
        }
        if (node.isObject() && node.size() > 0) {
            return NODES.objectNode();
        }
        return null;
    }

    private static void collectPointers(JsonNode node, String at, List<String> pointers) {
        if (pointers.size() > 60) {
            return;
        }
        if (node.isObject()) {
            for (Iterator<String> names = node.propertyNames().iterator(); names.hasNext(); ) {
                String name = names.next();
                String pointer = at + "/" + name.replace("~", "~0").replace("/", "~1");
                pointers.add(pointer);
                collectPointers(node.get(name), pointer, pointers);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < Math.min(node.size(), 4); i++) {
                pointers.add(at + "/" + i);
                collectPointers(node.get(i), at + "/" + i, pointers);
            }
        }
    }
}
