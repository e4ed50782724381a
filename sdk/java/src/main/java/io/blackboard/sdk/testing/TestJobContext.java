package io.blackboard.sdk.testing;

import io.blackboard.sdk.Job;
import io.blackboard.sdk.JobContext;
import io.blackboard.sdk.JobType;
import io.blackboard.sdk.internal.Json;
import io.blackboard.sdk.internal.ProgressGate;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A {@link JobContext} for tests: the job's type, params and attempt as you choose, and a cancel flag you set
 * with {@link #cancel()} (from another thread, or scheduled with {@link Builder#cancelAfter(Duration)}). Its
 * progress reports are recorded ({@link #progressReports()}) with the worker's throttle: what a server would
 * have recorded.
 */
public final class TestJobContext implements JobContext {

    private final Job job;
    private final String blockName;
    private final String blockVersion;
    private final String workerId;
    private final Duration cancelAfter;
    private final CountDownLatch cancelled = new CountDownLatch(1);
    private final ProgressGate progressGate;
    private final List<ProgressReport> progressReports = new CopyOnWriteArrayList<>();

    private TestJobContext(Builder b) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", b.jobId);
        json.put("functionBlockId", b.functionBlockId);
        json.put("type", b.type.name());
        json.put("status", "POLLED");
        json.put("payload", b.payload);
        json.put("priority", 0);
        json.put("maxAttempts", Math.max(1, b.attempt));
        json.put("attempt", b.attempt);
        json.put("workerId", b.workerId);
        json.put("correlationId", b.correlationId);
        this.job = Job.fromJson(json);
        this.blockName = b.blockName;
        this.blockVersion = b.blockVersion;
        this.workerId = b.workerId;
        this.cancelAfter = b.cancelAfter;
        this.progressGate = new ProgressGate(b.clock);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** An EXECUTE job with these params, attempt 1. */
    public static TestJobContext of(Map<String, ?> params) {
        return builder().params(params).build();
    }

    /** Sets the cancel flag, as a ping's {@code cancelJobIds} would. */
    public void cancel() {
        cancelled.countDown();
    }

    /**
     * Records the report (answering true, as a server that recorded it) unless the job is cancelled or the report
     * comes within 2 s of the last one (100 always goes): a worker would not send those.
     */
    @Override
    public boolean progress(int percent, String message) {
        return progressGate.report(percent, message, this::isCancelled,
                (p, m) -> progressReports.add(new ProgressReport(p, m)));
    }

    /** The progress reports the handler made that a worker would have sent, in order. */
    public List<ProgressReport> progressReports() {
        return List.copyOf(progressReports);
    }

    Duration cancelAfter() {
        return cancelAfter;
    }

    @Override
    public Job job() {
        return job;
    }

    @Override
    public String functionBlockName() {
        return blockName;
    }

    @Override
    public String functionBlockVersion() {
        return blockVersion;
    }

    @Override
    public String workerId() {
        return workerId;
    }

    @Override
    public boolean isCancelled() {
        return cancelled.getCount() == 0;
    }

    @Override
    public boolean awaitCancellation(Duration timeout) throws InterruptedException {
        return cancelled.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    }

    /** Defaults: EXECUTE, attempt 1, empty params, random ids, block {@code test 0.0.0}. */
    public static final class Builder {

        private String jobId = UUID.randomUUID().toString();
        private String functionBlockId = UUID.randomUUID().toString();
        private JobType type = JobType.EXECUTE;
        private Object payload = Map.of();
        private int attempt = 1;
        private String workerId = UUID.randomUUID().toString();
        private String correlationId;
        private String blockName = "test";
        private String blockVersion = "0.0.0";
        private Duration cancelAfter;
        private LongSupplier clock = System::nanoTime;

        private Builder() {
        }

        public Builder jobId(String jobId) {
            this.jobId = Objects.requireNonNull(jobId);
            return this;
        }

        public Builder type(JobType type) {
            this.type = Objects.requireNonNull(type);
            return this;
        }

        /** The payload as an object (deep-copied, as if it came over the wire). */
        public Builder params(Map<String, ?> params) {
            this.payload = Json.parse(Json.write(params));
            return this;
        }

        /** Any JSON value as the payload, including one that is not an object. */
        public Builder payload(Object payload) {
            this.payload = payload == null ? null : Json.parse(Json.write(payload));
            return this;
        }

        /** The payload as JSON text. */
        public Builder payloadJson(String json) {
            this.payload = Json.parse(json);
            return this;
        }

        public Builder attempt(int attempt) {
            this.attempt = attempt;
            return this;
        }

        public Builder workerId(String workerId) {
            this.workerId = workerId;
            return this;
        }

        public Builder correlationId(String correlationId) {
            this.correlationId = correlationId;
            return this;
        }

        public Builder functionBlock(String name, String version) {
            this.blockName = name;
            this.blockVersion = version;
            return this;
        }

        public Builder functionBlockId(String id) {
            this.functionBlockId = id;
            return this;
        }

        /** {@link JobHarness#run} sets the cancel flag this long after the handler started. */
        public Builder cancelAfter(Duration delay) {
            this.cancelAfter = delay;
            return this;
        }

        /** The clock (nanoseconds) the progress throttle reads: a test's own, to step past the 2 s gap. */
        public Builder clock(LongSupplier nanoClock) {
            this.clock = Objects.requireNonNull(nanoClock);
            return this;
        }

        public TestJobContext build() {
            return new TestJobContext(this);
        }
    }
}
