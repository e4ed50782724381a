import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
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

    /** CPU seconds spent in an interval, by whom; {@code busy} is the whole machine's. */
    record Usage(double seconds, double server, double pg, double pgOther, double driver, double busy) {

        double rest() {
            return Math.max(0, busy - server - pg - pgOther - driver);
        }

        @Override
        public String toString() {
            int cores = Runtime.getRuntime().availableProcessors();
            return String.format(Locale.ROOT, "CPU (%% of one core, %d cores): server %.0f%%, postgres %.0f%% "
                    + "(+%.0f%% other databases), driver %.0f%%, rest of the machine %.0f%%, idle %.0f%%", cores,
                    pct(server), pct(pg), pct(pgOther), pct(driver), pct(rest()), Math.max(0, 100.0 * cores - pct(busy)));
        }

        /** CPU microseconds per unit of work (a job, a request) in the server and in PostgreSQL. */
        String per(long units, String unit) {
            return units == 0 ? "" : String.format(Locale.ROOT, "server %.0f us/%s, postgres %.0f us/%s",
                    server / units * 1e6, unit, pg / units * 1e6, unit);
        }

        private double pct(double cpuSeconds) {
            return 100 * cpuSeconds / seconds;
        }
    }

    static Usage between(Sample a, Sample b) {
        return new Usage((b.nanos() - a.nanos()) / 1e9, sec(b.server() - a.server()),
                sec(delta(a.pgBench(), b.pgBench())), sec(delta(a.pgOther(), b.pgOther())),
                sec(b.driver() - a.driver()), sec(b.busy() - a.busy()));
    }

    /**
     * Like {@link #between}, for a phase whose backends end with it (pgbench): each backend's
     * CPU is its last value seen in any sample, and the interval ends at the last sample that
     * still saw the benchmark database's backends.
     */
    static Usage across(Sample first, List<Sample> samples) {
        Map<Long, Long> pg = new HashMap<>(first.pgBench());
        Sample end = first;
        for (Sample s : samples) {
            if (!s.pgBench().isEmpty() && s.pgBench().size() >= first.pgBench().size()) {
                pg.putAll(s.pgBench());
                end = s;
            }
        }
        Usage u = between(first, end);
        return new Usage(u.seconds(), u.server(), sec(delta(first.pgBench(), pg)), u.pgOther(), u.driver(), u.busy());
    }

    private static double sec(long ticks) {
        return ticks / 100.0; // USER_HZ is 100 on Linux
    }

    /** Ticks spent between the samples by the processes alive at the second one. */
    private static long delta(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (var e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    /** CPU ticks (user + system, all threads) of one process so far; 0 when it is gone. */
    static long ticks(long pid) {
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
