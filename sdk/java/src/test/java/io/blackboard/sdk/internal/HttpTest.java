package io.blackboard.sdk.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HttpTest {

    @Test
    void retry_after_in_seconds_or_as_a_date() {
        assertThat(Http.parseRetryAfter("1")).contains(Duration.ofSeconds(1));
        assertThat(Http.parseRetryAfter(" 120 ")).contains(Duration.ofSeconds(120));
        String inTenSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(10));
        assertThat(Http.parseRetryAfter(inTenSeconds).orElseThrow()).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
        assertThat(Http.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT")).contains(Duration.ZERO);
        assertThat(Http.parseRetryAfter("-1")).isEmpty();
        assertThat(Http.parseRetryAfter("soon")).isEmpty();
    }

    @Test
    void a_reply_describes_its_problem() {
        Http.Reply reply = new Http.Reply(404, "{\"type\":\"/problems/worker-not-found\",\"detail\":\"gone\"}",
                Optional.empty());
        assertThat(reply.describe()).isEqualTo("404 /problems/worker-not-found: gone");
        assertThat(new Http.Reply(502, "<html>bad gateway</html>", Optional.empty()).describe())
                .isEqualTo("502: <html>bad gateway</html>");
        assertThat(new Http.Reply(502, "<html>", Optional.empty()).problem()).isEqualTo(Map.of());
    }
}
