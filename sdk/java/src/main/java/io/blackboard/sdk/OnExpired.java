package io.blackboard.sdk;

/**
 * What the worker does when the server no longer knows it (404, or 401 on a call with the worker's own token):
 * the operator deleted it, or it was OFFLINE for a day. The jobs it held are gone either way (failed, or
 * re-queued where safe, by the server); their cancel flags are set and nothing is pushed for them.
 */
public enum OnExpired {
    /** Register again (a new id and token, the function blocks again) and carry on. The default. */
    REREGISTER,
    /** Stop: {@code run()} returns {@link StopReason#EXPIRED}, for a supervisor to restart the process. */
    EXIT
}
