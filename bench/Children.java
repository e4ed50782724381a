import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Worker processes the driver starts (the SDK phase): their stdout read line by line (and kept in a log file,
 * with their stderr), their CPU from /proc, and a graceful stop: SIGTERM to each by its pid, then SIGKILL to
 * any still alive after the timeout. {@link #close()} kills whatever is left, so no process outlives its phase.
 */
final class Children implements AutoCloseable {

    record Line(int child, String text) {
    }

    /** How the stop went: seconds from the SIGTERMs to the last exit, each exit code, and whether any was killed. */
    record Stopped(double seconds, List<Integer> exitCodes, int killed) {
    }

    private final Path log;
    private final Writer out;
    private final List<Process> processes = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();
    private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
    private final List<Line> seen = new ArrayList<>();

    Children(Path log) throws IOException {
        this.log = log;
        Files.createDirectories(log.toAbsolutePath().getParent());
        this.out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    Path log() {
        return log;
    }

    /** Starts one process; answers its index. Its stderr goes to the log file as it is. */
    int start(List<String> command, Map<String, String> env) throws IOException {
        int index = processes.size();
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        write("# " + index + ": " + String.join(" ", command));
        Process p = pb.start();
        processes.add(p);
        Thread reader = Thread.ofPlatform().daemon().name("child-" + index + "-stdout").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String text; (text = r.readLine()) != null; ) {
                    write(index + "> " + text);
                    lines.add(new Line(index, text));
                }
            } catch (IOException e) {
                // the process is gone
            }
        });
        readers.add(reader);
        return index;
    }

    List<Long> pids() {
        return processes.stream().map(Process::pid).toList();
    }

    /** CPU ticks of all the processes so far (user + system, all threads), from /proc. */
    long cpuTicks() {
        long sum = 0;
        for (Process p : processes) {
            sum += Cpu.ticks(p.pid());
        }
        return sum;
    }

    /**
     * Waits for {@code n} stdout lines starting with {@code prefix}; fails on a line starting with "failed", on a
     * process that exits meanwhile, and after the timeout.
     */
    List<Line> await(String prefix, int n, Duration timeout) throws InterruptedException {
        List<Line> found = new ArrayList<>();
        long end = System.nanoTime() + timeout.toNanos();
        while (found.size() < n) {
            Line line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null) {
                seen.add(line);
                if (line.text().startsWith(prefix)) {
                    found.add(line);
                } else if (line.text().startsWith("failed")) {
                    throw new IllegalStateException("worker process " + line.child() + ": " + line.text() + " (see " + log + ")");
                }
                continue;
            }
            for (int i = 0; i < processes.size(); i++) {
                if (!processes.get(i).isAlive()) {
                    throw new IllegalStateException("worker process " + i + " exited with " + processes.get(i).exitValue()
                            + " before it was ready (see " + log + ")");
                }
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException("only " + found.size() + " of " + n + " workers ready after "
                        + timeout.toSeconds() + " s (see " + log + ")");
            }
        }
        return found;
    }

    /** SIGTERM to each process (by its pid), all at once; waits up to {@code timeout} for all, then SIGKILL. */
    Stopped stop(Duration timeout) throws InterruptedException {
        long t0 = System.nanoTime();
        // SIGTERM on Linux; through the handle, as Process.destroy() also closes our end of their stdout
        processes.forEach(p -> p.toHandle().destroy());
        long end = t0 + timeout.toNanos();
        int killed = 0;
        List<Integer> codes = new ArrayList<>();
        for (Process p : processes) {
            if (!p.waitFor(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                killed++;
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        for (Process p : processes) {
            codes.add(p.isAlive() ? null : p.exitValue());
        }
        for (Thread reader : readers) {
            reader.join(5000);
        }
        lines.drainTo(seen);
        flush();
        return new Stopped(seconds, codes, killed);
    }

    /** Every stdout line read so far that starts with {@code prefix}. */
    List<String> linesStartingWith(String prefix) {
        lines.drainTo(seen);
        return seen.stream().map(Line::text).filter(t -> t.startsWith(prefix)).toList();
    }

    private static final Pattern COUNTER = Pattern.compile("'?(\\w+)'?(?:=|: )(\\d+)");

    /** The workers' own counters, summed over their {@code stats} lines (Java's WorkerStats, Python's dict). */
    Map<String, Long> stats() {
        Map<String, Long> sums = new TreeMap<>();
        for (String line : linesStartingWith("stats")) {
            Matcher m = COUNTER.matcher(line);
            while (m.find()) {
                sums.merge(m.group(1), Long.parseLong(m.group(2)), Long::sum);
            }
        }
        return sums;
    }

    @Override
    public void close() {
        for (Process p : processes) {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            out.close();
        } catch (IOException e) {
            // the log is an aid only
        }
    }

    private synchronized void write(String text) {
        try {
            out.write(text);
            out.write('\n');
        } catch (IOException e) {
            // the log is an aid only
        }
    }

    private synchronized void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            // the log is an aid only
        }
    }
}
