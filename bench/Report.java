import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The figures of one run, each beside its raw-SQL ceiling and its target, as one Markdown table. */
final class Report {

    double raw1 = Double.NaN;
    double raw50 = Double.NaN;
    double rawServerSequence = Double.NaN;
    /** The ceilings of issue 23: a queue library's minimal claim + complete, the raw single and 100-row inserts. */
    double rawMinimal = Double.NaN;
    double rawInsert1 = Double.NaN;
    double rawInsert100 = Double.NaN;
    /** PostgreSQL's CPU per job of the minimal claim + complete, in microseconds. */
    double rawMinimalPgUs = Double.NaN;
    String machine = "?";
    String loadBefore = "?";
    String loadAfter = "?";
    String vacuumNote;
    /** How the warm-up went (Bench.warmup); null when it did not run. */
    String warmupNote;
    long vacuumRuns;
    final List<String> failures = new ArrayList<>();
    Bench.Throughput e2e1;
    Bench.Throughput e2e50;
    /** One round trip per job, push + next (issue 23); null when not measured, with the reason in nextEndpoint. */
    Bench.Throughput e2eNext;
    /** Whether the server has POST /blackboard/job/next; null when phase e2e did not run. */
    Boolean nextEndpoint;
    Bench.Throughput sdkRawBefore;
    Bench.Throughput sdkRawAfter;
    Bench.SdkRun sdkJava;
    Bench.SdkRun sdkPython;
    boolean batchPushEndpoint;
    double enqueueSingle = Double.NaN;
    double enqueueBulk = Double.NaN;
    Latencies delivery;
    Latencies ping;
    long pingSkipped;
    double hotRatio = Double.NaN;
    String hotDetail = "";
    Latencies claimPlain;
    Latencies claimBacklog;
    double[] driftRates;
    Latencies driftPing;
    /** Launch to readiness, idle machine (issue 27): the plain jar, and the documented ahead-of-time start. */
    double startupPlainMs = Double.NaN;
    double startupAotMs = Double.NaN;
    double startupLoadedMs = Double.NaN;
    double rssEnd = Double.NaN;
    double rssParked = Double.NaN;
    long parkedEarly;

    private final List<String> rows = new ArrayList<>();

