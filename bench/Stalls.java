import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The driver's own stalls, so that a latency tail is not blamed on the server when the driver
 * caused it. Records every pause of the driver's garbage collector on the
 * {@code System.nanoTime()} clock; a phase then asks how many of its slow requests were in
 * flight during one. A ping's latency counts from the moment it was due, so a driver pause
 * delays every ping due during it.
 */
final class Stalls {

    record Pause(long startNanos, long endNanos) {
    }

    /** A request that was due at {@code dueNanos} and answered {@code latencyNanos} later. */
    record Slow(long dueNanos, long latencyNanos) {
    }

    private final List<Pause> pauses = new ArrayList<>();
    /** Where the JVM's uptime clock, which the collector's notifications use, starts on nanoTime's. */
    private final long jvmStartNanos =
            System.nanoTime() - ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L;

    static Stalls listening() {
        Stalls stalls = new Stalls();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter && !gc.getName().contains("Cycles")) { // ZGC's cycles run concurrently
                emitter.addNotificationListener((notification, handback) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                        var info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
                        stalls.add(info.getGcInfo().getStartTime(), info.getGcInfo().getDuration());
                    }
                }, null, null);
            }
        }
        return stalls;
    }

    private synchronized void add(long startMs, long durationMs) {
        long start = jvmStartNanos + startMs * 1_000_000L;
        pauses.add(new Pause(start, start + Math.max(1, durationMs) * 1_000_000L));
    }

    /** The driver's pauses between the two instants, and how many of {@code slow} overlapped one. */
    synchronized String summary(List<Slow> slow, double thresholdMs, long fromNanos, long toNanos) {
        List<Pause> inPhase = pauses.stream().filter(p -> p.endNanos() >= fromNanos && p.startNanos() <= toNanos).toList();
        long overlapping = slow.stream().filter(s -> inPhase.stream()
                .anyMatch(p -> p.startNanos() <= s.dueNanos() + s.latencyNanos() && p.endNanos() >= s.dueNanos()))
                .count();
        long max = inPhase.stream().mapToLong(p -> p.endNanos() - p.startNanos()).max().orElse(0);
        long total = inPhase.stream().mapToLong(p -> p.endNanos() - p.startNanos()).sum();
        return String.format(Locale.ROOT, "over %.0f ms: %d, of which %d in flight during a pause of the driver's own"
                + " collector (%d pauses, max %.0f ms, total %.0f ms)", thresholdMs, slow.size(), overlapping,
                inPhase.size(), max / 1e6, total / 1e6);
    }
}
