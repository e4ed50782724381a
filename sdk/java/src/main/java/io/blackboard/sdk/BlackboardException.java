package io.blackboard.sdk;

/** The root of the SDK's exceptions. */
public class BlackboardException extends RuntimeException {

    public BlackboardException(String message) {
        super(message);
    }

    public BlackboardException(String message, Throwable cause) {
        super(message, cause);
    }
}
