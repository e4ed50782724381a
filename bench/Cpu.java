import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where the machine's CPU went during a phase, from /proc: the server, the driver, the
 * PostgreSQL backends of the benchmark database, the rest of PostgreSQL, and everything else
 * (other work on the machine, pgbench, psql). In percent of one core, so 2 cores = 200%.
 */
final class Cpu {

    /** CPU ticks so far; PostgreSQL per backend, as backends come and go during a phase. */
    record Sample(long nanos, long server, long driver, Map<Long, Long> pgBench, Map<Long, Long> pgOther, long busy) {
    }

    private final long serverPid;
    private final String db;

    Cpu(long serverPid, String db) {
        this.serverPid = serverPid;
        this.db = db;
    }

    Sample sample() {
        Map<Long, Long> pgBench = new HashMap<>();
        Map<Long, Long> pgOther = new HashMap<>();
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).toList()) {
                String cmd = read(p.resolve("cmdline")).replace('\0', ' ');
                if (!cmd.startsWith("postgres")) {
                    continue;
                }
                long pid = Long.parseLong(p.getFileName().toString());
                (cmd.contains(" " + db + " ") ? pgBench : pgOther).put(pid, ticks(pid));
            }
        } catch (IOException e) {
            // a partial sample is still a sample
        }
        return new Sample(System.nanoTime(), ticks(serverPid), ticks(ProcessHandle.current().pid()), pgBench, pgOther,
                machineBusy());
    }

    /** "server 80%, driver 60%, postgres 50% (+5% other databases), rest 5%" over the interval. */
    static String share(Sample a, Sample b) {
        double seconds = (b.nanos() - a.nanos()) / 1e9;
        double server = pct(b.server() - a.server(), seconds);
        double driver = pct(b.driver() - a.driver(), seconds);
        double pg = pct(delta(a.pgBench(), b.pgBench()), seconds);
        double pgOther = pct(delta(a.pgOther(), b.pgOther()), seconds);
        double busy = pct(b.busy() - a.busy(), seconds);
        return String.format(Locale.ROOT,
                "CPU (%% of one core, machine has %d): server %.0f%%, postgres %.0f%% (+%.0f%% other postgres), "
                        + "driver %.0f%%, rest %.0f%%, idle %.0f%%",
                Runtime.getRuntime().availableProcessors(), server, pg, pgOther, driver,
                Math.max(0, busy - server - pg - pgOther - driver),
                Math.max(0, 100.0 * Runtime.getRuntime().availableProcessors() - busy));
    }

    /** Ticks spent between the samples by the processes alive at the second one. */
    private static long delta(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (var e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    private static double pct(long ticks, double seconds) {
        return ticks / 100.0 / seconds * 100; // USER_HZ is 100 on Linux
    }

    private static long ticks(long pid) {
        String stat = read(Path.of("/proc/" + pid + "/stat"));
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return 0;
        }
        String[] f = stat.substring(close + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
    }

    private static long machineBusy() {
        String[] f = read(Path.of("/proc/stat")).lines().findFirst().orElse("cpu 0 0 0 0 0").trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < Math.min(f.length, 9); i++) {
            total += Long.parseLong(f[i]);
        }
        return total - Long.parseLong(f[4]) - Long.parseLong(f[5]); // minus idle, iowait
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
