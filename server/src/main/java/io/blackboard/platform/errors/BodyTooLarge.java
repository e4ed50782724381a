package io.blackboard.platform.errors;

import java.io.IOException;

/** A request body over the configured bound, found while reading it: answered 413 by {@link ProblemHandler}. */
public final class BodyTooLarge extends IOException {

    public BodyTooLarge(long max) {
        super("The request body is larger than " + max + " bytes");
    }
}
