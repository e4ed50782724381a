package io.blackboard.sdk.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A small JSON codec for the shapes the protocol uses: objects become {@code LinkedHashMap<String,Object>}
 * (member order kept), arrays {@code ArrayList<Object>}, strings {@code String}, numbers {@code Long}
 * ({@code BigInteger} past its range) or {@code Double} (with a fraction or exponent), {@code Boolean} and
 * {@code null}. Writing also accepts any {@code Map}, {@code Collection}, array, {@code Number},
 * {@code CharSequence}, {@code UUID}, enum, {@code Optional} and {@code java.time} value (as its ISO text).
 */
public final class Json {

    /** Deeper documents are refused rather than risking the reader's stack. */
    static final int MAX_DEPTH = 256;

    private Json() {
    }

    /** Parses one JSON document; whitespace around it is allowed, anything else after it is not. */
    public static Object parse(String text) {
        Reader reader = new Reader(text);
        reader.skipWhitespace();
        Object value = reader.value(0);
        reader.skipWhitespace();
        if (reader.pos != text.length()) {
            throw reader.error("unexpected text after the document");
        }
        return value;
    }

    /** Parses a JSON object, or fails saying what it got instead. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object value = parse(text);
        if (!(value instanceof Map)) {
            throw new JsonException("expected a JSON object, got " + describe(value));
        }
        return (Map<String, Object>) value;
    }

    public static String write(Object value) {
        StringBuilder out = new StringBuilder(64);
        write(value, out, 0);
        return out.toString();
    }

    /** An object's member as a map (an empty map when absent or not an object). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : Collections.emptyMap();
    }

    /** An array as a list (an empty list when absent or not an array). */
    @SuppressWarnings("unchecked")
    public static List<Object> array(Object value) {
        return value instanceof List ? (List<Object>) value : Collections.emptyList();
    }

    public static String string(Object value) {
        return value == null ? null : value.toString();
    }

    public static Long number(Object value) {
        return value instanceof Number n ? n.longValue() : null;
    }

