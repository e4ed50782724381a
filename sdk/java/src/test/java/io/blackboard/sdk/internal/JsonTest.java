package io.blackboard.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void parses_every_kind_of_value() {
        Object value = Json.parse(" {\"s\": \"x\", \"i\": -12, \"d\": 1.5e2, \"t\": true, \"f\": false, \"n\": null,"
                + " \"a\": [1, [], {}], \"o\": {\"k\": \"v\"}} ");

        assertThat(value).isEqualTo(new LinkedHashMap<>(Map.of("s", "x", "i", -12L, "d", 150.0, "t", true,
                "f", false, "a", List.of(1L, List.of(), Map.of()), "o", Map.of("k", "v"))) {
            {
                put("n", null);
            }
        });
    }

    @Test
    void keeps_member_order() {
        assertThat(Json.parseObject("{\"b\": 1, \"a\": 2, \"c\": 3}").keySet()).containsExactly("b", "a", "c");
    }

    @Test
    void numbers_are_longs_big_integers_or_doubles() {
        assertThat(Json.parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(Json.parse("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
        assertThat(Json.parse("92233720368547758070")).isEqualTo(new BigInteger("92233720368547758070"));
        assertThat(Json.parse("0.25")).isEqualTo(0.25);
        assertThat(Json.parse("-0")).isEqualTo(0L);
        assertThat(Json.parse("1E3")).isEqualTo(1000.0);
    }

    @Test
    void decodes_and_encodes_escapes() {
        String text = "\"quote\" back\\slash / tab\t nl\n cr\r bell\u0007 é \u2028 😀";
        String written = Json.write(text);

        assertThat(written).doesNotContain("\n", "\t", "\u0007", "\u2028");
        assertThat(Json.parse(written)).isEqualTo(text);
        assertThat(Json.parse("\"\\u00e9\\ud83d\\ude00\\/\"")).isEqualTo("é😀/");
    }

    @Test
    void writes_what_handlers_return() {
        UUID id = UUID.fromString("01a2011d-6ef8-77fd-8000-000000000001");
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("list", List.of(1, 2.5, "x"));
        value.put("array", new int[] {1, 2});
        value.put("objects", new String[] {"a"});
        value.put("id", id);
        value.put("type", Thread.State.NEW);
        value.put("at", Instant.parse("2026-11-22T02:45:45Z"));
        value.put("none", null);
        value.put("optional", Optional.of(3));
        value.put("whole", 3.0);

        assertThat(Json.write(value)).isEqualTo("{\"list\":[1,2.5,\"x\"],\"array\":[1,2],\"objects\":[\"a\"],"
                + "\"id\":\"01a2011d-6ef8-77fd-8000-000000000001\",\"type\":\"NEW\",\"at\":\"2026-11-22T02:45:45Z\","
                + "\"none\":null,\"optional\":3,\"whole\":3}");
    }

    @Test
    void round_trips() {
        String text = "{\"a\":[1,-2,3.25,\"s\",true,false,null,{\"b\":{}}],\"c\":\"\\\"\"}";
        assertThat(Json.write(Json.parse(text))).isEqualTo(text);
    }

    @Test
    void refuses_what_is_not_json() {
        for (String bad : Arrays.asList("", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "tru",
                "\"unterminated", "\"bad \\x escape\"", "[1] 2", "{a:1}", "\"tab\tinside\"", "nul")) {
            assertThatThrownBy(() -> Json.parse(bad)).as(bad).isInstanceOf(Json.JsonException.class)
                    .hasMessageContaining("Malformed JSON");
        }
    }

    @Test
    void refuses_documents_nested_too_deep() {
        String deep = "[".repeat(Json.MAX_DEPTH + 2) + "]".repeat(Json.MAX_DEPTH + 2);
        assertThatThrownBy(() -> Json.parse(deep)).isInstanceOf(Json.JsonException.class);
        String fine = "[".repeat(100) + "]".repeat(100);
        assertThat(Json.parse(fine)).isInstanceOf(List.class);
    }

    @Test
    void refuses_values_it_cannot_write() {
        assertThatThrownBy(() -> Json.write(Map.of("x", new Object()))).isInstanceOf(Json.JsonException.class)
                .hasMessageContaining("java.lang.Object");
        assertThatThrownBy(() -> Json.write(Double.NaN)).isInstanceOf(Json.JsonException.class);
        List<Object> cycle = new java.util.ArrayList<>();
        cycle.add(cycle);
        assertThatThrownBy(() -> Json.write(cycle)).isInstanceOf(Json.JsonException.class);
    }

    @Test
    void parse_object_says_what_it_got_instead() {
        assertThatThrownBy(() -> Json.parseObject("[1]")).hasMessageContaining("an array");
    }
}
