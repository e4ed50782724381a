package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A create read by hand ({@link JobRequests#plainly}) is the one the server's JSON mapper reads
 * from the same object, field for field and the selector's labels in the same order, and only
 * an object the mapper reads is read by hand: on 50,000 random creates, with every field of
 * {@link CreateJob} given plainly, wrongly typed, null, empty, out of range or unknown.
 */
class JobRequestsReadingTest extends IntegrationTest {

    private static final String ID = "0192d3a4-5b6c-7d8e-9f00-a1b2c3d4e5f6";

    @Autowired
    JsonMapper json;

    @Test
    void aCreateReadByHandIsTheOneTheMapperReads() {
        Random random = new Random(1129);
        int byHand = 0;
        int mapperOnly = 0;
        for (int i = 0; i < 50_000; i++) {
            String text = randomCreate(random);
            JsonNode node = json.readTree(text);
            CreateJob hand = JobRequests.plainly(node);
            CreateJob mapped;
            try {
                mapped = json.treeToValue(node, CreateJob.class);
            } catch (JacksonException e) {
                assertThat(hand).as("read by hand, refused by the mapper: %s (%s)", text, e.getOriginalMessage())
                        .isNull();
                continue;
            }
            if (hand == null) {
                mapperOnly++;
                continue;
            }
            byHand++;
            assertThat(hand).as(text).isEqualTo(mapped);
            if (mapped.selector() != null) {
                assertThat(List.copyOf(hand.selector().entrySet())).as(text)
                        .containsExactlyElementsOf(List.copyOf(mapped.selector().entrySet()));
            }
        }
        assertThat(byHand).as("creates read by hand").isGreaterThan(5_000);
        assertThat(mapperOnly).as("creates the mapper reads and the hand leaves to it").isGreaterThan(5_000);
    }

    @Test
    void theEnginesEverydayCreatesAreReadByHand() {
        for (String text : List.of(
                "{\"functionBlockId\":\"" + ID + "\",\"type\":\"EXECUTE\",\"payload\":{\"n\":1}}",
                "{\"functionBlockName\":\"echo\",\"functionBlockVersion\":\"^1.0\",\"type\":\"ROLLBACK\"}",
                "{\"functionBlockId\":\"" + ID.toUpperCase() + "\",\"type\":\"ACQUIRE\",\"payload\":{},\"priority\":-5,"
                        + "\"maxAttempts\":3,\"selector\":{\"site\":\"a\",\"rack\":\"r1\"},\"correlationId\":\"c\","
                        + "\"idempotencyKey\":\"k\",\"delayMs\":100,\"executionTimeoutMs\":60000}")) {
            JsonNode node = json.readTree(text);
            assertThat(JobRequests.plainly(node)).as(text).isNotNull()
                    .isEqualTo(json.treeToValue(node, CreateJob.class));
        }
    }

    private static String randomCreate(Random random) {
        List<String> fields = new ArrayList<>();
        field(fields, random, "functionBlockId", pick(random, 3, quoted(ID), quoted(ID.toUpperCase()),
                quoted(new UUID(random.nextLong(), random.nextLong()).toString()), quoted(ID.replace("-", "")), quoted("1-2-3-4-5"),
                quoted(ID.substring(1) + "g"), quoted(" " + ID.substring(1)), quoted("AZKjpFtsfY6fAKGyw9Tl9g=="),
                quoted(""), "7", "null", "{}"));
        field(fields, random, "functionBlockName", text(random));
        field(fields, random, "functionBlockVersion", text(random));
        field(fields, random, "type", pick(random, 3, quoted("EXECUTE"), quoted("ACQUIRE"), quoted("ROLLBACK"),
                quoted("execute"), quoted("EXECUTE "), quoted(""), "0", "1", "null", "true"));
        field(fields, random, "payload", pick(random, 3, "{}", "{\"n\":1}", "{\"a\":{\"b\":[1,2.5,null]},\"z\":\"\"}",
                "[]", "1", quoted("x"), "null", "false"));
        field(fields, random, "priority", number(random));
        field(fields, random, "maxAttempts", number(random));
        field(fields, random, "selector", pick(random, 5, "{}", "{\"site\":\"a\"}", "{\"b\":\"2\",\"a\":\"1\",\"c\":\"3\"}",
                "{\"\":\"x\"}", "{\" \":\"x\"}", "{\"a\":\"\"}", "{\"a\":1}", "{\"a\":null}", "{\"a\":{\"b\":\"c\"}}",
                "[]", quoted("x"), "null"));
        field(fields, random, "correlationId", text(random));
        field(fields, random, "idempotencyKey", text(random));
        field(fields, random, "delayMs", number(random));
        field(fields, random, "executionTimeoutMs", number(random));
        if (random.nextInt(10) == 0) {
            fields.add("\"runAt\":" + pick(random, 3, quoted("2100-01-01T00:00:00Z"), quoted("soon"), "null"));
        }
        if (random.nextInt(10) == 0) {
            fields.add("\"retryPolicy\":" + pick(random, 2, "{\"maxAttempts\":3}", "null"));
        }
        if (random.nextInt(20) == 0) {
            fields.add("\"" + pick(random, 3, "unknown", "functionblockid", "Type") + "\":1");
        }
        Collections.shuffle(fields, random);
        return "{" + String.join(",", fields) + "}";
    }

    /** The field, given two times in three. */
    private static void field(List<String> fields, Random random, String name, String value) {
        if (random.nextInt(3) > 0) {
            fields.add("\"" + name + "\":" + value);
        }
    }

    private static String text(Random random) {
        return pick(random, 5, quoted("a"), quoted("echo"), quoted("h\u00e9llo \\\"q\\\""), quoted(" "),
                quoted("x".repeat(300)), quoted(""), "1", "1.5", "true", "null", "{}", "[]");
    }

    private static String number(Random random) {
        return pick(random, 9, "0", "1", "-1", "3", "100", "2147483647", "-2147483648", "2147483648", "9223372036854775807",
                "9223372036854775808", "100000000000000000000000000000", "1.0", "1.5", "1e3", quoted("5"), quoted(""),
                "true", "null", "{}");
    }

    private static String quoted(String text) {
        return "\"" + text + "\"";
    }

    /** One of the first {@code plain} values nine times in ten, else any of them. */
    private static String pick(Random random, int plain, String... values) {
        return values[random.nextInt(random.nextInt(10) < 9 ? plain : values.length)];
    }
}
