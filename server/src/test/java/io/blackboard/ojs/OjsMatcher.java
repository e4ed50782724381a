package io.blackboard.ojs;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.databind.JsonNode;

/**
 * The matchers of the OJS conformance DSL (docs/test-case-reference.md, "Matcher Reference"):
 * a matcher is a JSON value, applied to the value a JSONPath found ({@code null}: nothing there).
 * {@link #mismatch} answers null when the value matches, else why not.
 *
 * <p>Where the reference leaves room, this is the strict reading: a JSON null is present
 * ({@code exists} and {@code $exists: true} accept it, {@code absent} does not); a literal string
 * matches only a string, a literal number only a number (compared by value, so 42 matches 42.0);
 * an object with no operator keys is matched structurally (same keys, each value a matcher), as
 * the positional array matcher is; and an unknown {@code string:}, {@code number:},
 * {@code array:} matcher or {@code $} operator is a failure, never a silent pass.
 */
final class OjsMatcher {

    /** The reference runner's default {@code -tolerance}: ~N accepts N +- max(N * 50%, 100). */
    static final int TOLERANCE_PERCENT = 50;
    static final long MIN_TOLERANCE = 100;

    private static final Pattern UUID = Pattern.compile("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$");
    private static final Pattern UUID_V7 = Pattern.compile("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
    private static final Pattern DATETIME = Pattern.compile("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$");
    private static final Pattern RANGE = Pattern.compile("^number:range\\(\\s*(-?[\\d.]+)\\s*,\\s*(-?[\\d.]+)\\s*\\)$");
    private static final Pattern LENGTH = Pattern.compile("^array:(length|min_length|min)(?::(\\d+)|\\((\\d+)\\))$");
    private static final Pattern APPROXIMATE = Pattern.compile("^~(-?\\d+(\\.\\d+)?)$");
    private static final Set<String> OPERATORS = Set.of("$exists", "$type", "$match", "$in", "$size", "$or", "$empty", "range");

    private OjsMatcher() {
    }

    /** Null when {@code actual} (null: nothing there) matches {@code matcher}, else the reason. */
    static String mismatch(JsonNode actual, JsonNode matcher) {
        JsonNode value = actual == null || actual.isMissingNode() ? null : actual;
        if (matcher.isString()) {
            return string(value, matcher.stringValue());
        }
        if (matcher.isNumber()) {
            return isNumber(value) && value.decimalValue().compareTo(matcher.decimalValue()) == 0
                    ? null : "not the number " + matcher;
        }
        if (matcher.isBoolean()) {
            return value != null && value.isBoolean() && value.booleanValue() == matcher.booleanValue()
                    ? null : "not " + matcher;
        }
        if (matcher.isNull()) {
            return value != null && value.isNull() ? null : "not null";
        }
        if (matcher.isArray()) {
            return positional(value, matcher);
        }
        return isOperators(matcher) ? operators(value, matcher) : structural(value, matcher);
    }

    /** Whether {@code actual} matches: {@link #mismatch} is null. */
    static boolean matches(JsonNode actual, JsonNode matcher) {
        return mismatch(actual, matcher) == null;
    }

    /** The value as a failure message shows it. */
    static String show(JsonNode actual) {
        if (actual == null || actual.isMissingNode()) {
            return "(absent)";
        }
        String text = actual.toString();
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }

    private static String string(JsonNode value, String m) {
        switch (m) {
            case "any":
                return value != null && !value.isNull() ? null : "absent or null";
            case "absent":
                return value == null ? null : "present";
            case "exists":
                return value != null ? null : "absent";
            case "string:nonempty", "string:non_empty":
                return isString(value) && !value.stringValue().isEmpty() ? null : "not a non-empty string";
            case "string:uuid":
                return pattern(value, UUID, "not a lower-case UUID");
            case "string:uuidv7":
                return pattern(value, UUID_V7, "not a lower-case UUIDv7");
            case "string:datetime":
                return pattern(value, DATETIME, "not an RFC 3339 timestamp");
            case "number:positive":
                return isNumber(value) && value.decimalValue().signum() > 0 ? null : "not a number > 0";
            case "number:non_negative":
                return isNumber(value) && value.decimalValue().signum() >= 0 ? null : "not a number >= 0";
            case "array:nonempty":
                return isArray(value) && !value.isEmpty() ? null : "not a non-empty array";
            case "array:empty":
                return isArray(value) && value.isEmpty() ? null : "not an empty array";
            default:
                return prefixed(value, m);
        }
    }

    private static String prefixed(JsonNode value, String m) {
        if (m.startsWith("string:contains:")) {
            String part = m.substring("string:contains:".length());
            return isString(value) && value.stringValue().contains(part) ? null : "not a string containing \"" + part + "\"";
        }
        if (m.startsWith("string:pattern(") && m.endsWith(")")) {
            return regex(value, m.substring("string:pattern(".length(), m.length() - 1));
        }
        if (m.startsWith("contains:") || m.startsWith("not_contains:")) {
            return contains(value, m);
        }
        if (m.startsWith("one_of:")) {
            for (String option : m.substring("one_of:".length()).split(",")) {
                if (value != null && JsonPathLite.text(value).equals(option.trim())) {
                    return null;
                }
            }
            return "not one of " + m.substring("one_of:".length());
        }
        Matcher range = RANGE.matcher(m);
        if (range.matches()) {
            return between(value, new BigDecimal(range.group(1)), new BigDecimal(range.group(2)));
        }
        Matcher length = LENGTH.matcher(m);
        if (length.matches()) {
            return length(value, length.group(1), Integer.parseInt(length.group(2) != null ? length.group(2) : length.group(3)));
        }
        Matcher approximate = APPROXIMATE.matcher(m);
        if (approximate.matches()) {
            return approximately(value, new BigDecimal(approximate.group(1)));
        }
        if (m.startsWith("string:") || m.startsWith("number:") || m.startsWith("array:")) {
            return "unknown matcher \"" + m + "\"";
        }
        return isString(value) && value.stringValue().equals(m) ? null : "not the string \"" + m + "\"";
    }

    private static String contains(JsonNode value, String m) {
        boolean negated = m.startsWith("not_");
        String wanted = m.substring(m.indexOf(':') + 1);
        boolean found;
        if (isArray(value)) {
            found = false;
            for (JsonNode element : value) {
                found |= JsonPathLite.text(element).equals(wanted);
            }
        } else if (isString(value)) {
            found = value.stringValue().contains(wanted);
        } else {
            return "not an array (or string)";
        }
        return found != negated ? null : (negated ? "contains " : "does not contain ") + "\"" + wanted + "\"";
    }

    private static String length(JsonNode value, String kind, int n) {
        if (!isArray(value)) {
            return "not an array";
        }
        boolean exact = kind.equals("length");
        boolean ok = exact ? value.size() == n : value.size() >= n;
        return ok ? null : "an array of " + value.size() + " elements, not " + (exact ? "" : "at least ") + n;
    }

    static String approximately(JsonNode value, BigDecimal expected) {
        if (!isNumber(value)) {
            return "not a number";
        }
        BigDecimal tolerance = expected.abs().multiply(BigDecimal.valueOf(TOLERANCE_PERCENT)).movePointLeft(2)
                .max(BigDecimal.valueOf(MIN_TOLERANCE));
        return value.decimalValue().subtract(expected).abs().compareTo(tolerance) <= 0
                ? null : "not within " + tolerance.stripTrailingZeros().toPlainString() + " of " + expected;
    }

    private static String between(JsonNode value, BigDecimal min, BigDecimal max) {
        if (!isNumber(value)) {
            return "not a number";
        }
        BigDecimal v = value.decimalValue();
        boolean ok = (min == null || v.compareTo(min) >= 0) && (max == null || v.compareTo(max) <= 0);
        return ok ? null : "not in [" + (min == null ? "-inf" : min) + ", " + (max == null ? "inf" : max) + "]";
    }

    private static String pattern(JsonNode value, Pattern pattern, String problem) {
        return isString(value) && pattern.matcher(value.stringValue()).matches() ? null : problem;
    }

    /** Go's regexp.MatchString: the pattern anywhere in the string, unless it anchors itself. */
    private static String regex(JsonNode value, String regex) {
        try {
            return isString(value) && Pattern.compile(regex).matcher(value.stringValue()).find()
                    ? null : "not a string matching /" + regex + "/";
        } catch (PatternSyntaxException e) {
            return "bad regular expression /" + regex + "/: " + e.getDescription();
        }
    }

    private static String positional(JsonNode value, JsonNode matcher) {
        if (!isArray(value) || value.size() != matcher.size()) {
            return "not an array of " + matcher.size() + " elements";
        }
        for (int i = 0; i < matcher.size(); i++) {
            String why = mismatch(value.get(i), matcher.get(i));
            if (why != null) {
                return "[" + i + "]: " + why;
            }
        }
        return null;
    }

    private static String structural(JsonNode value, JsonNode matcher) {
        if (value == null || !value.isObject() || !Set.copyOf(value.propertyNames()).equals(Set.copyOf(matcher.propertyNames()))) {
            return "not an object with exactly the keys " + matcher.propertyNames();
        }
        for (Map.Entry<String, JsonNode> entry : matcher.properties()) {
            String why = mismatch(value.get(entry.getKey()), entry.getValue());
            if (why != null) {
                return "." + entry.getKey() + ": " + why;
            }
        }
        return null;
    }

    private static boolean isOperators(JsonNode matcher) {
        for (String key : matcher.propertyNames()) {
            if (OPERATORS.contains(key) || key.startsWith("$")) {
                return true;
            }
        }
        return false;
    }

    /** Every operator of the object must hold. */
    private static String operators(JsonNode value, JsonNode matcher) {
        for (Map.Entry<String, JsonNode> entry : matcher.properties()) {
            String why = operator(value, entry.getKey(), entry.getValue());
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    private static String operator(JsonNode value, String name, JsonNode argument) {
        return switch (name) {
            case "$exists" -> (value != null) == argument.asBoolean() ? null : (value == null ? "absent" : "present");
            case "$type" -> type(value, argument.asString());
            case "$match" -> regex(value, argument.asString());
            case "$in", "$or" -> anyOf(value, argument);
            case "$size" -> size(value, argument);
            case "$empty" -> isEmpty(value) == argument.asBoolean() ? null : (argument.asBoolean() ? "not empty" : "empty");
            case "range" -> argument.has("min") || argument.has("max")
                    ? between(value, bound(argument, "min"), bound(argument, "max")) : "range needs a min or a max";
            default -> "unknown operator " + name;
        };
    }

    private static String type(JsonNode value, String type) {
        if (value == null) {
            return "absent";
        }
        boolean ok = switch (type) {
            case "string" -> value.isString();
            case "number" -> value.isNumber();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            case "array" -> value.isArray();
            case "object" -> value.isObject();
            default -> false;
        };
        return ok ? null : "not of $type " + type;
    }

    private static String anyOf(JsonNode value, JsonNode alternatives) {
        if (!alternatives.isArray() || alternatives.isEmpty()) {
            return "$in/$or needs a non-empty array of alternatives";
        }
        for (JsonNode alternative : alternatives) {
            if (matches(value, alternative)) {
                return null;
            }
        }
        return "matches none of " + alternatives;
    }

    private static String size(JsonNode value, JsonNode argument) {
        if (!isArray(value)) {
            return "not an array";
        }
        if (argument.isNumber()) {
            return value.size() == argument.asInt() ? null : "an array of " + value.size() + " elements, not " + argument;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = argument.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> bound = it.next();
            int n = bound.getValue().asInt();
            boolean ok = switch (bound.getKey()) {
                case "$gte" -> value.size() >= n;
                case "$gt" -> value.size() > n;
                case "$lte" -> value.size() <= n;
                case "$lt" -> value.size() < n;
                case "$eq" -> value.size() == n;
                default -> false;
            };
            if (!ok) {
                return "an array of " + value.size() + " elements, not " + bound.getKey() + " " + n;
            }
        }
        return null;
    }

    private static BigDecimal bound(JsonNode range, String name) {
        JsonNode bound = range.get(name);
        return bound == null || bound.isNull() ? null : bound.decimalValue();
    }

    private static boolean isEmpty(JsonNode value) {
        return value == null || value.isNull() || value.isContainer() && value.isEmpty()
                || value.isString() && value.stringValue().isEmpty();
    }

    private static boolean isString(JsonNode value) {
        return value != null && value.isString();
    }

    private static boolean isNumber(JsonNode value) {
        return value != null && value.isNumber();
    }

    private static boolean isArray(JsonNode value) {
        return value != null && value.isArray();
    }
}
