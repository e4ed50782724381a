package io.blackboard.ojs;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The JSONPath subset of the OJS conformance DSL: {@code $}, {@code .name}, {@code ['name']},
 * {@code [n]}, {@code [*]} (collects from every element, skipping those that do not resolve, and
 * flattens) and {@code [?(@.a.b=='v')]} (the first element whose field equals the literal, quoted
 * or not, compared as text). A path that does not resolve answers {@code null}; a JSON null that
 * is there answers a null node, so "absent" and "null" stay apart.
 */
final class JsonPathLite {

    private sealed interface Segment {
    }

    private record Field(String name) implements Segment {
    }

    private record Index(int index) implements Segment {
    }

    private record Wildcard() implements Segment {
    }

    private record Filter(List<String> fields, String literal) implements Segment {
    }

    private JsonPathLite() {
    }

    /** The node at {@code path} in {@code root}, or null when nothing is there. */
    static JsonNode resolve(JsonNode root, String path) {
        List<Segment> segments = parse(path);
        if (root == null || root.isMissingNode()) {
            return null;
        }
        List<JsonNode> current = List.of(root);
        boolean many = false;
        for (Segment segment : segments) {
            List<JsonNode> next = new ArrayList<>();
            for (JsonNode node : current) {
                step(node, segment, next);
            }
            many |= segment instanceof Wildcard;
            current = next;
            if (!many && current.isEmpty()) {
                return null;
            }
        }
        if (!many) {
            return current.getFirst();
        }
        return JsonNodeFactory.instance.arrayNode().addAll(current);
    }

    private static void step(JsonNode node, Segment segment, List<JsonNode> into) {
        switch (segment) {
            case Field f -> add(node.isObject() ? node.get(f.name()) : null, into);
            case Index i -> add(node.isArray() ? node.get(i.index()) : null, into);
            case Wildcard w -> {
                if (node.isArray()) {
                    node.forEach(into::add);
                }
            }
            case Filter f -> add(firstMatch(node, f), into);
        }
    }

    private static void add(JsonNode node, List<JsonNode> into) {
        if (node != null && !node.isMissingNode()) {
            into.add(node);
        }
    }

    private static JsonNode firstMatch(JsonNode array, Filter filter) {
        if (!array.isArray()) {
            return null;
        }
        for (JsonNode element : array) {
            JsonNode value = element;
            for (String field : filter.fields()) {
                value = value == null || !value.isObject() ? null : value.get(field);
            }
            if (value != null && !value.isMissingNode() && text(value).equals(filter.literal())) {
                return element;
            }
        }
        return null;
    }

    /**
     * A value as text, the way the reference runner prints values (Go's {@code %v}) for
     * {@code contains:}, filters and templates: strings as they are, whole numbers without
     * decimals, null as {@code <nil>}; objects and arrays as compact JSON.
     */
    static String text(JsonNode node) {
        if (node.isString()) {
            return node.stringValue();
        }
        if (node.isNumber()) {
            BigDecimal value = node.decimalValue().stripTrailingZeros();
            return value.scale() < 0 ? value.toBigInteger().toString() : value.toPlainString();
        }
        if (node.isNull()) {
            return "<nil>";
        }
        return node.toString();
    }

    private static List<Segment> parse(String path) {
        if (path == null || !path.startsWith("$")) {
            throw new IllegalArgumentException("a JSONPath starts with $: " + path);
        }
        List<Segment> segments = new ArrayList<>();
        int i = 1;
        while (i < path.length()) {
            char c = path.charAt(i);
            if (c == '.') {
                int end = nameEnd(path, i + 1);
                if (end == i + 1) {
                    throw new IllegalArgumentException("empty field name at " + i + " in " + path);
                }
                segments.add(new Field(path.substring(i + 1, end)));
                i = end;
            } else if (c == '[') {
                i = bracket(path, i, segments);
            } else {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + i + " in " + path);
            }
        }
        return segments;
    }

    private static int nameEnd(String path, int from) {
        int end = from;
        while (end < path.length() && path.charAt(end) != '.' && path.charAt(end) != '[') {
            end++;
        }
        return end;
    }

    /** Parses the bracket at {@code open}; answers the index after it. */
    private static int bracket(String path, int open, List<Segment> segments) {
        if (path.startsWith("[?(", open)) {
            int close = path.indexOf(")]", open);
            require(close > 0, "unclosed filter", path);
            segments.add(filter(path.substring(open + 3, close), path));
            return close + 2;
        }
        int close = path.indexOf(']', open);
        require(close > 0, "unclosed [", path);
        String inside = path.substring(open + 1, close).trim();
        if (inside.equals("*")) {
            segments.add(new Wildcard());
        } else if (inside.length() >= 2 && (inside.startsWith("'") && inside.endsWith("'")
                || inside.startsWith("\"") && inside.endsWith("\""))) {
            segments.add(new Field(inside.substring(1, inside.length() - 1)));
        } else {
            require(inside.matches("\\d+"), "an index is a non-negative integer, not [" + inside + "]", path);
            segments.add(new Index(Integer.parseInt(inside)));
        }
        return close + 1;
    }

    private static Filter filter(String expression, String path) {
        int eq = expression.indexOf("==");
        require(eq > 0 && expression.startsWith("@."), "a filter is @.field==value (the only operator is ==)", path);
        String left = expression.substring(2, eq).trim();
        String right = expression.substring(eq + 2).trim();
        require(!left.isEmpty() && !right.isEmpty(), "a filter is @.field==value", path);
        if (right.length() >= 2 && (right.startsWith("'") && right.endsWith("'")
                || right.startsWith("\"") && right.endsWith("\""))) {
            right = right.substring(1, right.length() - 1);
        }
        return new Filter(List.of(left.split("\\.")), right);
    }

    private static void require(boolean condition, String problem, String path) {
        if (!condition) {
            throw new IllegalArgumentException(problem + ": " + path);
        }
    }
}
