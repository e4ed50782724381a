package io.blackboard.ojs;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One HTTP answer as the assertions see it: headers by case-insensitive name, the raw body, the
 * body parsed as JSON where it is JSON ({@code null} when empty or not JSON), and how long the
 * request took.
 */
record OjsResponse(int status, Map<String, List<String>> headers, String raw, JsonNode body, long millis) {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int SHOWN = 2048;

    OjsResponse {
        TreeMap<String, List<String>> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(headers);
        headers = byName;
        raw = raw == null ? "" : raw;
    }

    /** An answer whose body is parsed from {@code raw}. */
    static OjsResponse of(int status, Map<String, List<String>> headers, String raw, long millis) {
        return new OjsResponse(status, headers, raw, parse(raw), millis);
    }

    static JsonNode parse(String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(raw);
        } catch (RuntimeException e) {
            return null; // not JSON: body_contains still sees the raw text
        }
    }

    /** The first value of a header, or null. */
    String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.getFirst();
    }

    /** What the template context keeps of it: status, headers (first values) and body. */
    ObjectNode asContext() {
        ObjectNode response = JsonNodeFactory.instance.objectNode();
        response.put("status", status);
        ObjectNode names = response.putObject("headers");
        headers.forEach((name, values) -> names.put(name.toLowerCase(Locale.ROOT), values.isEmpty() ? "" : values.getFirst()));
        if (body != null) {
            response.set("body", body);
        }
        return response;
    }

    /** Status and body for a failure message, the body cut at 2 KB. */
    String shown() {
        String text = raw.length() > SHOWN ? raw.substring(0, SHOWN) + "... (" + raw.length() + " chars)" : raw;
        return status + " " + (text.isEmpty() ? "(empty body)" : text);
    }

    static JsonMapper json() {
        return JSON;
    }
}
