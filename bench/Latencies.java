import java.util.Arrays;

/** Recorded durations (nanoseconds), with percentiles in milliseconds. */
final class Latencies {

    private long[] values = new long[1024];
    private int size;

    synchronized void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    synchronized int count() {
        return size;
    }

    /** The p-th percentile (0..100) in ms, nearest rank; NaN when nothing was recorded. */
    synchronized double percentileMs(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))] / 1e6;
    }

    String summary() {
        return "n=%d p50=%.2fms p90=%.2fms p99=%.2fms max=%.2fms".formatted(count(), percentileMs(50),
                percentileMs(90), percentileMs(99), percentileMs(100));
    }
}