    String render(String mode) {
        rows.clear();
        double e2e1Rate = e2e1 == null ? Double.NaN : e2e1.rate();
        double e2e50Rate = e2e50 == null ? Double.NaN : e2e50.rate();
        // the targets of issue 23 stand against the minimal claim + complete; the best one-round-trip line is push + next
        row("claim + push, 1 job per poll, 8 workers (two requests per job)", jobs(e2e1Rate), jobs(raw1),
                ratio(e2e1Rate, raw1), "", "");
        row("(the same) against the minimal claim + complete of a queue library (claim1_minimal.sql: two"
                + " autocommitted statements, no audit rows)", jobs(e2e1Rate), jobs(rawMinimal),
                ratio(e2e1Rate, rawMinimal), "", "");
        double nextRate = e2eNext == null ? Double.NaN : e2eNext.rate();
        String nextLabel = "1 job at a time, 8 workers, one round trip per job (push + next: POST /blackboard/job/next,"
                + " limit 1), against the minimal claim + complete";
        if (e2eNext != null) {
            row(nextLabel, jobs(nextRate), jobs(rawMinimal), ratio(nextRate, rawMinimal), ">= 0.9x raw minimal",
                    verdict(nextRate / rawMinimal >= 0.9, nextRate, rawMinimal));
            row("(the same) against claim1.sql (the server's own claim and push statements)", jobs(nextRate),
                    jobs(raw1), ratio(nextRate, raw1), "", "");
            double serverUs = e2eNext.cpu().server() / e2eNext.jobs() * 1e6;
            double pgUs = e2eNext.cpu().pg() / e2eNext.jobs() * 1e6;
            row("server CPU per job, one round trip per job", us(serverUs), "", "", "<= 300 us",
                    verdict(serverUs <= 300, serverUs));
            row("PostgreSQL CPU per job, one round trip per job (raw: the minimal claim + complete's)", us(pgUs),
                    us(rawMinimalPgUs), ratio(pgUs, rawMinimalPgUs), "<= 1.2x raw",
                    verdict(pgUs / rawMinimalPgUs <= 1.2, pgUs, rawMinimalPgUs));
        } else {
            row(nextLabel, Boolean.FALSE.equals(nextEndpoint) ? "n/a (the server has no /blackboard/job/next)"
                    : "not run", "", "", ">= 0.9x raw minimal", "");
        }
        row("(reference) the server's statement sequence for 1 job, through pgbench, no HTTP", "", jobs(rawServerSequence),
                ratio(rawServerSequence, raw1), "", "");
        double before = sdkRawBefore == null ? Double.NaN : sdkRawBefore.rate();
        double after = sdkRawAfter == null ? Double.NaN : sdkRawAfter.rate();
        double around = sdkRawAround();
        row("(reference) the same 1-per-poll driver again, right before the SDKs", jobs(before), "",
                Double.isNaN(before) || Double.isNaN(e2e1Rate) ? "" : ratio(before, e2e1Rate) + " the 1-per-poll line",
                "", "");
        sdkRow("Java", sdkJava, around, e2e1Rate, 0.9);
        sdkRow("Python", sdkPython, around, e2e1Rate, 0.5);
        row("(reference) the same 1-per-poll driver again, right after the SDKs", jobs(after), "",
                Double.isNaN(after) || Double.isNaN(before) ? "" : ratio(after, before) + " the one before", "", "");
        row("claim + push, 50 per poll, 8 workers" + (e2e50 == null ? ""
                : batchPushEndpoint ? " (batch push)" : " (no batch push endpoint: 50 pushes in parallel)"),
                jobs(e2e50Rate), jobs(raw50), ratio(e2e50Rate, raw50), ">= 1.5x raw",
                verdict(e2e50Rate / raw50 >= 1.5, e2e50Rate, raw50));
        row("enqueue, 1 job per call, 16 clients (raw: insert1.sql, 1 row per autocommitted insert, 16 clients)",
                jobs(enqueueSingle), jobs(rawInsert1), ratio(enqueueSingle, rawInsert1), ">= 0.6x raw",
                verdict(enqueueSingle / rawInsert1 >= 0.6, enqueueSingle, rawInsert1));
        row("enqueue, bulk 1,000 per call, 4 clients (raw: insert100.sql, 100 rows per insert statement, 4 clients)",
                jobs(enqueueBulk), jobs(rawInsert100), ratio(enqueueBulk, rawInsert100), ">= 0.8x raw",
                verdict(enqueueBulk / rawInsert100 >= 0.8, enqueueBulk, rawInsert100));
        double p50 = pct(delivery, 50);
        double p99 = pct(delivery, 99);
        row("enqueue -> long-poll delivery p50", ms(p50), "", "", "< 5 ms", verdict(p50 < 5, p50));
        row("enqueue -> long-poll delivery p99", ms(p99), "", "", "< 20 ms", verdict(p99 < 20, p99));
        double pingP99 = pct(ping, 99);
        row("ping p99, 20,000 workers every 20 s" + (pingSkipped > 0 ? " (" + pingSkipped
                + " pings skipped: the previous one still out)" : ""), ms(pingP99), "", "", "< 10 ms", verdict(pingP99 < 10, pingP99));
        row("ping updates that are HOT", Double.isNaN(hotRatio) ? "not run"
                : "%.1f%% (%s)".formatted(100 * hotRatio, hotDetail), "", "", ">= 95%",
                verdict(hotRatio >= 0.95, hotRatio));
        double plain = pct(claimPlain, 99);
        double backlog = pct(claimBacklog, 99);
        row("claim (poll) p99, no backlog", ms(plain), "", "", "", "");
        row("claim (poll) p99, 1,000,000-job backlog elsewhere", ms(backlog), "", ratio(backlog, plain)
                + " of no backlog", "<= 1.2x", verdict(backlog / plain <= 1.2, backlog, plain));
        double drift = drift();
        row("throughput drift, steady mixed load after a warm-up" + (driftRates == null ? ""
                : ", " + driftSeries() + ("; trend of the windows (least squares) over the phase, as a share of"
                + " the mean (its standard error, from the windows' scatter about the line: %.1f%%); last window"
                + " against the first: %+.1f%%").formatted(100 * driftError(), 100 * endpointDrift())),
                Double.isNaN(drift) ? "not run" : "%+.1f%%".formatted(100 * drift), "", "", "< 10%",
                verdict(Math.abs(drift) < 0.10, drift));
        row("start-up, launch to readiness UP, idle: java -jar (the first start, which also migrates the new database)", ms(startupPlainMs), "", "", "", "");
        row("start-up, launch to readiness UP, idle: the ahead-of-time start (docs/operations.md)",
                ms(startupAotMs), "", "", "<= 3 s", verdict(startupAotMs <= 3000, startupAotMs));
        row("start-up, launch to readiness UP, under load: a second replica's ahead-of-time start while push + next"
                + " (8 workers) keeps the first server, PostgreSQL and the driver on the two cores",
                ms(startupLoadedMs), "", "", "<= 15 s", verdict(startupLoadedMs <= 15000, startupLoadedMs));
        row("server RSS at the end", mb(rssEnd), "", "", "", "");
        row("server RSS, 1,000 long polls parked" + (parkedEarly > 0 ? " (" + parkedEarly + " answered early)" : ""),
                mb(rssParked), "", "", "< 512 MB", verdict(rssParked < 512, rssParked));
        StringBuilder out = new StringBuilder();
        out.append("\nBlackboard benchmark (").append(mode).append(" mode)\n\n");
        out.append("Machine: ").append(machine).append('\n');
        out.append("Load average (1/5/15 min) before: ").append(loadBefore).append(", after: ").append(loadAfter)
                .append(" (other work on the machine competes for the same cores)\n");
        if (vacuumNote != null) {
            out.append("Vacuum: ").append(vacuumNote).append("; it ran ").append(vacuumRuns).append(" times\n");
        }
        if (warmupNote != null) {
            out.append("Warm-up: ").append(warmupNote).append('\n');
        }
        out.append('\n');
        out.append("| figure | Blackboard | raw SQL (pgbench, same run) | ratio | target | verdict |\n");
        out.append("|---|---:|---:|---:|---|---|\n");
        rows.forEach(r -> out.append(r).append('\n'));
        failures.forEach(f -> out.append("\nFAILED: ").append(f).append('\n'));
        if (e2e1 != null) {
            out.append("\n1 per poll: ").append(e2e1.cpu()).append(requestsPerJob(e2e1, "pushes")).append('\n');
        }
        if (e2eNext != null) {
            out.append("1 per round trip, push + next: ").append(e2eNext.cpu()).append(requestsPerJob(e2eNext, "push + next calls"))
                    .append('\n');
        }
        if (e2e50 != null) {
            out.append("50 per poll: ").append(e2e50.cpu()).append('\n');
        }
        for (Bench.SdkRun sdk : new Bench.SdkRun[] {sdkJava, sdkPython}) {
            if (sdk != null) {
                out.append("SDK, ").append(sdk.sdk()).append(": ").append(sdk.cpuLine());
                out.append(" (the raw driver: ").append(driverUs("before the SDKs", sdkRawBefore)).append(", ")
                        .append(driverUs("after", sdkRawAfter)).append(')');
                out.append('\n');
            }
        }
        if (driftPing != null) {
            out.append("\nDuring the mixed load, pings: ").append(driftPing.summary()).append('\n');
        }
        return out.toString();
    }

