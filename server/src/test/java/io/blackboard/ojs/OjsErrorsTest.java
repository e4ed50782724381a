package io.blackboard.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.transaction.TransactionSystemException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The binding's errors: a database fault however wrapped is a retryable 503, a bug a 500. */
class OjsErrorsTest {

    private final OjsErrors errors = new OjsErrors(JsonMapper.builder().build());
    private final MockHttpServletRequest request = new MockHttpServletRequest("POST", "/ojs/v1/workers/ack");

    @Test
    void aRollbackOnAClosedConnectionIsARetryable503() {
        request.setAttribute(OjsHeaders.REQUEST_ID, "req-1");
        ResponseEntity<ObjectNode> answer = errors.failed(
                new TransactionSystemException("JDBC rollback failed", new SQLException("Connection is closed")), request);

        assertThat(answer.getStatusCode().value()).isEqualTo(503);
        assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
        assertThat(answer.getBody().at("/error/code").asString()).isEqualTo("backend_error");
        assertThat(answer.getBody().at("/error/retryable").asBoolean()).isTrue();
        assertThat(answer.getBody().at("/error/request_id").asString()).isEqualTo("req-1");
    }

    @Test
    void aBugIsA500() {
        ResponseEntity<ObjectNode> answer = errors.failed(new IllegalStateException("bug"), request);

        assertThat(answer.getStatusCode().value()).isEqualTo(500);
        assertThat(answer.getBody().at("/error/message").asString()).doesNotContain("bug");
    }
}
