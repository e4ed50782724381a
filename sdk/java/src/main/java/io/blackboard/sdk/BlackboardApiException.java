package io.blackboard.sdk;

import java.util.Map;

/** A call of {@link BlackboardEngine} answered with an error: its status and RFC 9457 problem. */
public class BlackboardApiException extends BlackboardException {

    private final int status;
    private final Map<String, Object> problem;

    public BlackboardApiException(int status, Map<String, Object> problem, String message) {
        super(message);
        this.status = status;
        this.problem = Map.copyOf(problem);
    }

    public int status() {
        return status;
    }

    /** The problem's {@code type}, such as {@code /problems/schema-violation}; null when the body was none. */
    public String problemType() {
        Object type = problem.get("type");
        return type == null ? null : type.toString();
    }

    /** The whole problem document ({@code detail}, {@code violations}, ...); empty when the body was none. */
    public Map<String, Object> problem() {
        return problem;
    }
}
