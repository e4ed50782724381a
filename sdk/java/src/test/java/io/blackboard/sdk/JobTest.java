package io.blackboard.sdk;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.sdk.internal.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A job as a newer server shows it: members and values this SDK did not know must never fail the parsing. */
class JobTest {

    /** Every member a job gained with scheduling, retries, dead letters, timeouts and progress, and one to come. */
    static final Map<String, Object> NEW_MEMBERS = Json.parseObject("""
            {"scheduled": false, "runAt": "2026-11-22T03:00:00Z",
             "retryPolicy": {"maxAttempts": 3, "initialIntervalMs": 5000, "multiplier": 2.0, "maxIntervalMs": 300000,
                             "jitter": 0.0, "nonRetryableErrors": ["AUTH_*"], "onExhausted": "PARK"},
             "errors": [{"attempt": 1, "workerId": "w0", "error": {"code": "TIMEOUT"},
                         "at": "2026-11-22T02:59:00Z"}],
             "executionTimeoutMs": 600000, "progressPercent": 40, "progressMessage": "copying config",
             "progressAt": "2026-11-22T02:59:30Z", "somethingNewer": {"x": [1]}}""");

    @Test
    void a_parked_job_with_every_new_member_parses_and_reads() {
        Job job = Job.fromJson(Json.parseObject("""
                {"id": "j1", "functionBlockId": "fb-1", "type": "EXECUTE", "status": "PARKED",
                 "payload": {"host": "r1"},
                 "priority": 0, "maxAttempts": 3, "attempt": 3, "workerId": null, "outcome": null,
                 "failureReason": null, "error": {"code": "AUTH_FAILED", "retryable": false}, "scheduled": false,
                 "runAt": "2026-11-22T03:00:00Z",
                 "retryPolicy": {"maxAttempts": 3, "initialIntervalMs": 5000, "multiplier": 2.0,
                                 "maxIntervalMs": 300000, "jitter": 0.0, "nonRetryableErrors": ["AUTH_*"],
                                 "onExhausted": "PARK"},
                 "errors": [{"attempt": 1, "workerId": "w0", "error": {"code": "TIMEOUT"}, "at": "2026-11-22T02:59Z"},
                            {"attempt": 3, "workerId": "w1", "error": {"code": "AUTH_FAILED"}, "at": "03:01"}],
                 "executionTimeoutMs": 600000, "progressPercent": 40, "progressMessage": "copying config",
                 "progressAt": "2026-11-22T02:59:30Z", "somethingNewer": {"x": [1]}, "nextEnum": "ZOMBIE"}"""));

        assertThat(job.status()).isEqualTo("PARKED");
        assertThat(job.type()).isEqualTo(JobType.EXECUTE);
        assertThat(job.scheduled()).isFalse();
        assertThat(job.runAt()).isEqualTo("2026-11-22T03:00:00Z");
        assertThat(job.retryPolicy()).containsEntry("onExhausted", "PARK")
                .containsEntry("nonRetryableErrors", List.of("AUTH_*"));
        assertThat(job.errors()).extracting(e -> Json.object(e.get("error")).get("code"))
                .containsExactly("TIMEOUT", "AUTH_FAILED");
        assertThat(job.executionTimeoutMs()).isEqualTo(600_000L);
        assertThat(job.progressPercent()).isEqualTo(40);
        assertThat(job.progressMessage()).isEqualTo("copying config");
        assertThat(job.progressAt()).isEqualTo("2026-11-22T02:59:30Z");
        assertThat(job.error()).containsEntry("retryable", false);
        assertThat(job.json()).containsKey("somethingNewer");
        assertThat(job.toString()).contains("PARKED");
    }

    @Test
    void an_ended_job_says_why_and_a_job_of_an_older_server_answers_nothing_for_the_new_members() {
        Job timedOut = Job.fromJson(Map.of("id", "j2", "status", "PUSHED", "outcome", "FAILURE",
                "failureReason", "EXECUTION_TIMEOUT", "scheduled", true));
        assertThat(timedOut.failureReason()).isEqualTo("EXECUTION_TIMEOUT");
        assertThat(timedOut.scheduled()).isTrue();

        Job old = Job.fromJson(Map.of("id", "j3", "status", "PENDING"));
        assertThat(old.scheduled()).isFalse();
        assertThat(old.runAt()).isNull();
        assertThat(old.retryPolicy()).isNull();
        assertThat(old.errors()).isEmpty();
        assertThat(old.executionTimeoutMs()).isNull();
        assertThat(old.progressPercent()).isNull();
        assertThat(old.progressMessage()).isNull();
    }

    @Test
    void a_job_type_this_sdk_does_not_know_fails_only_when_asked_for() {
        Job job = Job.fromJson(Map.of("id", "j4", "type", "COMPENSATE", "status", "POLLED"));

        assertThat(job.toString()).contains("COMPENSATE");
        assertThat(job.status()).isEqualTo("POLLED");
    }
}