    /** The yardstick of the SDK line: the mean of the raw driver's runs before and after the SDKs (either alone). */
    double sdkRawAround() {
        double before = sdkRawBefore == null ? Double.NaN : sdkRawBefore.rate();
        double after = sdkRawAfter == null ? Double.NaN : sdkRawAfter.rate();
        return Double.isNaN(before) ? after : Double.isNaN(after) ? before : (before + after) / 2;
    }

    /** The workers' HTTP requests per job pushed: polls (empty ones too) and pushes, or push + next calls. */
    private static String requestsPerJob(Bench.Throughput t, String others) {
        return t.jobs() == 0 ? "" : String.format(Locale.ROOT, "; %.2f HTTP requests per job (%,d polls, %,d %s)",
                t.requestsPerJob(), t.polls().count(), t.requests() - t.polls().count(), others);
    }

    private static String driverUs(String when, Bench.Throughput t) {
        return t == null || t.jobs() == 0 ? when + " not run"
                : String.format(Locale.ROOT, "%s %.0f us/job", when, t.cpu().driver() / t.jobs() * 1e6);
    }

    /**
     * The SDK line: an SDK's 8 workers, 1 job per poll, against the raw driver's 8 simulated workers in the
     * same run, not against pgbench: the mean of its runs right before and right after the SDKs (a vacuumed
     * table, a server as warm as around the SDKs) when there are any, else phase e2e's line; the ratio to e2e's
     * line beside it.
     */
    private void sdkRow(String sdk, Bench.SdkRun run, double around, double e2e, double target) {
        double rate = run == null ? Double.NaN : run.rate();
        double yardstick = Double.isNaN(around) ? e2e : around;
        String verdict = run != null && Double.isNaN(yardstick) ? "no raw driver figure"
                : verdict(rate / yardstick >= target, rate, yardstick);
        String ratios = Double.isNaN(rate) || Double.isNaN(yardstick) ? ""
                : Double.isNaN(around) ? ratio(rate, e2e) + " the 1-per-poll line"
                : ratio(rate, around) + " the raw driver around it (" + jobs(around) + ", the mean of before and after)"
                        + (Double.isNaN(e2e) ? "" : "; " + ratio(rate, e2e) + " the 1-per-poll line");
        row("SDK, " + sdk + ", 8 workers, 1 per poll" + (run != null && run.left() == 0
                ? " (RAN DRY: a lower bound)" : ""), jobs(rate), "", ratios, ">= " + target + "x the raw driver",
                verdict);
    }

