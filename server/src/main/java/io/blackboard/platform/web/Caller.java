package io.blackboard.platform.web;

import io.blackboard.platform.errors.ApiException;
import io.blackboard.platform.sql.ConnectionDeadline;
import io.micrometer.core.instrument.Counter;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.coyote.ActionCode;
import org.apache.coyote.Request;
import org.springframework.http.HttpStatus;
import org.springframework.lang.Nullable;

/**
 * The client of the request in progress, as far as the server can tell: when it stops waiting
 * for the answer (its deadline, from the {@value #TIMEOUT_HEADER} header), whether its
 * connection is still open, and what to undo when the answer does not reach it. One per request,
 * used by the request's own thread, but for {@link #requireBefore}, which a transaction shared
 * with other requests' work may run on its own thread. Deadlines are on this JVM's monotonic clock
 * ({@link System#nanoTime()}): they never leave the replica.
 */
public final class Caller {

    /** The milliseconds the client will still wait for the answer, counted from sending the request. */
    public static final String TIMEOUT_HEADER = "Blackboard-Timeout-Ms";
    /** No deadline at all: a year. */
    public static final Duration NO_DEADLINE = Duration.ofDays(365);
    static final String ATTRIBUTE = Caller.class.getName();
    /** How a refusal at the first database connection says where the time went. */
    static final String WAITED_FOR_CONNECTION = " (it waited for a database connection)";

    private final long arrival;
    private final long budget;
    @Nullable
    private final Request connection;
    @Nullable
    private final Counters counters;
    private final List<Runnable> undelivered = new ArrayList<>(1);
    /** Whether this request is counted as abandoned already (a shared batch's thread may count it). */
    private final AtomicBoolean counted = new AtomicBoolean();

    /** What the callers of this replica abandoned, by reason. */
    record Counters(Counter deadline, Counter disconnected) {
    }

    Caller(long arrival, long budget, @Nullable Request connection, @Nullable Counters counters) {
        this.arrival = arrival;
        this.budget = budget;
        this.connection = connection;
        this.counters = counters;
    }

    /** The request's caller; outside a filtered request (a mock request), one without deadline or probe. */
    public static Caller of(HttpServletRequest request) {
        return request.getAttribute(ATTRIBUTE) instanceof Caller caller ? caller
                : new Caller(System.nanoTime(), -1, null, null);
    }

    /** When the request reached this replica, in {@link System#nanoTime()}. */
    public long arrival() {
        return arrival;
    }

    /**
     * When the client stops waiting, in {@link System#nanoTime()}: as its header says, or
     * {@code ifNoHeader} after arrival.
     */
    public long deadline(Duration ifNoHeader) {
        return arrival + (budget >= 0 ? budget : ifNoHeader.toNanos());
    }

    /** Whether the client sent its deadline. */
    public boolean sentDeadline() {
        return budget >= 0;
    }

    /** Whether {@code deadline} (from {@link #deadline}) is still ahead. */
    public static boolean before(long deadline) {
        return deadline - System.nanoTime() > 0;
    }

    /** Refuses the request, counted, when {@code deadline} has passed: nothing must be done for it. */
    public void requireBefore(long deadline) {
        requireBefore(deadline, "");
    }

    private void requireBefore(long deadline, String where) {
        if (!before(deadline)) {
            count(true);
            throw new AnswerUnwanted("deadline-passed", "The client's deadline (" + TIMEOUT_HEADER + ") passed "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deadline) + " ms before the work could start"
                    + where + "; nothing was done");
        }
    }

    /**
     * Refuses the request, counted, when its deadline passed or its client closed the connection;
     * and, where the client sent its deadline, refuses it in the same way if that passes while it
     * waits for its first database connection ({@link ConnectionDeadline}).
     */
    public void requireWaiting() {
        long deadline = deadline(NO_DEADLINE);
        requireBefore(deadline);
        if (gone()) {
            throw new AnswerUnwanted("client-gone", "The client closed its connection before the work could "
                    + "start; nothing was done");
        }
        if (sentDeadline()) {
            refuseAtConnectionAfter(deadline);
        }
    }

    /**
     * Refuses the work this thread starts next, in the same way as {@link #requireBefore}, if
     * {@code deadline} has passed when it gets its first database connection, or the shared batch
     * that takes it over gets one ({@link ConnectionDeadline}): then nothing is done for it.
     */
    public void refuseAtConnectionAfter(long deadline) {
        ConnectionDeadline.beforeFirstConnection(new ConnectionDeadline.Armed(() -> !before(deadline),
                () -> requireBefore(deadline, WAITED_FOR_CONNECTION)));
    }

    /**
     * Whether the client can no longer receive the answer: its connection has failed, or it closed
     * its side. Asks Tomcat for a non-blocking read of the socket once the request body has been
     * read: an end of stream or a read error shows there as available input (Http11InputBuffer),
     * and a client that waits for its answer sends nothing more. A client pipelining its next
     * request looks gone too; none of the SDKs does, and the cost is a poll answered empty.
     * Counted when true. False when it cannot tell (no Tomcat connection, body not fully read).
     */
    public boolean gone() {
        if (connection == null) {
            return false;
        }
        AtomicBoolean flag = new AtomicBoolean(true);
        connection.action(ActionCode.IS_IO_ALLOWED, flag);
        boolean gone = !flag.get();
        if (!gone) {
            flag.set(false);
            connection.action(ActionCode.REQUEST_BODY_FULLY_READ, flag);
            if (!flag.get()) {
                return false;
            }
            connection.action(ActionCode.AVAILABLE, Boolean.TRUE);
            gone = connection.getAvailable() > 0;
        }
        if (gone) {
            count(false);
        }
        return gone;
    }

    /**
     * Runs {@code undo} if the answer turns out not to have been delivered: its writing failed.
     * Never after an answer written in full.
     */
    public void onUndelivered(Runnable undo) {
        undelivered.add(undo);
    }

    List<Runnable> undelivered() {
        return undelivered;
    }

    /** Whether the connection refuses further I/O: a write of the answer failed. */
    boolean failed() {
        if (connection == null) {
            return false;
        }
        AtomicBoolean allowed = new AtomicBoolean(true);
        connection.action(ActionCode.IS_IO_ALLOWED, allowed);
        return !allowed.get();
    }

    /**
     * Counts the request as abandoned, once: a refusal that is made again (a shared batch undone by
     * it, and each of its requests run again alone) is still one request the server did no work for.
     */
    private void count(boolean deadline) {
        if (counters != null && counted.compareAndSet(false, true)) {
            (deadline ? counters.deadline() : counters.disconnected()).increment();
        }
    }

    /** The client cannot use an answer any more: 503 with {@code Retry-After}, nothing done. */
    public static final class AnswerUnwanted extends ApiException {

        AnswerUnwanted(String kind, String detail) {
            super(HttpStatus.SERVICE_UNAVAILABLE, kind, detail, Map.of(), Map.of("Retry-After", "1"));
        }
    }
}
