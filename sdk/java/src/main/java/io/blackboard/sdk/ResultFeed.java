package io.blackboard.sdk;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Follows the result feed from a cursor with long polls, one result at a time, never missing one. Made by
 * {@link BlackboardEngine#followResults(String)}. As an {@link Iterator} (or {@link #stream()}) it never
 * ends: {@code next()} waits for the next result. {@link #poll(Duration)} waits a bounded time. Not
 * thread-safe: one consumer.
 *
 * <p>{@link #cursor()} is where to resume after a restart: reading on from it repeats nothing already
 * returned once the current page is used up, and may repeat results of the current page before that
 * (at-least-once; the page's {@code next} is not per result).
 */
public final class ResultFeed implements Iterator<Job> {

    private static final Duration LONGEST_WAIT = Duration.ofSeconds(30);

    private final BlackboardEngine engine;
    private final int limit;
    private final Deque<Job> buffer = new ArrayDeque<>();
    private String pageStart;
    private String next;

    ResultFeed(BlackboardEngine engine, String after, int limit) {
        this.engine = engine;
        this.limit = limit;
        this.pageStart = after;
        this.next = after;
    }

    /** The next result, waiting up to the timeout for it; empty if none came. */
    public Optional<Job> poll(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (buffer.isEmpty()) {
            long left = end - System.nanoTime();
            if (left <= 0 && !timeout.isZero()) {
                return Optional.empty();
            }
            Duration wait = Duration.ofNanos(Math.max(0, left));
            ResultPage page = engine.results(next, limit, wait.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait);
            pageStart = next;
            next = page.next();
            buffer.addAll(page.results());
            if (timeout.isZero() && buffer.isEmpty()) {
                return Optional.empty();
            }
        }
        return Optional.of(buffer.poll());
    }

    /** Always true: the feed has no end. */
    @Override
    public boolean hasNext() {
        return true;
    }

    /** The next result, waiting as long as it takes. */
    @Override
    public Job next() {
        while (true) {
            Optional<Job> job = poll(LONGEST_WAIT);
            if (job.isPresent()) {
                return job.get();
            }
        }
    }

    /** The results as an endless stream; use {@code limit} or {@code takeWhile}. */
    public Stream<Job> stream() {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(this, Spliterator.ORDERED), false);
    }

    /** Where to resume from (see the class comment). */
    public String cursor() {
        return buffer.isEmpty() ? next : pageStart;
    }
}
