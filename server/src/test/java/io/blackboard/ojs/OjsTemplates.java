package io.blackboard.ojs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Template references, {@code {{steps.<id>.response.body.<path>}}}: the expression is a path
 * (dots and {@code [n]}) into the case's context, {@code {"steps": {"<id>": {"response":
 * {"status", "headers", "body"}}}}}. Inside a longer string a value is written as text (strings as
 * they are, whole numbers without decimals, objects and arrays as JSON); a string that is exactly
 * one template becomes the value itself, so an array stays an array and a number a number. A
 * template that does not resolve (no such step, no such field, or JSON null) is left as written,
 * as the reference runner does; {@link #unresolved} finds those.
 */
final class OjsTemplates {

    private static final Pattern TEMPLATE = Pattern.compile("\\{\\{\\s*([^{}]+?)\\s*}}");

    private OjsTemplates() {
    }

    /** A copy of {@code value} with every template in its strings (and keys) resolved. */
    static JsonNode resolve(JsonNode value, JsonNode context) {
        if (value == null) {
            return null;
        }
        if (value.isString()) {
            return resolveString(value.stringValue(), context);
        }
        if (value.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            value.forEach(element -> copy.add(resolve(element, context)));
            return copy;
        }
        if (value.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> entry : value.properties()) {
                copy.set(interpolate(entry.getKey(), context), resolve(entry.getValue(), context));
            }
            return copy;
        }
        return value;
    }

    /** The string with each template that resolves replaced by its value as text. */
    static String interpolate(String text, JsonNode context) {
        Matcher m = TEMPLATE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            JsonNode found = lookup(m.group(1), context);
            m.appendReplacement(out, Matcher.quoteReplacement(found == null ? m.group() : JsonPathLite.text(found)));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The templates still in {@code value}'s strings and keys, as written. */
    static List<String> unresolved(JsonNode value) {
        List<String> found = new ArrayList<>();
        collect(value, found);
        return found;
    }

    private static void collect(JsonNode value, List<String> found) {
        if (value == null) {
            return;
        }
        if (value.isString()) {
            Matcher m = TEMPLATE.matcher(value.stringValue());
            while (m.find()) {
                found.add(m.group());
            }
        }
        if (value.isObject()) {
            value.propertyNames().forEach(key -> collect(JsonNodeFactory.instance.stringNode(key), found));
        }
        if (value.isContainer()) {
            value.forEach(element -> collect(element, found));
        }
    }

    private static JsonNode resolveString(String text, JsonNode context) {
        Matcher whole = TEMPLATE.matcher(text);
        if (whole.matches()) {
            JsonNode found = lookup(whole.group(1), context);
            return found == null ? JsonNodeFactory.instance.stringNode(text) : found.deepCopy();
        }
        return JsonNodeFactory.instance.stringNode(interpolate(text, context));
    }

    /** The value at a template's expression, or null when it does not resolve. */
    static JsonNode lookup(String expression, JsonNode context) {
        try {
            JsonNode found = JsonPathLite.resolve(context, "$." + expression);
            return found == null || found.isNull() ? null : found;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
