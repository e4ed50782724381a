package io.blackboard.sdk;

import io.blackboard.sdk.internal.Json;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a function block is declared to the server: {@code (name, version)}, its JSON schemas, whether running
 * a job twice is harmless, and the retry policy and execution timeout its jobs get when they bring none. A
 * {@code (name, version)} is one contract for every worker that offers it: change a schema, a flag, the retry
 * policy or the timeout and you must change the version too (the server answers 409 otherwise, which the worker
 * treats as fatal). Immutable; each {@code with}-style method returns a copy.
 *
 * <pre>{@code
 * FunctionBlockSpec.of("configBackup", "1.0.0")
 *     .idempotent(true)
 *     .paramsSchema("""
 *         {"type": "object", "required": ["host"], "properties": {"host": {"type": "string"}}}""")
 *     .description("Saves a device's running configuration")
 * }</pre>
 */
public final class FunctionBlockSpec {

    private final String name;
    private final String version;
    private final Map<String, Object> paramsSchema;
    private final Map<String, Object> resultSchema;
    private final boolean pure;
    private final boolean idempotent;
    private final String description;
    private final RetryPolicy retryPolicy;
    private final Duration executionTimeout;

    private FunctionBlockSpec(String name, String version, Map<String, Object> paramsSchema,
            Map<String, Object> resultSchema, boolean pure, boolean idempotent, String description,
            RetryPolicy retryPolicy, Duration executionTimeout) {
        this.name = name;
        this.version = version;
        this.paramsSchema = paramsSchema;
        this.resultSchema = resultSchema;
        this.pure = pure;
        this.idempotent = idempotent;
        this.description = description;
        this.retryPolicy = retryPolicy;
        this.executionTimeout = executionTimeout;
    }

    public static FunctionBlockSpec of(String name, String version) {
        if (Objects.requireNonNull(name, "name").isBlank() || Objects.requireNonNull(version, "version").isBlank()) {
            throw new IllegalArgumentException("a function block needs a name and a version");
        }
        return new FunctionBlockSpec(name, version, null, null, false, false, null, null, null);
    }

    /** The JSON Schema the server checks every job's payload against, as JSON text. */
    public FunctionBlockSpec paramsSchema(String json) {
        return paramsSchema(Json.parseObject(json));
    }

    public FunctionBlockSpec paramsSchema(Map<String, ?> schema) {
        return new FunctionBlockSpec(name, version, copy(schema), resultSchema, pure, idempotent, description,
                retryPolicy, executionTimeout);
    }

    /** The JSON Schema the server checks every SUCCESS result against (a violation is pushed as a FAILURE). */
    public FunctionBlockSpec resultSchema(String json) {
        return resultSchema(Json.parseObject(json));
    }

    public FunctionBlockSpec resultSchema(Map<String, ?> schema) {
        return new FunctionBlockSpec(name, version, paramsSchema, copy(schema), pure, idempotent, description,
                retryPolicy, executionTimeout);
    }

    /** No side effects at all: the server may run its jobs again after a worker vanished. */
    public FunctionBlockSpec pure(boolean pure) {
        return new FunctionBlockSpec(name, version, paramsSchema, resultSchema, pure, idempotent, description,
                retryPolicy, executionTimeout);
    }

    /** Running a job twice is harmless: the server may re-queue it after a worker vanished. */
    public FunctionBlockSpec idempotent(boolean idempotent) {
        return new FunctionBlockSpec(name, version, paramsSchema, resultSchema, pure, idempotent, description,
                retryPolicy, executionTimeout);
    }

    public FunctionBlockSpec description(String description) {
        return new FunctionBlockSpec(name, version, paramsSchema, resultSchema, pure, idempotent, description,
                retryPolicy, executionTimeout);
    }

    /**
     * The retry policy of the block's jobs that do not bring their own (copied onto each job at its creation).
     * Part of the contract: another policy needs another version.
     */
    public FunctionBlockSpec retryPolicy(RetryPolicy retryPolicy) {
        return new FunctionBlockSpec(name, version, paramsSchema, resultSchema, pure, idempotent, description,
                retryPolicy, executionTimeout);
    }

    /**
     * How long one claim of the block's jobs may run in all, for jobs that do not say (then they fail with
     * {@code EXECUTION_TIMEOUT}). Part of the contract: another timeout needs another version.
     */
    public FunctionBlockSpec executionTimeout(Duration executionTimeout) {
        if (executionTimeout != null) {
            NewJob.positiveMillis(executionTimeout, "executionTimeout");
        }
        return new FunctionBlockSpec(name, version, paramsSchema, resultSchema, pure, idempotent, description,
                retryPolicy, executionTimeout);
    }

    public String name() {
        return name;
    }

    public String version() {
        return version;
    }

    public Map<String, Object> paramsSchema() {
        return paramsSchema;
    }

    public Map<String, Object> resultSchema() {
        return resultSchema;
    }

    public boolean pure() {
        return pure;
    }

    public boolean idempotent() {
        return idempotent;
    }

    public String description() {
        return description;
    }

    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    public Duration executionTimeout() {
        return executionTimeout;
    }

    /** {@code name@version}, the block's key in the worker. */
    public String key() {
        return name + "@" + version;
    }

    /** The block as {@code POST /function-blocks/register} takes it. */
    public Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", name);
        json.put("version", version);
        if (paramsSchema != null) {
            json.put("paramsJsonSchema", paramsSchema);
        }
        if (resultSchema != null) {
            json.put("resultDataJsonSchema", resultSchema);
        }
        json.put("pure", pure);
        json.put("idempotent", idempotent);
        if (description != null) {
            json.put("description", description);
        }
        if (retryPolicy != null) {
            json.put("retryPolicy", retryPolicy.toJson());
        }
        if (executionTimeout != null) {
            json.put("executionTimeoutMs", executionTimeout.toMillis());
        }
        return json;
    }

    @Override
    public String toString() {
        return "FunctionBlockSpec[" + key() + (pure ? ", pure" : "") + (idempotent ? ", idempotent" : "") + "]";
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> copy(Map<String, ?> schema) {
        // a deep, immutable copy by a round trip: the caller's map may change later
        return schema == null ? null : java.util.Collections.unmodifiableMap(Json.parseObject(Json.write(schema)));
    }
}