    /**
     * The trend of the windows: the least-squares line's change over the whole phase, as a share
     * of the mean rate. Unlike the last window against the first, one window slowed by a vacuum
     * run moves it by a tenth of what it moves the endpoints.
     */
    double drift() {
        Line line = line();
        return line == null || line.meanY() == 0 ? Double.NaN : line.slope() * driftRates.length / line.meanY();
    }

    /**
     * The standard error of {@link #drift()}: how far the trend of windows this scattered could be
     * from the true one. With ten windows it is about the windows' own scatter (1.1 times their
     * standard deviation about the line), so a machine whose windows spread by 10% cannot show a
     * 10% trend from none: the figure says which runs can.
     */
    double driftError() {
        Line line = line();
        if (line == null || driftRates.length < 3 || line.meanY() == 0) {
            return Double.NaN;
        }
        int n = driftRates.length;
        double residuals = 0;
        for (int i = 0; i < n; i++) {
            double off = driftRates[i] - (line.meanY() + line.slope() * (i - line.meanX()));
            residuals += off * off;
        }
        return Math.sqrt(residuals / (n - 2) / line.sxx()) * n / line.meanY();
    }

    /** The windows' least-squares line: window i's rate is about meanY + slope * (i - meanX). */
    private record Line(double meanX, double meanY, double sxx, double slope) {
    }

    private Line line() {
        if (driftRates == null || driftRates.length < 2) {
            return null;
        }
        int n = driftRates.length;
        double meanX = (n - 1) / 2.0;
        double meanY = 0;
        for (double r : driftRates) {
            meanY += r / n;
        }
        double sxy = 0;
        double sxx = 0;
        for (int i = 0; i < n; i++) {
            sxy += (i - meanX) * (driftRates[i] - meanY);
            sxx += (i - meanX) * (i - meanX);
        }
        return new Line(meanX, meanY, sxx, sxy / sxx);
    }

    /** The last window against the first, shown beside the trend. */
    double endpointDrift() {
        if (driftRates == null || driftRates.length < 2 || driftRates[0] == 0) {
            return Double.NaN;
        }
        return (driftRates[driftRates.length - 1] - driftRates[0]) / driftRates[0];
    }

    private String driftSeries() {
        StringBuilder s = new StringBuilder("jobs/s per window:");
        for (double r : driftRates) {
            s.append(' ').append(jobs(r).replace(" jobs/s", ""));
        }
        return s.toString();
    }

    private void row(String... cells) {
        rows.add("| " + String.join(" | ", cells) + " |");
    }

    private static double pct(Latencies l, double p) {
        return l == null ? Double.NaN : l.percentileMs(p);
    }

    private static String verdict(boolean pass, double... inputs) {
        for (double in : inputs) {
            if (Double.isNaN(in)) {
                return "not run";
            }
        }
        return pass ? "PASS" : "FAIL";
    }

    private static String jobs(double rate) {
        return Double.isNaN(rate) ? "not run" : String.format(Locale.ROOT, "%,.0f jobs/s", rate);
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "not run" : String.format(Locale.ROOT, "%.2f ms", v);
    }

    private static String us(double v) {
        return Double.isNaN(v) ? "not run" : String.format(Locale.ROOT, "%,.0f us", v);
    }

    private static String mb(double v) {
        return Double.isNaN(v) ? "not run" : String.format(Locale.ROOT, "%.0f MB", v);
    }

    private static String ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) ? "" : String.format(Locale.ROOT, "%.2fx", a / b);
    }
}