    static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof List) {
            return "an array";
        }
        if (value instanceof String) {
            return "a string";
        }
        if (value instanceof Boolean) {
            return "a boolean";
        }
        return "a number";
    }

    private static void write(Object value, StringBuilder out, int depth) {
        if (depth > MAX_DEPTH) {
            throw new JsonException("value nested deeper than " + MAX_DEPTH + " levels (a cycle?)");
        }
        if (value == null) {
            out.append("null");
        } else if (value instanceof CharSequence || value instanceof UUID || value instanceof Enum<?>
                || value instanceof TemporalAccessor) {
            quote(value.toString(), out);
        } else if (value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Number number) {
            writeNumber(number, out);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                if (entry.getKey() == null) {
                    throw new JsonException("an object member with a null name");
                }
                if (!first) {
                    out.append(',');
                }
                first = false;
                quote(entry.getKey().toString(), out);
                out.append(':');
                write(entry.getValue(), out, depth + 1);
            }
            out.append('}');
        } else if (value instanceof Collection<?> items) {
            writeArray(items, out, depth);
        } else if (value instanceof Object[] items) {
            writeArray(List.of(items), out, depth);
        } else if (value instanceof Optional<?> optional) {
            write(optional.orElse(null), out, depth);
        } else if (value.getClass().isArray()) {
            List<Object> items = new ArrayList<>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(value); i++) {
                items.add(java.lang.reflect.Array.get(value, i));
            }
            writeArray(items, out, depth);
        } else {
            throw new JsonException("cannot write " + value.getClass().getName()
                    + " as JSON: use a Map, List, String, Number, Boolean or null");
        }
    }

    private static void writeArray(Collection<?> items, StringBuilder out, int depth) {
        out.append('[');
        boolean first = true;
        for (Object item : items) {
            if (!first) {
                out.append(',');
            }
            first = false;
            write(item, out, depth + 1);
        }
        out.append(']');
    }

    private static void writeNumber(Number number, StringBuilder out) {
        if (number instanceof Double || number instanceof Float) {
            double d = number.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new JsonException("JSON has no " + d);
            }
            if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                out.append((long) d);
            } else {
                out.append(number);
            }
        } else if (number instanceof BigDecimal decimal) {
            out.append(decimal.toString());
        } else {
            out.append(number.toString());
        }
    }

    private static void quote(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** A document that is not JSON, or a value that cannot be written as JSON. */
    public static final class JsonException extends IllegalArgumentException {
        JsonException(String message) {
            super(message);
        }
    }

    private static final class Reader {
        private final String text;
        private int pos;

        Reader(String text) {
            this.text = text;
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("nested deeper than " + MAX_DEPTH + " levels");
            }
            if (pos >= text.length()) {
                throw error("unexpected end of input");
            }
            char c = text.charAt(pos);
            switch (c) {
                case '{':
                    return object(depth);
                case '[':
                    return array(depth);
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw error("unexpected character '" + c + "'");
            }
        }

        private Map<String, Object> object(int depth) {
            pos++;
            Map<String, Object> map = new LinkedHashMap<>();
            skipWhitespace();
            if (peek() == '}') {
                pos++;
                return map;
            }
            while (true) {
                skipWhitespace();
                if (peek() != '"') {
                    throw error("expected a member name");
                }
                String name = string();
                skipWhitespace();
                expect(':');
                skipWhitespace();
                map.put(name, value(depth + 1));
                skipWhitespace();
                char c = next();
                if (c == '}') {
                    return map;
                }
                if (c != ',') {
                    throw error("expected ',' or '}'");
                }
            }
        }

        private List<Object> array(int depth) {
            pos++;
            List<Object> list = new ArrayList<>();
            skipWhitespace();
            if (peek() == ']') {
                pos++;
                return list;
            }
            while (true) {
                skipWhitespace();
                list.add(value(depth + 1));
                skipWhitespace();
                char c = next();
                if (c == ']') {
                    return list;
                }
                if (c != ',') {
                    throw error("expected ',' or ']'");
                }
            }
        }

        private String string() {
            pos++;
            StringBuilder out = null;
            int start = pos;
            while (true) {
                if (pos >= text.length()) {
                    throw error("unterminated string");
                }
                char c = text.charAt(pos);
                if (c == '"') {
                    String s = out == null ? text.substring(start, pos) : out.append(text, start, pos).toString();
                    pos++;
                    return s;
                }
                if (c < 0x20) {
                    throw error("control character in a string");
                }
                if (c == '\\') {
                    if (out == null) {
                        out = new StringBuilder();
                    }
                    out.append(text, start, pos);
                    pos++;
                    out.append(escape());
                    start = pos;
                } else {
                    pos++;
                }
            }
        }

        private char escape() {
            char c = next();
            switch (c) {
                case '"':
                case '\\':
                case '/':
                    return c;
                case 'b':
                    return '\b';
                case 'f':
                    return '\f';
                case 'n':
                    return '\n';
                case 'r':
                    return '\r';
                case 't':
                    return '\t';
                case 'u':
                    if (pos + 4 > text.length()) {
                        throw error("truncated \\u escape");
                    }
                    try {
                        char decoded = (char) Integer.parseInt(text.substring(pos, pos + 4), 16);
                        pos += 4;
                        return decoded;
                    } catch (NumberFormatException e) {
                        throw error("bad \\u escape");
                    }
                default:
                    throw error("bad escape '\\" + c + "'");
            }
        }

        private Number number() {
            int start = pos;
            if (peek() == '-') {
                pos++;
            }
            if (peek() == '0') {
                pos++;
            } else if (isDigit(peek())) {
                digits();
            } else {
                throw error("expected a digit");
            }
            boolean integral = true;
            if (peek() == '.') {
                integral = false;
                pos++;
                if (!isDigit(peek())) {
                    throw error("expected a digit after '.'");
                }
                digits();
            }
            if (peek() == 'e' || peek() == 'E') {
                integral = false;
                pos++;
                if (peek() == '+' || peek() == '-') {
                    pos++;
                }
                if (!isDigit(peek())) {
                    throw error("expected a digit in the exponent");
                }
                digits();
            }
            String literal = text.substring(start, pos);
            if (!integral) {
                return Double.parseDouble(literal);
            }
            if (literal.length() < 19) {
                return Long.parseLong(literal);
            }
            BigInteger big = new BigInteger(literal);
            return big.bitLength() < 64 ? (Number) big.longValue() : big;
        }

        private void digits() {
            while (isDigit(peek())) {
                pos++;
            }
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }

        private Object literal(String word, Object value) {
            if (!text.startsWith(word, pos)) {
                throw error("unexpected literal");
            }
            pos += word.length();
            return value;
        }

        void skipWhitespace() {
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                    return;
                }
                pos++;
            }
        }

        private char peek() {
            return pos < text.length() ? text.charAt(pos) : '\0';
        }

        private char next() {
            if (pos >= text.length()) {
                throw error("unexpected end of input");
            }
            return text.charAt(pos++);
        }

        private void expect(char c) {
            if (next() != c) {
                pos--;
                throw error("expected '" + c + "'");
            }
        }

        JsonException error(String message) {
            return new JsonException("Malformed JSON at offset " + pos + ": " + message);
        }
    }
}
