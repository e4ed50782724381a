package io.blackboard.sdk;

/**
 * Throw from a handler to fail its job with an error code that the job's {@link RetryPolicy} can match, and to say
 * whether running it again could help. It is pushed as a FAILURE with the error any exception gets
 * ({@code type}, {@code message}, {@code stack}), plus {@code "code"} when one is given and
 * {@code "retryable": false} when it is not retryable (the server then never runs the job again, whatever its
 * retry policy).
 *
 * <pre>{@code
 * throw JobFailedException.nonRetryable("AUTH_FAILED", "the device rejected our credentials");
 * throw new JobFailedException("DEVICE_BUSY", "r1 is busy");                   // the policy may retry it
 * }</pre>
 */
public class JobFailedException extends BlackboardException {

    private final String code;
    private final boolean retryable;

    /** A retryable failure with this code (null for none). */
    public JobFailedException(String code, String message) {
        this(code, message, true, null);
    }

    public JobFailedException(String code, String message, boolean retryable) {
        this(code, message, retryable, null);
    }

    public JobFailedException(String code, String message, boolean retryable, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.retryable = retryable;
    }

    /** A failure no retry can mend: a bad credential, a configuration error. */
    public static JobFailedException nonRetryable(String code, String message) {
        return new JobFailedException(code, message, false, null);
    }

    /** The error code pushed as the error's {@code code}, matched by a policy's non-retryable errors; or null. */
    public String code() {
        return code;
    }

    /** False when the failure is final whatever the retry policy says. */
    public boolean retryable() {
        return retryable;
    }
}
