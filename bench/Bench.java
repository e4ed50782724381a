import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The benchmark driver behind bench/run.sh: simulated workers and an engine over HTTP against
 * a running server, the raw-SQL ceiling with pgbench on the same database, and one table.
 * Every phase is bounded in time and count. JDK only: {@code java bench/Bench.java --help}.
 */
public class Bench {

    /** How long each phase runs. Quick is for development; full is what BENCHMARKS.md shows. */
    record Mode(String name, int warmupSec, int warmupMaxSec, int pgbenchSec, int e2eSec, int enqueueSec, int latencySamples,
            int claimSec, int backlog, int pingWorkers, int pingSec, int driftWarmupSec, int driftSec,
            int driftWindows, int parkedPolls) {
    }

    static final Mode QUICK = new Mode("quick", 6, 30, 5, 8, 5, 300, 6, 1_000_000, 20_000, 20, 5, 30, 6, 1000);
    static final Mode FULL = new Mode("full", 20, 240, 20, 30, 20, 2000, 20, 1_000_000, 20_000, 60, 300, 600, 10, 1000);

    static final int WORKERS = 8;
    /** The load the restart phase's replica starts under: long enough for a start that takes 15 s and more. */
    static final int RESTART_LOAD_SEC = 40;
    static final int BATCH = 50;
    static final int PING_INTERVAL_SEC = 20;
    static final Duration LONG_POLL_TIMEOUT = Duration.ofSeconds(45);
    static final Duration PING_TIMEOUT = Duration.ofSeconds(10);
    /** Synthetic ids for SQL-inserted rows: far from the server's time-ordered ones. */
    static final long SYNTHETIC_BASE = 0x1000_0000_0000_0000L;

    interface Phase {
        void run() throws Exception;
    }

    record Worker(String id, String token) {
    }

    /** {@code requests}: every HTTP request the workers sent in the window, polls and pushes alike. */
    record Throughput(long jobs, double seconds, Latencies polls, Latencies pushes, long errors, long empty,
            Cpu.Usage cpu, long requests) {

        double rate() {
            return jobs / seconds;
        }

        double requestsPerJob() {
            return jobs == 0 ? Double.NaN : requests / (double) jobs;
        }
    }

    final Mode mode;
    final Http http;
    final Sql sql;
    final Path benchDir;
    final long serverPid;
    final Cpu cpu;
    final Set<String> phases;
    final boolean noVacuum;
    final AtomicLong vacuumRuns = new AtomicLong();
    final Map<String, String> blocks = new LinkedHashMap<>();
    final Report report = new Report();
    final AtomicLong synthetic = new AtomicLong(SYNTHETIC_BASE);
    final Stalls stalls = Stalls.listening();
    boolean batchPushEndpoint;
    /** POST /blackboard/job/next (issue 23): push results and claim the next jobs in one round trip. */
    boolean nextEndpoint;
    List<String> idleWorkers = List.of();
    final List<Worker> heartbeats = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The SDK phase: where its worker processes log, the Java SDK's jar, the Python to run the Python SDK with. */
    Path logDir = Path.of("target/bench");
    Path sdkJar = Path.of("sdk/java/target/blackboard-sdk-0.1.0-SNAPSHOT.jar");
    String python = "/usr/bin/python3";
    /** run.sh's script that starts a second replica the ahead-of-time way and prints its ms to readiness. */
    String replicaScript;

    Bench(Mode mode, Http http, Sql sql, Path benchDir, long serverPid, Set<String> phases, boolean noVacuum) {
        this.noVacuum = noVacuum;
        this.mode = mode;
        this.http = http;
        this.sql = sql;
        this.benchDir = benchDir;
        this.serverPid = serverPid;
        this.phases = phases;
        this.cpu = new Cpu(serverPid, sql.db());
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = options(args);
        Mode mode = override("full".equals(opt.getOrDefault("mode", "quick")) ? FULL : QUICK, opt.get("set"));
        Http http = new Http(opt.getOrDefault("url", "http://127.0.0.1:8080"), opt.getOrDefault("token", "bench"));
        Sql sql = new Sql(opt.getOrDefault("pg-host", "127.0.0.1"), opt.getOrDefault("pg-port", "5432"),
                opt.getOrDefault("pg-user", "postgres"), opt.get("db"));
        Set<String> phases = Set.of(opt.getOrDefault("phases",
                "warmup,pgbench,e2e,restart,sdk,batch,claim,enqueue,latency,backlog,ping,drift,rss").split(","));
        Bench bench = new Bench(mode, http, sql, Path.of(opt.getOrDefault("bench-dir", "bench")),
                Long.parseLong(opt.getOrDefault("server-pid", "0")), phases, opt.containsKey("no-vacuum"));
        bench.logDir = Path.of(opt.getOrDefault("log-dir", bench.logDir.toString()));
        bench.sdkJar = Path.of(opt.getOrDefault("sdk-jar", bench.sdkJar.toString()));
        bench.python = opt.getOrDefault("python", bench.python);
        bench.report.startupPlainMs = Double.parseDouble(opt.getOrDefault("startup-plain-ms", "NaN"));
        bench.report.startupAotMs = Double.parseDouble(opt.getOrDefault("startup-aot-ms", "NaN"));
        bench.replicaScript = opt.get("replica-script");
        Duration budget = budget(mode);
        Thread watchdog = Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(budget.toMillis());
                System.err.println("bench: over its time budget (" + budget + "), giving up");
                System.exit(3);
            } catch (InterruptedException e) {
                // finished in time
            }
        });
        bench.run();
        String table = bench.report.render(mode.name());
        System.out.println(table);
        if (opt.containsKey("out")) {
            Files.writeString(Path.of(opt.get("out")), table);
        }
        watchdog.interrupt();
        System.exit(0);
    }

    void run() throws Exception {
        setup();
        report.machine = machine();
        Thread.ofPlatform().daemon().name("heartbeat").start(this::heartbeat);
        report.loadBefore = loadAverage();
        if (!noVacuum && "off".equals(sql.run("show autovacuum"))) {
            report.vacuumNote = "autovacuum is off on this cluster; the driver stands in for it (checks every 60 s, "
                    + "VACUUM ANALYZE past the dead-row and inserted-row thresholds, ANALYZE past the changed-row "
                    + "one, at the table's cost limit and delay, by default 200 / 2 ms)";
            Thread.ofPlatform().daemon().name("autovacuum-stand-in").start(this::autovacuumStandIn);
        }
        List<Map.Entry<String, Phase>> plan = List.of(
                Map.entry("warmup", this::warmup),
                Map.entry("pgbench", this::ceiling),
                Map.entry("e2e", this::endToEnd),
                Map.entry("restart", this::restartUnderLoad),
                Map.entry("sdk", this::sdk),
                Map.entry("batch", this::batched),
                Map.entry("claim", () -> report.claimPlain = claimLatency("claim, no backlog")),
                Map.entry("enqueue", this::enqueue),
                Map.entry("latency", this::longPollLatency),
                Map.entry("backlog", () -> {
                    backlog();
                    report.claimBacklog = claimLatency("claim, 1M backlog");
                    dropBacklog();
                }),
                Map.entry("ping", this::ping),
                Map.entry("drift", this::drift),
                Map.entry("rss", this::rss));
        for (var phase : plan) {
            if (!phases.contains(phase.getKey())) {
                continue;
            }
            try {
                phase.getValue().run();
            } catch (Exception e) {
                report.failures.add(phase.getKey() + ": " + e);
                log("phase %s failed: %s", phase.getKey(), e);
            }
            if (serverPid > 0 && ProcessHandle.of(serverPid).map(ProcessHandle::isAlive).orElse(false) == false) {
                report.failures.add("the server process " + serverPid + " is gone after phase " + phase.getKey()
                        + "; the table is partial (see the server log)");
                log("the server process is gone; stopping");
                break;
            }
        }
        report.loadAfter = loadAverage();
        report.vacuumRuns = vacuumRuns.get();
    }

    /**
     * What autovacuum would do with PostgreSQL's defaults (naptime 1 min, cost limit 200, cost
     * delay 2 ms, its vacuum, insert and analyze thresholds) and the tables' own settings (scale
     * factors, cost limit and delay from the migrations' reloptions), for a cluster that runs
     * without it. Without it the dead index entries left by claimed jobs pile up and every claim
     * walks them; without its ANALYZE a table recorded empty stays so for the planner as it fills.
     */
    void autovacuumStandIn() {
        while (true) {
            sleepMs(60_000);
            try {
                for (String row : sql.run("""
                        select s.relname, coalesce(o.cost_limit, '200'), coalesce(o.cost_delay, '2'),
                               case when s.n_dead_tup > 50 + coalesce(o.scale::float, 0.2) * t.n
                                      or s.n_ins_since_vacuum > 1000 + coalesce(o.insert_scale::float, 0.2) * t.n
                                    then 'vacuum (analyze)' else 'analyze' end
                          from pg_stat_user_tables s join pg_class c on c.oid = s.relid
                         cross join lateral (select greatest(c.reltuples, 0) as n) t
                         cross join lateral (
                             select max(split_part(x, '=', 2)) filter (where x like 'autovacuum_vacuum_cost_limit=%') cost_limit,
                                    max(split_part(x, '=', 2)) filter (where x like 'autovacuum_vacuum_cost_delay=%') cost_delay,
                                    max(split_part(x, '=', 2)) filter (where x like 'autovacuum_vacuum_scale_factor=%') scale,
                                    max(split_part(x, '=', 2)) filter (where x like 'autovacuum_vacuum_insert_scale_factor=%') insert_scale,
                                    max(split_part(x, '=', 2)) filter (where x like 'autovacuum_analyze_scale_factor=%') analyze_scale
                               from unnest(coalesce(c.reloptions, '{}')) x) o
                         where s.relname in ('job', 'job_event', 'worker', 'worker_function_block')
                           and (s.n_dead_tup > 50 + coalesce(o.scale::float, 0.2) * t.n
                                or s.n_ins_since_vacuum > 1000 + coalesce(o.insert_scale::float, 0.2) * t.n
                                or s.n_mod_since_analyze > 50 + coalesce(o.analyze_scale::float, 0.1) * t.n)
                        """)
                        .lines().filter(l -> !l.isBlank()).toList()) {
                    String[] table = row.split("\\|");
                    long t0 = System.nanoTime();
                    sql.run("set vacuum_cost_limit = " + table[1], "set vacuum_cost_delay = '" + table[2] + "ms'",
                            table[3] + " " + table[0]);
                    vacuumRuns.incrementAndGet();
                    log("autovacuum stand-in: %s %s (cost limit %s, delay %s ms) took %.1f s", table[3], table[0],
                            table[1], table[2], (System.nanoTime() - t0) / 1e9);
                }
            } catch (RuntimeException e) {
                log("autovacuum stand-in: %s", e.getMessage());
            }
        }
    }

    String machine() {
        String cpuModel = read("/proc/cpuinfo").lines().filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("?");
        long memKb = read("/proc/meminfo").lines().filter(l -> l.startsWith("MemTotal"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElse(0L);
        return "%d cores (%s), %.0f GiB; PostgreSQL %s (shared_buffers %s, synchronous_commit %s, autovacuum %s); %s %s"
                .formatted(Runtime.getRuntime().availableProcessors(), cpuModel, memKb / 1048576.0,
                        sql.run("show server_version"), sql.run("show shared_buffers"),
                        sql.run("show synchronous_commit"), sql.run("show autovacuum"),
                        System.getProperty("java.vm.name"), System.getProperty("java.version"));
    }

    static String loadAverage() {
        String[] f = read("/proc/loadavg").split(" ");
        return f.length < 3 ? "?" : f[0] + " " + f[1] + " " + f[2];
    }

    static String read(String path) {
        try {
            return Files.readString(Path.of(path));
        } catch (java.io.IOException e) {
            return "";
        }
    }

    // ---------------------------------------------------------------- setup

    void setup() {
        Worker setup = register("bench-setup", 1);
        blocks.putAll(registerBlocks(setup, "bench.e2e", "bench.raw", "bench.latency", "bench.backlog",
                "bench.idle", "bench.enqueue", "bench.mixed"));
        // the workers of claim1_server_sequence.sql: pgbench client n is worker lpad(n, 32, '0')
        sql.run("""
                insert into worker (id, name, concurrency)
                select cast(lpad(i::text, 32, '0') as uuid), 'bench-pgbench-' || i, 1000 from generate_series(0, %1$d) i
                """.formatted(WORKERS - 1), """
                insert into worker_function_block (worker_id, function_block_id)
                select cast(lpad(i::text, 32, '0') as uuid), '%2$s' from generate_series(0, %1$d) i
                """.formatted(WORKERS - 1, blocks.get("bench.raw")));
        // the backlog's block must be one no worker serves
        require(http.delete("/workers/" + setup.id()), "delete setup worker");
        Http.Response probe = http.post("/blackboard/job/results", "[]");
        batchPushEndpoint = probe.status() != 404;
        // no workerId: the endpoint answers 400; a server without it, 404 (no other mapping matches the path)
        Http.Response next = http.post("/blackboard/job/next", "{}");
        nextEndpoint = next.status() != 404 && next.status() != 405;
        log("setup: function blocks %s; batch push endpoint %s; push + next endpoint %s", blocks.keySet(),
                batchPushEndpoint ? "present (" + probe.status() + ")" : "absent (404)",
                nextEndpoint ? "present (" + next.status() + ")" : "absent (" + next.status() + ")");
    }

    Worker register(String name, int concurrency) {
        Http.Response r = require(http.post("/workers/register",
                "{\"name\":%s,\"concurrency\":%d}".formatted(Json.quote(name), concurrency)), "register");
        return new Worker(Json.id(r.body()), Json.token(r.body()));
    }

    Map<String, String> registerBlocks(Worker worker, String... names) {
        StringBuilder body = new StringBuilder("{\"workerId\":\"" + worker.id() + "\",\"functionBlocks\":[");
        for (int i = 0; i < names.length; i++) {
            body.append(i == 0 ? "" : ",").append("{\"name\":\"").append(names[i]).append("\",\"version\":\"1\"}");
        }
        Http.Response r = require(http.post("/function-blocks/register", body.append("]}").toString(), worker.token(),
                Http.TIMEOUT), "register function blocks");
        return Json.blocks(r.body());
    }

    List<Worker> workers(int n, String name, int concurrency, String block) {
        List<Worker> workers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Worker w = register(name + "-" + i, concurrency);
            registerBlocks(w, block);
            workers.add(w);
        }
        heartbeats.addAll(workers);
        return workers;
    }

    /**
     * The simulated workers ping every 20 s like real ones, for the whole run: a worker that only
     * polls goes UNREACHABLE after 2 minutes and gets no more jobs. No activeJobIds: the driver
     * holds its claims for milliseconds, and the server then only reports cancellations.
     */
    void heartbeat() {
        while (true) {
            sleepMs(TimeUnit.SECONDS.toMillis(PING_INTERVAL_SEC));
            for (Worker w : List.copyOf(heartbeats)) {
                Http.Response r = http.post("/workers/" + w.id() + "/ping", "{}", w.token(), PING_TIMEOUT);
                if (!r.ok()) {
                    complain("heartbeat", r);
                }
            }
        }
    }

    // ---------------------------------------------------------------- data in SQL, for speed

    /** Inserts {@code n} PENDING jobs of a block straight in SQL, in claim order. */
    void preload(String block, long n) {
        long base = synthetic.getAndAdd(n);
        sql.run("""
                insert into job (id, function_block_id, type, payload, created_at)
                select cast(lpad(to_hex(%d + i), 32, '0') as uuid), '%s', 'EXECUTE', '{"n": 1}', now()
                  from generate_series(1, %d) i""".formatted(base, blocks.get(block), n),
                "vacuum analyze job");
    }

    long pending(String block) {
        return sql.count("select count(*) from job where function_block_id = '%s' and status = 'PENDING'"
                .formatted(blocks.get(block)));
    }

    long pushed(String block) {
        return sql.count("select count(*) from job where function_block_id = '%s' and status = 'PUSHED'"
                .formatted(blocks.get(block)));
    }

    void ensurePending(String block, long n) {
        long have = pending(block);
        if (have < n) {
            preload(block, n - have);
        }
    }

    // ---------------------------------------------------------------- phases

    /**
     * Warms the server's JIT on every path the lines measure, in rounds of {@code slice} seconds each
     * of 1 job per poll, push + next, 50 per poll, then 2 s each of single and bulk creates. On two busy
     * cores the server's CPU per job keeps falling for a minute and more of load (from about 4,100 to
     * 700 us in one quick run), as C2 compiles the paths: a line measured before that would measure
     * the JIT, not the server a deployment runs for days. So the rounds go on past {@code warmupSec}
     * until push + next's server CPU per job falls by less than a tenth from one round to the next,
     * or {@code warmupMaxSec} would pass; the table's header says how many rounds it took and each
     * round's CPU per job.
     */
    void warmup() {
        int slice = Math.max(2, mode.warmupSec() / 4);
        List<Worker> ws = workers(WORKERS, "bench-warmup", 100, "bench.e2e");
        long start = System.nanoTime();
        List<String> perRound = new ArrayList<>();
        double before = Double.NaN;
        boolean settled = false;
        int round = 0;
        while (true) {
            round++;
            long roundStart = System.nanoTime();
            ensurePending("bench.e2e", slice * 12_000L + 20_000);
            double one = runWorkers(ws, 1, slice).rate();
            Throughput next = nextEndpoint ? runPushNext(ws, slice) : runWorkers(ws, 1, slice);
            double fifty = runWorkers(ws, BATCH, slice).rate();
            enqueueSingle(4, 2);
            enqueueBulk(2, 2);
            double us = next.jobs() == 0 ? Double.NaN : next.cpu().server() / next.jobs() * 1e6;
            perRound.add("%,.0f".formatted(us));
            log("warmup round %d: 1 per poll %.0f jobs/s, %s %.0f jobs/s at %.0f us of server CPU per job, %d per poll %.0f jobs/s",
                    round, one, nextEndpoint ? "push + next" : "1 per poll again", next.rate(), us, BATCH, fifty);
            settled = us >= 0.9 * before;
            double elapsed = (System.nanoTime() - start) / 1e9;
            double roundSec = (System.nanoTime() - roundStart) / 1e9;
            if (settled && elapsed >= mode.warmupSec() || elapsed + roundSec > mode.warmupMaxSec()) {
                break;
            }
            before = us;
        }
        report.warmupNote = "%d rounds, %.0f s (1 per poll, %s, %d per poll, %d s each; single and bulk creates, 2 s each);"
                .formatted(round, (System.nanoTime() - start) / 1e9, nextEndpoint ? "push + next" : "1 per poll again",
                        BATCH, slice)
                + " the server's CPU per job in %s per round: %s us; %s".formatted(
                        nextEndpoint ? "push + next" : "1 per poll", String.join(", ", perRound),
                        settled ? "it fell by less than a tenth in the last round" : "still falling when the time was up");
        dropJobsOf("bench.enqueue", "the warm-up's enqueued jobs");
    }

    /** Clients of the raw insert ceilings: those of the enqueue lines they stand beside (16 single, 4 bulk). */
    static final int INSERT1_CLIENTS = 16;
    static final int INSERT100_CLIENTS = 4;

    void ceiling() {
        sql.run("truncate job, job_event");
        report.raw1 = pgbench("claim1.sql", 1, mode.pgbenchSec() * 6_000L + 20_000);
        report.rawMinimal = pgbench("claim1_minimal.sql", 1, mode.pgbenchSec() * 10_000L + 20_000);
        report.rawMinimalPgUs = lastPgUsPerJob;
        report.raw50 = pgbench("claim50.sql", 50, mode.pgbenchSec() * 45_000L + 50_000);
        // its workers never ping: by now (two minutes and more after setup in full mode) the server's liveness
        // sweeper has made them UNREACHABLE and the script's claim, as the server's, gives such a worker nothing
        sql.run("""
                update worker set state = 'ONLINE', last_seen_at = now(), state_changed_at = now()
                 where name like 'bench-pgbench-%' and deleted_at is null""");
        report.rawServerSequence = pgbench("claim1_server_sequence.sql", 1, mode.pgbenchSec() * 6_000L + 20_000);
        // the insert ceilings, each on an empty table as the claims' were (pgbench() deletes its jobs)
        sql.run("truncate job, job_event", "vacuum analyze job");
        report.rawInsert1 = pgbenchInsert("insert1.sql", INSERT1_CLIENTS, 1);
        sql.run("truncate job, job_event", "vacuum analyze job");
        report.rawInsert100 = pgbenchInsert("insert100.sql", INSERT100_CLIENTS, 100);
        // the server's tests start from the same clean table as pgbench did
        sql.run("truncate job, job_event", "vacuum analyze job");
    }

    /** PostgreSQL's CPU per job in the last {@link #pgbench} run, in microseconds. */
    double lastPgUsPerJob = Double.NaN;

    double pgbench(String script, int perRoundTrip, long jobs) {
        preload("bench.raw", jobs);
        long before = pushed("bench.raw");
        Pgbench run = runPgbench(script, WORKERS, "fbs={" + blocks.get("bench.raw") + "}", "labels={}");
        long done = pushed("bench.raw") - before;
        long left = pending("bench.raw");
        double rate = done / (double) mode.pgbenchSec();
        log("pgbench %s: %d jobs in %ds = %.0f jobs/s (%s); %d left%s; %s; postgres %.0f us/job", script, done,
                mode.pgbenchSec(), rate, line(run.out(), "tps"), left,
                done == 0 ? " -- CLAIMED NOTHING, figure is void"
                        : left == 0 ? " -- RAN DRY, figure is a lower bound" : "",
                run.cpu(), run.cpu().pg() / (rate * run.cpu().seconds()) * 1e6);
        lastPgUsPerJob = run.cpu().pg() / (rate * run.cpu().seconds()) * 1e6;
        sql.run("delete from job where function_block_id = '%s'".formatted(blocks.get("bench.raw")));
        return rate;
    }

    /**
     * A raw insert ceiling: {@code clients} pgbench clients insert PENDING jobs of bench.raw, {@code perStatement}
     * per autocommitted statement, with ids counting up from a range of their own; jobs/s are the rows there are
     * after the run, over its seconds. The rows stay until the caller truncates the table.
     */
    double pgbenchInsert(String script, int clients, int perStatement) {
        long base = synthetic.getAndAdd(1L << 40); // client c's ids: base + c * 2^32 + its count
        long before = sql.count("select count(*) from job where function_block_id = '%s'"
                .formatted(blocks.get("bench.raw")));
        Pgbench run = runPgbench(script, clients, "base=" + base, "n=0");
        long done = sql.count("select count(*) from job where function_block_id = '%s'"
                .formatted(blocks.get("bench.raw"))) - before;
        double rate = done / (double) mode.pgbenchSec();
        log("pgbench %s (%d clients, %d per statement): %d jobs inserted in %ds = %.0f jobs/s (%s); %s;"
                + " postgres %.0f us/job", script, clients, perStatement, done, mode.pgbenchSec(), rate,
                line(run.out(), "tps"), run.cpu(), run.cpu().pg() / (rate * run.cpu().seconds()) * 1e6);
        return rate;
    }

    record Pgbench(String out, Cpu.Usage cpu) {
    }

    /** Runs a script of bench/ for pgbenchSec with {@code -D fb=<bench.raw>} and the given defines; its CPU. */
    Pgbench runPgbench(String script, int clients, String... defines) {
        String[] all = new String[defines.length + 1];
        all[0] = "fb=" + blocks.get("bench.raw");
        System.arraycopy(defines, 0, all, 1, defines.length);
        Process pgbench = sql.startPgbench(benchDir.resolve(script), clients, mode.pgbenchSec(), all);
        // pgbench's backends end with it: the last sample taken while they live is the measure
        sleepMs(300);
        Cpu.Sample first = cpu.sample();
        List<Cpu.Sample> samples = new ArrayList<>();
        while (pgbench.isAlive()) {
            sleepMs(250);
            samples.add(cpu.sample());
        }
        String out = Sql.finish(pgbench, 60);
        return new Pgbench(out, Cpu.across(first, samples));
    }

    void endToEnd() {
        List<Worker> ws = workers(WORKERS, "bench-e2e", 100, "bench.e2e");
        ensurePending("bench.e2e", mode.e2eSec() * 5_000L + 20_000);
        Throughput t = runWorkers(ws, 1, mode.e2eSec());
        report.e2e1 = t;
        log("e2e 1 per poll: %.0f jobs/s; poll %s; push %s; errors %d, empty polls %d; %.2f HTTP requests/job; %s; %s",
                t.rate(), t.polls().summary(), t.pushes().summary(), t.errors(), t.empty(), t.requestsPerJob(), t.cpu(),
                t.cpu().per(t.jobs(), "job"));
        report.nextEndpoint = nextEndpoint;
        if (!nextEndpoint) {
            log("e2e push + next: the server has no POST /blackboard/job/next; not measured");
            return;
        }
        // the same start as the line above had: enough PENDING jobs, and a vacuumed table (its preload
        // vacuums; the claims since left dead index entries that each claim would walk)
        ensurePending("bench.e2e", mode.e2eSec() * 5_000L + 20_000);
        sql.run("vacuum analyze job");
        Throughput n = runPushNext(ws, mode.e2eSec());
        report.e2eNext = n;
        log("e2e 1 per round trip, push + next: %.0f jobs/s (%.2fx the poll + push line); plain polls %s;"
                + " push + next %s; errors %d, empty polls %d; %.2f HTTP requests/job; %s; %s", n.rate(),
                n.rate() / t.rate(), n.polls().summary(), n.pushes().summary(), n.errors(), n.empty(),
                n.requestsPerJob(), n.cpu(), n.cpu().per(n.jobs(), "job"));
    }

    /**
     * Start-up under load (issue 27): a second replica started the ahead-of-time way (run.sh's
     * script: the same database, a port of its own) while the 8 workers' push + next load keeps
     * the first server, PostgreSQL and the driver on the two cores. The milliseconds from its
     * launch to its readiness UP; the replica is stopped once ready.
     */
    void restartUnderLoad() throws Exception {
        if (replicaScript == null) {
            log("restart under load: no replica script (a jar without ahead-of-time code); not measured");
            return;
        }
        List<Worker> ws = workers(WORKERS, "bench-restart", 100, "bench.e2e");
        ensurePending("bench.e2e", RESTART_LOAD_SEC * 5_000L + 20_000);
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Throughput> load = exec.submit(() -> runPushNext(ws, RESTART_LOAD_SEC));
            sleepMs(3_000);
            Process replica = new ProcessBuilder("bash", replicaScript).redirectErrorStream(true).start();
            String out = new String(replica.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!replica.waitFor(150, TimeUnit.SECONDS) || replica.exitValue() != 0) {
                replica.destroyForcibly();
                throw new IllegalStateException("the replica did not start: " + out);
            }
            report.startupLoadedMs = Double.parseDouble(out.lines().reduce((a, b) -> b).orElse("NaN"));
            Throughput t = load.get();
            log("restart under load: a second replica ready in %.0f ms while push + next ran at %.0f jobs/s;"
                    + " errors %d; %s", report.startupLoadedMs, t.rate(), t.errors(), t.cpu());
        }
    }

    /**
     * One round trip per job (issue 23): each worker polls once with POST /blackboard/job, then sends each finished
     * job's push to POST /blackboard/job/next with limit 1 and takes its next job from the answer; a plain poll
     * again only when the answer has no job. A job counts when its push's item answers 200. The claim a worker
     * holds when the window ends is pushed after it, uncounted, so no job is left POLLED.
     */
    Throughput runPushNext(List<Worker> ws, int seconds) {
        LongAdder jobs = new LongAdder();
        LongAdder errors = new LongAdder();
        LongAdder empty = new LongAdder();
        LongAdder requests = new LongAdder();
        Latencies polls = new Latencies();
        Latencies nexts = new Latencies();
        Cpu.Sample cpuStart = cpu.sample();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        Cpu.Sample[] cpuEnd = new Cpu.Sample[1];
        long[] endNanos = new long[1];
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Json.Claim>> held = new ArrayList<>();
            for (Worker w : ws) {
                held.add(exec.submit(() -> {
                    String poll = "{\"workerId\":\"%s\",\"limit\":1}".formatted(w.id());
                    Json.Claim claim = null;
                    while (System.nanoTime() < end) {
                        if (claim == null) {
                            List<Json.Claim> claims = pollOnce(w, poll, polls, requests, errors, empty);
                            claim = claims.isEmpty() ? null : claims.getFirst();
                            continue;
                        }
                        long t0 = System.nanoTime();
                        Http.Response r = http.post("/blackboard/job/next", "{\"workerId\":\"%s\",\"results\":[%s],\"limit\":1}"
                                .formatted(w.id(), pushBody(w, claim)), w.token(), Http.TIMEOUT);
                        nexts.add(System.nanoTime() - t0);
                        requests.increment();
                        if (!r.ok()) { // nothing pushed, nothing claimed: the claim stays POLLED until its deadline
                            errors.increment();
                            complain("push + next", r);
                            claim = null;
                            continue;
                        }
                        Json.Next next = Json.next(r.body());
                        if (next.statuses().size() == 1 && next.statuses().getFirst() == 200) {
                            jobs.increment();
                        } else {
                            errors.increment();
                            complain("push + next (item)", r);
                        }
                        claim = next.jobs().isEmpty() ? null : next.jobs().getFirst();
                    }
                    return claim;
                }));
            }
            // the window ends when the last worker's request in flight at its end is answered
            List<Json.Claim> left = new ArrayList<>();
            for (Future<Json.Claim> f : held) {
                try {
                    left.add(f.get());
                } catch (Exception e) { // an answer the driver could not read: that worker stopped early
                    left.add(null);
                    errors.increment();
                    log("e2e push + next: a worker stopped: %s", e.getCause() == null ? e : e.getCause());
                }
            }
            cpuEnd[0] = cpu.sample();
            endNanos[0] = System.nanoTime();
            for (int i = 0; i < ws.size(); i++) {
                if (left.get(i) != null) {
                    push(ws.get(i), left.get(i), new LongAdder());
                }
            }
        }
        return new Throughput(jobs.sum(), (endNanos[0] - start) / 1e9, polls, nexts, errors.sum(), empty.sum(),
                Cpu.between(cpuStart, cpuEnd[0]), requests.sum());
    }

    void batched() {
        List<Worker> ws = workers(WORKERS, "bench-batch", 1000, "bench.e2e");
        ensurePending("bench.e2e", mode.e2eSec() * 30_000L + 50_000);
        Throughput t = runWorkers(ws, BATCH, mode.e2eSec());
        report.e2e50 = t;
        report.batchPushEndpoint = batchPushEndpoint;
        log("e2e %d per poll (%s): %.0f jobs/s; poll %s; push %s; errors %d, empty polls %d; %s; %s", BATCH,
                batchPushEndpoint ? "batch push" : "pushes in parallel", t.rate(), t.polls().summary(),
                t.pushes().summary(), t.errors(), t.empty(), t.cpu(), t.cpu().per(t.jobs(), "job"));
    }

    // ---------------------------------------------------------------- the SDK line (issue 21)

    /** The block the SDK workers serve: they register it themselves, as users' workers do. */
    static final String SDK_BLOCK = "bench.sdk";
    static final String SDK_BLOCK_VERSION = "1.0.0";
    /** A push transaction that began before a counting boundary has committed this long after it. */
    static final int COUNT_LAG_MS = 1000;
    /** The longest slice counted at once: the server's reaper deletes PUSHED jobs after the retention. */
    static final int COUNT_SLICE_SEC = 10;

    /**
     * One SDK's figure: jobs pushed in the window by its 8 workers, counted in SQL; the machine's CPU over the
     * window and the SDK processes' own CPU seconds (from /proc); PENDING jobs left at the end.
     */
    record SdkRun(String sdk, long jobs, double seconds, Cpu.Usage cpu, double sdkCpu, long left) {

        double rate() {
            return jobs / seconds;
        }

        /** CPU microseconds the SDK processes spent per job. */
        double sdkUsPerJob() {
            return sdkCpu / (rate() * cpu.seconds()) * 1e6;
        }

        String cpuLine() {
            return String.format(Locale.ROOT, "%s (the SDK processes among the rest: %.0f%% of one core, %.0f us/job);"
                    + " %s", cpu, 100 * sdkCpu / cpu.seconds(), sdkUsPerJob(),
                    cpu.per(Math.round(rate() * cpu.seconds()), "job"));
        }
    }

    /**
     * The SDK line: end-to-end jobs/s of 8 workers of each worker SDK with a no-op handler, 1 job per poll
     * (concurrency 1), against the raw driver in the same run. The Java SDK's 8 workers run in one JVM
     * (bench/SdkJavaWorkers.java), the Python SDK's in 8 processes (bench/sdk_python_worker.py), as users run
     * them; both with the SDKs' defaults otherwise (long polls with a wait, which return at once since jobs are
     * pending; the server's ping interval). Each SDK: its workers register (and so the block), PENDING jobs are
     * preloaded in SQL, a warm-up once every worker pushes, a vacuum of {@code job}, then {@code e2eSec}
     * seconds counted in SQL; SIGTERM, and their jobs are removed.
     *
     * <p>The yardstick is the raw driver of phase e2e run again right before the SDKs and right after them, in
     * the same conditions (a vacuumed table), and the SDKs' ratios are to the mean of the two: the server's
     * JIT is still warming up during phase e2e (its CPU per job kept falling for a minute of load on a 2-core
     * machine in quick mode), so a raw figure taken only before the SDKs would flatter them.
     */
    void sdk() {
        report.sdkRawBefore = rawAgain("before");
        for (String sdk : List.of("Java", "Python")) {
            try {
                SdkRun run = sdkRun(sdk);
                if (sdk.equals("Java")) {
                    report.sdkJava = run;
                } else {
                    report.sdkPython = run;
                }
            } catch (Exception e) {
                report.failures.add("sdk (" + sdk + "): " + e.getMessage());
                log("sdk %s failed: %s", sdk, e);
            }
        }
        report.sdkRawAfter = rawAgain("after");
        double around = report.sdkRawAround();
        log("sdk: the raw driver around the SDKs %.0f jobs/s (before %s, after %s); Java %.2fx, Python %.2fx", around,
                report.sdkRawBefore == null ? "failed" : "%.0f".formatted(report.sdkRawBefore.rate()),
                report.sdkRawAfter == null ? "failed" : "%.0f".formatted(report.sdkRawAfter.rate()),
                report.sdkJava == null ? Double.NaN : report.sdkJava.rate() / around,
                report.sdkPython == null ? Double.NaN : report.sdkPython.rate() / around);
    }

    /** The raw driver of phase e2e again, 8 new workers, 1 job per poll, on a vacuumed table; null if it failed. */
    Throughput rawAgain(String when) {
        try {
            List<Worker> ws = workers(WORKERS, "bench-sdk-raw-" + when, 100, "bench.e2e");
            ensurePending("bench.e2e", mode.e2eSec() * 5_000L + 20_000);
            sql.run("vacuum analyze job");
            Throughput t = runWorkers(ws, 1, mode.e2eSec());
            log("sdk: the raw driver again, %s the SDKs, 1 per poll: %.0f jobs/s%s; poll %s; push %s; errors %d,"
                    + " empty polls %d; %s; %s; driver %.0f us/job", when, t.rate(), report.e2e1 == null ? ""
                    : " (%.2fx e2e's %.0f)".formatted(t.rate() / report.e2e1.rate(), report.e2e1.rate()),
                    t.polls().summary(), t.pushes().summary(), t.errors(), t.empty(), t.cpu(),
                    t.cpu().per(t.jobs(), "job"), t.jobs() == 0 ? Double.NaN : t.cpu().driver() / t.jobs() * 1e6);
            return t;
        } catch (RuntimeException e) {
            report.failures.add("sdk (the raw driver " + when + " the SDKs): " + e.getMessage());
            log("sdk: the raw driver %s the SDKs failed: %s", when, e);
            return null;
        }
    }

    SdkRun sdkRun(String sdk) throws Exception {
        String prefix = "bench-sdk-" + sdk.toLowerCase(Locale.ROOT);
        int warm = mode.warmupSec(); // the raw driver's JVM had the warmup phase
        long lifetime = warm + mode.e2eSec() + 300; // the worker processes stop themselves after this
        Path logFile = logDir.resolve(sql.db() + "." + prefix.substring("bench-".length()) + ".log");
        try (Children children = new Children(logFile)) {
            long t0 = System.nanoTime();
            if (sdk.equals("Java")) {
                if (!Files.isRegularFile(sdkJar)) {
                    throw new IllegalStateException("no Java SDK jar at " + sdkJar
                            + " (bench/run.sh builds it: ./mvnw -B -q -f sdk/java/pom.xml package -Dmaven.test.skip=true)");
                }
                String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
                // the JVM-wide keep-alive setting the Java SDK's README recommends (the server closes idle ones after 3 s)
                children.start(List.of(java, "-Djdk.httpclient.keepalive.timeout=2", "-cp", sdkJar.toString(),
                        benchDir.resolve("SdkJavaWorkers.java").toString(), "--url", http.base(), "--token", http.token(),
                        "--workers", Integer.toString(WORKERS), "--name", prefix, "--max-seconds", Long.toString(lifetime)),
                        Map.of());
            } else {
                Path src = benchDir.toAbsolutePath().getParent().resolve("sdk/python/src");
                for (int i = 0; i < WORKERS; i++) {
                    children.start(List.of(python, benchDir.resolve("sdk_python_worker.py").toString(), "--url",
                            http.base(), "--token", http.token(), "--name", prefix + "-" + i, "--max-seconds",
                            Long.toString(lifetime)), Map.of("PYTHONPATH", src.toString()));
                }
            }
            children.await("ready", WORKERS, Duration.ofSeconds(90));
            double registered = (System.nanoTime() - t0) / 1e9;
            String block = sql.run("select id from function_block where name = '%s' and version = '%s'"
                    .formatted(SDK_BLOCK, SDK_BLOCK_VERSION));
            if (block.isBlank()) {
                throw new IllegalStateException("the SDK workers are ready but " + SDK_BLOCK + " " + SDK_BLOCK_VERSION
                        + " is not in the catalog");
            }
            blocks.put(SDK_BLOCK, block);
            long serving = sql.count("""
                    select count(*) from worker_function_block f join worker w on w.id = f.worker_id
                     where f.function_block_id = '%s' and w.name like '%s-%%' and w.state = 'ONLINE'
                       and w.deleted_at is null""".formatted(block, prefix));
            if (serving != WORKERS) {
                throw new IllegalStateException(serving + " ONLINE workers named " + prefix + "-* serve " + SDK_BLOCK
                        + ", not " + WORKERS);
            }
            ensurePending(SDK_BLOCK, (warm + mode.e2eSec() + 2L) * 5_000L + 20_000);
            // polls parked before the preload find its jobs at the server's next re-check (2 s by default)
            double flowing = awaitAllPushing(block, prefix, 20);
            sleepMs(TimeUnit.SECONDS.toMillis(warm));
            // the warm-up's claims left dead entries where each claim starts its index scan (BENCHMARKS.md): the
            // window starts from a vacuumed table, as e2e's does after its preload
            sql.run("vacuum analyze job");
            Cpu.Sample[] cpuAt = new Cpu.Sample[2];
            long[] ticks = new long[2];
            cpuAt[0] = cpu.sample();
            ticks[0] = children.cpuTicks();
            Pushed pushed = countPushed(block, mode.e2eSec(), () -> {
                cpuAt[1] = cpu.sample();
                ticks[1] = children.cpuTicks();
            });
            long left = pending(SDK_BLOCK);
            Children.Stopped stopped = children.stop(Duration.ofSeconds(90));
            long online = sql.count("select count(*) from worker where name like '%s-%%' and state = 'ONLINE'"
                    .formatted(prefix));
            long polled = sql.count("select count(*) from job where function_block_id = '%s' and status = 'POLLED'"
                    .formatted(block));
            // a graceful stop gives back the claims of the aborted poll (a release ping) and fails nothing
            String[] fate = sql.run("""
                    select count(*) filter (where releases > 0), count(*) filter (where outcome = 'FAILURE'),
                           coalesce(string_agg(distinct failure_reason, ','), '')
                      from job where function_block_id = '%s'""".formatted(block)).split("\\|", -1);
            long failed = Long.parseLong(fate[1]);
            SdkRun run = new SdkRun(sdk, pushed.jobs(), pushed.seconds(), Cpu.between(cpuAt[0], cpuAt[1]),
                    (ticks[1] - ticks[0]) / 100.0, left);
            double raw = report.sdkRawBefore == null ? Double.NaN : report.sdkRawBefore.rate();
            double e2e = report.e2e1 == null ? Double.NaN : report.e2e1.rate();
            log("sdk %s (%d workers, 1 per poll): %d jobs in %.1f s = %.0f jobs/s, %.2fx the raw driver's %.0f just"
                    + " before (%.2fx e2e's %.0f); %d PENDING left%s; registered in %.1f s, all pushing %.1f s later,"
                    + " then %d s of warm-up; %s", sdk, WORKERS, run.jobs(), run.seconds(), run.rate(), run.rate() / raw,
                    raw, run.rate() / e2e, e2e, left, left == 0 ? " -- RAN DRY, figure is a lower bound" : "",
                    registered, flowing, warm, run.cpuLine());
            log("sdk %s: stopped (SIGTERM) in %.1f s, exit codes %s%s; ONLINE workers left %d, POLLED jobs left %d,"
                    + " claims released %s, jobs FAILED %d%s; the workers' own counters over their life: %s; log %s", sdk,
                    stopped.seconds(), stopped.exitCodes(), stopped.killed() > 0 ? ", " + stopped.killed()
                    + " KILLED after 90 s" : "", online, polled, fate[0], failed,
                    fate[2].isEmpty() ? "" : " (" + fate[2] + ")", children.stats(), logFile);
            if (failed > 0) {
                report.failures.add("sdk (" + sdk + "): " + failed + " jobs FAILED (" + fate[2] + ") around the workers'"
                        + " graceful stop (see " + logFile + " and the server log)");
            }
            if (stopped.killed() > 0 || online > 0) {
                report.failures.add("sdk (" + sdk + "): the workers did not stop gracefully: " + stopped.killed()
                        + " processes killed after 90 s, " + online + " workers still ONLINE (see " + logFile + ")");
            }
            return run;
        } finally {
            if (blocks.containsKey(SDK_BLOCK)) {
                dropJobsOf(SDK_BLOCK, "the " + sdk + " SDK workers' jobs");
            }
        }
    }

    /** Waits (bounded) until every worker named {@code prefix-*} has pushed a job of the block; answers the seconds. */
    double awaitAllPushing(String block, String prefix, int timeoutSec) {
        long t0 = System.nanoTime();
        long end = t0 + TimeUnit.SECONDS.toNanos(timeoutSec);
        long pushing = 0;
        while (System.nanoTime() < end) {
            pushing = sql.count("""
                    select count(*) from worker w
                     where w.name like '%s-%%' and w.state = 'ONLINE' and exists (
                           select from job j where j.worker_id = w.id and j.function_block_id = '%s'
                              and j.status = 'PUSHED')""".formatted(prefix, block));
            if (pushing >= WORKERS) {
                return (System.nanoTime() - t0) / 1e9;
            }
            sleepMs(200);
        }
        log("sdk: only %d of %d workers pushed a job within %d s; measuring anyway", pushing, WORKERS, timeoutSec);
        return (System.nanoTime() - t0) / 1e9;
    }

    record Pushed(long jobs, double seconds) {
    }

    /**
     * The jobs of a block pushed from now for {@code seconds}, counted in SQL by {@code pushed_at} (the push
     * transaction's start) between boundaries read from the database's clock, so the window is the database's
     * too. Counted in slices of at most {@value #COUNT_SLICE_SEC} s, each {@value #COUNT_LAG_MS} ms after its
     * end (a push that began before a boundary has committed by then): the server's reaper deletes PUSHED jobs
     * a retention after their push (1 minute in bench/run.sh), so one count at the end of a long window would
     * miss its first jobs. {@code atEnd} runs at the window's end, before the last count's lag.
     */
    Pushed countPushed(String block, int seconds, Runnable atEnd) {
        String first = sql.run("select extract(epoch from clock_timestamp())");
        String from = first;
        long start = System.nanoTime();
        long jobs = 0;
        for (int done = 0; done < seconds; ) {
            int next = Math.min(seconds, done + COUNT_SLICE_SEC);
            long wait = start + TimeUnit.SECONDS.toNanos(next) - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            if (next == seconds) {
                atEnd.run();
            }
            sleepMs(COUNT_LAG_MS);
            String[] row = sql.run("""
                    select b, (select count(*) from job where function_block_id = '%s' and status = 'PUSHED'
                                  and pushed_at >= to_timestamp(%s) and pushed_at < to_timestamp(b))
                      from (select extract(epoch from clock_timestamp()) - %s as b) t"""
                    .formatted(block, from, COUNT_LAG_MS / 1000.0)).split("\\|");
            jobs += Long.parseLong(row[1].trim());
            from = row[0].trim();
            done = next;
        }
        return new Pushed(jobs, Double.parseDouble(from) - Double.parseDouble(first));
    }

    /** Each worker polls then pushes, in a loop, for {@code seconds}. */
    Throughput runWorkers(List<Worker> ws, int limit, int seconds) {
        LongAdder jobs = new LongAdder();
        LongAdder errors = new LongAdder();
        LongAdder empty = new LongAdder();
        LongAdder requests = new LongAdder();
        Latencies polls = new Latencies();
        Latencies pushes = new Latencies();
        Cpu.Sample cpuStart = cpu.sample();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Worker w : ws) {
                exec.submit(() -> {
                    String body = "{\"workerId\":\"%s\",\"limit\":%d}".formatted(w.id(), limit);
                    while (System.nanoTime() < end) {
                        List<Json.Claim> claims = pollOnce(w, body, polls, requests, errors, empty);
                        if (!claims.isEmpty()) {
                            jobs.add(pushAll(w, claims, pushes, errors, requests));
                        }
                    }
                });
            }
        }
        return new Throughput(jobs.sum(), (System.nanoTime() - start) / 1e9, polls, pushes, errors.sum(),
                empty.sum(), Cpu.between(cpuStart, cpu.sample()), requests.sum());
    }

    /** One poll without waiting, timed and counted: the jobs it claimed, or none (an error, counted, or empty). */
    List<Json.Claim> pollOnce(Worker w, String body, Latencies polls, LongAdder requests, LongAdder errors,
            LongAdder empty) {
        long t0 = System.nanoTime();
        Http.Response r = http.post("/blackboard/job", body, w.token(), Http.TIMEOUT);
        polls.add(System.nanoTime() - t0);
        requests.increment();
        if (!r.ok()) {
            errors.increment();
            complain("poll", r);
            return List.of();
        }
        List<Json.Claim> claims = Json.claims(r.body());
        if (claims.isEmpty()) {
            empty.increment();
        }
        return claims;
    }

    /**
     * Pushes the claimed jobs: one push, the batch endpoint, or (without it) all at once in parallel. Adds the
     * HTTP requests it sent to {@code requests}.
     */
    int pushAll(Worker w, List<Json.Claim> claims, Latencies latencies, LongAdder errors, LongAdder requests) {
        long t0 = System.nanoTime();
        int done = 0;
        requests.add(claims.size() == 1 || batchPushEndpoint ? 1 : claims.size());
        if (claims.size() == 1) {
            done = push(w, claims.getFirst(), errors) ? 1 : 0;
        } else if (batchPushEndpoint) {
            StringBuilder body = new StringBuilder("[");
            for (Json.Claim c : claims) {
                body.append(body.length() > 1 ? "," : "").append(pushBody(w, c));
            }
            Http.Response r = http.post("/blackboard/job/results", body.append(']').toString(), w.token(), Http.TIMEOUT);
            if (r.ok()) {
                done = claims.size();
            } else {
                errors.increment();
                complain("batch push", r);
            }
        } else {
            try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<Boolean>> futures = new ArrayList<>();
                for (Json.Claim c : claims) {
                    futures.add(exec.submit(() -> push(w, c, errors)));
                }
                for (Future<Boolean> f : futures) {
                    done += join(f) ? 1 : 0;
                }
            }
        }
        latencies.add(System.nanoTime() - t0);
        return done;
    }

    boolean push(Worker w, Json.Claim c, LongAdder errors) {
        Http.Response r = http.post("/blackboard/job/result", pushBody(w, c), w.token(), Http.TIMEOUT);
        if (!r.ok()) {
            errors.increment();
            complain("push", r);
        }
        return r.ok();
    }

    static String pushBody(Worker w, Json.Claim c) {
        return "{\"jobId\":\"%s\",\"workerId\":\"%s\",\"attempt\":%d,\"status\":\"SUCCESS\",\"result\":{\"ok\":true}}"
                .formatted(c.id(), w.id(), c.attempt());
    }

    String jobBody(String block) {
        return "{\"functionBlockId\":\"%s\",\"type\":\"EXECUTE\",\"payload\":{\"n\":1}}".formatted(blocks.get(block));
    }

    String jobsBody(String block, int n) {
        String one = jobBody(block);
        StringBuilder body = new StringBuilder(n * (one.length() + 1) + 2).append('[');
        for (int i = 0; i < n; i++) {
            body.append(i == 0 ? "" : ",").append(one);
        }
        return body.append(']').toString();
    }

    void enqueue() {
        report.enqueueSingle = enqueueSingle(16, mode.enqueueSec());
        report.enqueueBulk = enqueueBulk(4, mode.enqueueSec());
        dropJobsOf("bench.enqueue", "enqueued jobs");
    }

    double enqueueSingle(int clients, int seconds) {
        return enqueueLoop("single", clients, seconds, jobBody("bench.enqueue"), 1);
    }

    double enqueueBulk(int clients, int seconds) {
        return enqueueLoop("bulk", clients, seconds, jobsBody("bench.enqueue", 1000), 1000);
    }

    double enqueueLoop(String what, int clients, int seconds, String body, int perCall) {
        LongAdder jobs = new LongAdder();
        LongAdder errors = new LongAdder();
        Latencies calls = new Latencies();
        Cpu.Sample cpuStart = cpu.sample();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < clients; c++) {
                exec.submit(() -> {
                    while (System.nanoTime() < end) {
                        long t0 = System.nanoTime();
                        Http.Response r = http.post("/blackboard/jobs", body);
                        calls.add(System.nanoTime() - t0);
                        if (r.status() == 201) {
                            jobs.add(perCall);
                        } else {
                            errors.increment();
                            complain("enqueue", r);
                        }
                    }
                });
            }
        }
        double rate = jobs.sum() / ((System.nanoTime() - start) / 1e9);
        Cpu.Usage usage = Cpu.between(cpuStart, cpu.sample());
        log("enqueue %s (%d clients, %d per call): %.0f jobs/s; calls %s; errors %d; %s; %s", what, clients, perCall,
                rate, calls.summary(), errors.sum(), usage, usage.per(jobs.sum(), "job"));
        return rate;
    }

    /**
     * Workers parked in long polls; the engine creates one job at a time and times it from just
     * before the create request to the moment a poll returns it.
     */
    void longPollLatency() throws Exception {
        List<Worker> ws = workers(WORKERS, "bench-latency", 1, "bench.latency");
        Map<String, CompletableFuture<Long>> arrivals = new ConcurrentHashMap<>();
        AtomicBoolean done = new AtomicBoolean();
        LongAdder errors = new LongAdder();
        long hardEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(mode.latencySamples() / 10 + 60);
        ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor();
        for (Worker w : ws) {
            exec.submit(() -> {
                String body = "{\"workerId\":\"%s\",\"limit\":1,\"waitMs\":30000}".formatted(w.id());
                while (!done.get() && System.nanoTime() < hardEnd) {
                    Http.Response r = http.post("/blackboard/job", body, w.token(), LONG_POLL_TIMEOUT);
                    long now = System.nanoTime();
                    if (!r.ok()) {
                        errors.increment();
                        complain("long poll", r);
                        sleepMs(10);
                        continue;
                    }
                    for (Json.Claim c : Json.claims(r.body())) {
                        arrivals.computeIfAbsent(c.id(), id -> new CompletableFuture<>()).complete(now);
                        push(w, c, errors);
                    }
                }
            });
        }
        sleepMs(1000); // let them park
        Latencies delivery = new Latencies();
        Latencies create = new Latencies();
        int lost = 0;
        for (int i = 0; i < mode.latencySamples() && System.nanoTime() < hardEnd; i++) {
            sleepMs(ThreadLocalRandom.current().nextInt(2, 12)); // no lock-step with any re-check period
            long t0 = System.nanoTime();
            Http.Response r = http.post("/blackboard/jobs", jobBody("bench.latency"));
            create.add(System.nanoTime() - t0);
            if (r.status() != 201) {
                errors.increment();
                complain("create", r);
                continue;
            }
            try {
                long t1 = arrivals.computeIfAbsent(Json.id(r.body()), id -> new CompletableFuture<>())
                        .get(35, TimeUnit.SECONDS);
                delivery.add(t1 - t0);
            } catch (java.util.concurrent.TimeoutException e) {
                lost++;
            }
        }
        done.set(true);
        for (int i = 0; i < ws.size(); i++) { // wake the parked polls so they end
            http.post("/blackboard/jobs", jobBody("bench.latency"));
        }
        exec.shutdown();
        if (!exec.awaitTermination(40, TimeUnit.SECONDS)) {
            exec.shutdownNow();
        }
        report.delivery = delivery;
        log("long-poll delivery: %s; create %s; not delivered in 35 s: %d; errors %d", delivery.summary(),
                create.summary(), lost, errors.sum());
    }

    /** Poll latency of a light closed loop (2 workers, poll 1 then push), the queue never empty. */
    Latencies claimLatency(String label) {
        List<Worker> ws = workers(2, "bench-claim", 10, "bench.e2e");
        ensurePending("bench.e2e", mode.claimSec() * 3_000L + 20_000);
        Throughput t = runWorkers(ws, 1, mode.claimSec());
        String plan = explainClaim(ws.getFirst().id());
        long others = sql.count("select count(*) from job where status = 'PENDING' and function_block_id <> '%s'"
                .formatted(blocks.get("bench.e2e")));
        log("%s: poll %s (%.0f jobs/s, errors %d); PENDING in other blocks: %d; EXPLAIN: %s", label,
                t.polls().summary(), t.rate(), t.errors(), others, plan);
        return t.polls();
    }

    /** The claim statement under EXPLAIN (ANALYZE, BUFFERS), rolled back: time and buffers touched. */
    String explainClaim(String workerId) {
        String out = sql.runFile(benchDir.resolve("claim_explain.sql"), "fb=" + blocks.get("bench.e2e"),
                "wid=" + workerId);
        String buffers = out.lines().filter(l -> l.contains("Buffers:")).findFirst().orElse("?").trim();
        return line(out, "Execution Time") + ", " + buffers;
    }

    void backlog() {
        long t0 = System.nanoTime();
        preload("bench.backlog", mode.backlog());
        // the target is claim latency beside a deep queue, not during the checkpoint a bulk load triggers
        sql.run("checkpoint");
        log("backlog: %d PENDING jobs in a block no worker serves, inserted and vacuumed in %.1f s", mode.backlog(),
                (System.nanoTime() - t0) / 1e9);
    }

    /** The backlog served its phase; later phases start from the table the earlier ones left, as after pgbench. */
    void dropBacklog() {
        dropJobsOf("bench.backlog", "backlog");
    }

    /**
     * Jobs no worker will ever take (a backlog, the enqueue phase's million) are the driver's
     * scaffolding, not load: removed after their phase, as pgbench's rows are, so the drift phase
     * starts from what a running deployment holds.
     */
    void dropJobsOf(String block, String what) {
        long t0 = System.nanoTime();
        sql.run("delete from job_event e using job j where e.job_id = j.id and j.function_block_id = '%s'"
                .formatted(blocks.get(block)));
        sql.run("delete from job where function_block_id = '%s'".formatted(blocks.get(block)));
        sql.run("vacuum analyze job");
        sql.run("vacuum analyze job_event");
        log("%s removed and vacuumed in %.1f s", what, (System.nanoTime() - t0) / 1e9);
    }

    /**
     * The claim phases' jobs are scaffolding for the phases after them too: what is left of
     * their preload (about 550,000 PENDING jobs in full mode, which no later worker takes) and
     * the PUSHED ones the reaper would otherwise delete during the ping phase. Deleting them
     * does not shrink the index files; it keeps their rows out of the later phases' work.
     */
    void dropClaimPhasesJobs() {
        if (sql.count("select count(*) from (select from job where function_block_id = '%s' limit 1) j"
                .formatted(blocks.get("bench.e2e"))) > 0) {
            dropJobsOf("bench.e2e", "jobs of the claim phases");
        }
    }

    /** 20,000 workers, registered in bulk in SQL, each pinging every 20 s, spread evenly. */
    void ping() {
        dropClaimPhasesJobs();
        idleWorkers = bulkRegister(mode.pingWorkers());
        rampUpPings();
        long[] before = hotCounters();
        String pushedBefore = pushedJobs();
        LongAdder errors = new LongAdder();
        Cpu.Sample cpuStart = cpu.sample();
        Pings result = pinger(idleWorkers, mode.pingSec(), errors);
        Latencies pings = result.latencies();
        Cpu.Usage usage = Cpu.between(cpuStart, cpu.sample());
        sleepMs(1500); // table statistics reach pg_stat at most once a second per backend
        long[] after = hotCounters();
        long updates = after[0] - before[0];
        long hot = after[1] - before[1];
        report.ping = pings;
        report.hotRatio = updates == 0 ? Double.NaN : hot / (double) updates;
        report.hotDetail = "%d of %d".formatted(hot, updates);
        report.pingSkipped = result.skipped();
        log("ping (%d workers every %d s = %.0f/s): %s; errors %d; skipped (previous still out) %d; HOT updates %d "
                + "of %d; %s; %s; pings %s; PUSHED jobs of earlier phases left for the reaper: %s before, %s after",
                idleWorkers.size(), PING_INTERVAL_SEC, idleWorkers.size() / (double) PING_INTERVAL_SEC, pings.summary(),
                errors.sum(), result.skipped(), hot, updates, usage, usage.per(pings.count(), "ping"),
                result.stalls(stalls), pushedBefore, pushedJobs());
    }

    /**
     * Ramp up, unmeasured: a cold server hit with the full ping rate at once falls behind, and
     * every request in flight holds ~70 KB of heap (see BENCHMARKS.md).
     */
    void rampUpPings() {
        for (double rate : new double[] {0.1, 0.25, 0.5, 0.75}) {
            LongAdder rampErrors = new LongAdder();
            Pings ramp = pinger(idleWorkers, 3, rate, rampErrors);
            log("ping ramp-up at %.0f/s: %s, errors %d", rate * idleWorkers.size() / PING_INTERVAL_SEC,
                    ramp.latencies().summary(), rampErrors.sum());
        }
    }

    List<String> bulkRegister(int n) {
        long base = synthetic.getAndAdd(n);
        sql.run("""
                insert into worker (id, name, concurrency)
                select cast(lpad(to_hex(%1$d + i), 32, '0') as uuid), 'bench-idle-' || i, 1
                  from generate_series(1, %2$d) i""".formatted(base, n), """
                insert into worker_function_block (worker_id, function_block_id)
                select cast(lpad(to_hex(%1$d + i), 32, '0') as uuid), '%3$s'
                  from generate_series(1, %2$d) i""".formatted(base, n, blocks.get("bench.idle")),
                "vacuum analyze worker", "vacuum analyze worker_function_block");
        List<String> ids = new ArrayList<>(n);
        for (long i = 1; i <= n; i++) {
            String hex = "%032x".formatted(base + i);
            ids.add(hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                    + hex.substring(16, 20) + "-" + hex.substring(20));
        }
        return ids;
    }

    String pushedJobs() {
        return sql.run("select count(*) from job where status = 'PUSHED'");
    }

    long[] hotCounters() {
        String[] row = sql.run("select n_tup_upd, n_tup_hot_upd from pg_stat_user_tables where relname = 'worker'")
                .split("\\|");
        return new long[] {Long.parseLong(row[0]), Long.parseLong(row[1])};
    }

    /** Pings slower than this are kept with their due time, to be set against the driver's own pauses. */
    static final double SLOW_PING_MS = 10;

    record Pings(Latencies latencies, long skipped, List<Stalls.Slow> slow, long startNanos, long endNanos) {

        String stalls(Stalls stalls) {
            String dump = System.getProperty("bench.slowPings");
            if (dump != null) { // investigation aid: wall-clock due time and latency of each slow ping
                long offset = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
                StringBuilder b = new StringBuilder();
                synchronized (slow) {
                    for (Stalls.Slow s : slow) {
                        b.append("%d %.2f%n".formatted((s.dueNanos() + offset) / 1_000_000L, s.latencyNanos() / 1e6));
                    }
                }
                try {
                    Files.writeString(Path.of(dump), b, java.nio.file.StandardOpenOption.CREATE,
                            java.nio.file.StandardOpenOption.APPEND);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            return stalls.summary(slow, SLOW_PING_MS, startNanos, endNanos);
        }
    }

    /**
     * Each worker pings once per interval, evenly spread, with at most one ping of its own in
     * flight (10 s timeout), as a worker SDK would: a ping due while the last one is still out
     * is skipped and counted. Latency counts from the moment the ping was due, so a stalled
     * server cannot hide behind a slowed-down driver.
     */
    Pings pinger(List<String> ids, int seconds, LongAdder errors) {
        return pinger(ids, seconds, 1.0, errors);
    }

    /** {@code rate}: the share of the full rate (1 ping per worker per interval) to ping at. */
    Pings pinger(List<String> ids, int seconds, double rate, LongAdder errors) {
        Latencies pings = new Latencies();
        List<Stalls.Slow> slow = java.util.Collections.synchronizedList(new ArrayList<>());
        LongAdder skipped = new LongAdder();
        java.util.concurrent.atomic.AtomicIntegerArray inFlight = new java.util.concurrent.atomic.AtomicIntegerArray(ids.size());
        long interval = (long) (TimeUnit.SECONDS.toNanos(PING_INTERVAL_SEC) / ids.size() / rate);
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long k = 0; ; k++) {
                long due = start + k * interval;
                if (due >= end) {
                    break;
                }
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                int worker = (int) (k % ids.size());
                if (!inFlight.compareAndSet(worker, 0, 1)) {
                    skipped.increment();
                    continue;
                }
                exec.submit(() -> {
                    Http.Response r = http.post("/workers/" + ids.get(worker) + "/ping", "{\"activeJobIds\":[]}", null,
                            PING_TIMEOUT);
                    long latency = System.nanoTime() - due;
                    pings.add(latency);
                    if (latency >= SLOW_PING_MS * 1e6) {
                        slow.add(new Stalls.Slow(due, latency));
                    }
                    inFlight.set(worker, 0);
                    if (!r.ok()) {
                        errors.increment();
                        complain("ping", r);
                    }
                });
            }
        }
        return new Pings(pings, skipped.sum(), slow, start, System.nanoTime());
    }

    /**
     * A steady mixed load: the engine writes batches of 100 (at most 20,000 ahead of the
     * workers), 8 workers claim 10 at a time and push, 20,000 workers ping. Jobs/s per window,
     * counted after a warm-up (5 minutes in full mode): from one retention on (run.sh: 1 minute)
     * the reaper deletes as many PUSHED jobs as the workers push, and by about 4 minutes the
     * tables and their indexes have grown to the size the vacuum cycle holds them at
     * (BENCHMARKS.md), so the windows see the steady state.
     */
    void drift() throws Exception {
        dropClaimPhasesJobs();
        List<Worker> ws = workers(WORKERS, "bench-mixed", 1000, "bench.mixed");
        if (idleWorkers.isEmpty()) {
            idleWorkers = bulkRegister(mode.pingWorkers());
            rampUpPings();
        }
        int windows = mode.driftWindows();
        long windowNanos = TimeUnit.SECONDS.toNanos(mode.driftSec()) / windows;
        AtomicLongArray perWindow = new AtomicLongArray(windows);
        AtomicLong created = new AtomicLong();
        AtomicLong completed = new AtomicLong();
        LongAdder errors = new LongAdder();
        Latencies polls = new Latencies();
        Latencies pushes = new Latencies();
        long start = System.nanoTime() + TimeUnit.SECONDS.toNanos(mode.driftWarmupSec());
        long end = start + TimeUnit.SECONDS.toNanos(mode.driftSec());
        String batch = jobsBody("bench.mixed", 100);
        LongAdder requests = new LongAdder(); // not reported: the windows count jobs
        ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor();
        Future<Cpu.Sample> cpuStart = exec.submit(() -> {
            sleepMs(Math.max(0, TimeUnit.NANOSECONDS.toMillis(start - System.nanoTime())));
            return cpu.sample();
        });
        exec.submit(() -> {
            while (System.nanoTime() < end) {
                if (created.get() - completed.get() > 20_000) {
                    sleepMs(5);
                    continue;
                }
                Http.Response r = http.post("/blackboard/jobs", batch);
                if (r.status() == 201) {
                    created.addAndGet(100);
                } else {
                    errors.increment();
                    complain("drift enqueue", r);
                }
            }
        });
        for (Worker w : ws) {
            exec.submit(() -> {
                String body = "{\"workerId\":\"%s\",\"limit\":10}".formatted(w.id());
                while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    Http.Response r = http.post("/blackboard/job", body, w.token(), Http.TIMEOUT);
                    polls.add(System.nanoTime() - t0);
                    if (!r.ok()) {
                        errors.increment();
                        complain("drift poll", r);
                        continue;
                    }
                    List<Json.Claim> claims = Json.claims(r.body());
                    if (claims.isEmpty()) {
                        sleepMs(1);
                        continue;
                    }
                    int done = pushAll(w, claims, pushes, errors, requests);
                    completed.addAndGet(done);
                    long since = System.nanoTime() - start;
                    int window = (int) (since / windowNanos);
                    if (since >= 0 && window < windows) {
                        perWindow.addAndGet(window, done);
                    }
                }
            });
        }
        LongAdder pingErrors = new LongAdder();
        Pings pingResult = pinger(idleWorkers, mode.driftWarmupSec() + mode.driftSec(), pingErrors);
        Latencies pings = pingResult.latencies();
        Cpu.Usage usage = Cpu.between(cpuStart.get(), cpu.sample());
        exec.shutdown();
        if (!exec.awaitTermination(90, TimeUnit.SECONDS)) {
            exec.shutdownNow();
        }
        double[] rates = new double[windows];
        for (int i = 0; i < windows; i++) {
            rates[i] = perWindow.get(i) / (windowNanos / 1e9);
        }
        report.driftRates = rates;
        StringBuilder series = new StringBuilder();
        for (double r : rates) {
            series.append("%.0f ".formatted(r));
        }
        log("drift (%d s after %d s of warm-up, windows of %d s): jobs/s %s; poll %s; push %s; pings %s (%d skipped);"
                + " errors %d + %d pings; %s; pings %s", mode.driftSec(), mode.driftWarmupSec(),
                windowNanos / 1_000_000_000L, series.toString().trim(), polls.summary(), pushes.summary(), pings.summary(),
                pingResult.skipped(), errors.sum(), pingErrors.sum(), usage, pingResult.stalls(stalls));
        report.driftPing = pings;
    }

    /** Server RSS now, then with 1,000 long polls parked. */
    void rss() {
        report.rssEnd = rssMb();
        if (idleWorkers.isEmpty()) {
            idleWorkers = bulkRegister(mode.parkedPolls());
        }
        List<String> ids = idleWorkers.subList(0, Math.min(mode.parkedPolls(), idleWorkers.size()));
        try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String id : ids) { // ONLINE, so the polls are real ones
                exec.submit(() -> http.post("/workers/" + id + "/ping", "{\"activeJobIds\":[]}", null, Http.TIMEOUT));
            }
        }
        List<CompletableFuture<?>> parked = new ArrayList<>();
        for (String id : ids) {
            parked.add(http.postAsync("/blackboard/job", "{\"workerId\":\"%s\",\"limit\":1,\"waitMs\":30000}"
                    .formatted(id), null, LONG_POLL_TIMEOUT));
        }
        sleepMs(6000);
        long early = parked.stream().filter(CompletableFuture::isDone).count();
        report.rssParked = rssMb();
        report.parkedEarly = early;
        log("RSS: %.0f MB at the end, %.0f MB with %d polls parked (%d of them answered early); peak %s",
                report.rssEnd, report.rssParked, ids.size(), early, procStatus("VmHWM"));
        parked.forEach(f -> f.cancel(true));
    }

    double rssMb() {
        String kb = procStatus("VmRSS");
        return kb == null ? Double.NaN : Long.parseLong(kb.replaceAll("\\D", "")) / 1024.0;
    }

    String procStatus(String key) {
        try {
            return Files.readAllLines(Path.of("/proc/" + serverPid + "/status")).stream()
                    .filter(l -> l.startsWith(key + ":")).map(l -> l.substring(key.length() + 1).trim())
                    .findFirst().orElse(null);
        } catch (java.io.IOException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- small things

    static Http.Response require(Http.Response r, String what) {
        if (!r.ok()) {
            throw new IllegalStateException(what + ": " + r.status() + " " + r.body());
        }
        return r;
    }

    static final AtomicLong complaints = new AtomicLong();

    static void complain(String what, Http.Response r) {
        if (complaints.incrementAndGet() <= 10) {
            System.err.printf("bench: %s answered %d: %s%n", what, r.status(),
                    r.body().length() > 300 ? r.body().substring(0, 300) : r.body());
        }
    }

    static <T> T join(Future<T> f) {
        try {
            return f.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String line(String text, String key) {
        return text.lines().filter(l -> l.contains(key)).findFirst().orElse("?").trim();
    }

    static void sleepMs(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void log(String format, Object... args) {
        System.err.printf(Locale.ROOT, "[%tT] " + format + "%n", prepend(System.currentTimeMillis(), args));
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    /** {@code --set e2eSec=30,driftSec=120}: a mode with some phases longer or shorter, for profiling. */
    static Mode override(Mode mode, String settings) throws ReflectiveOperationException {
        if (settings == null) {
            return mode;
        }
        Map<String, String> wanted = new LinkedHashMap<>();
        for (String kv : settings.split(",")) {
            wanted.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
        var components = Mode.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            Object current = components[i].getAccessor().invoke(mode);
            String v = wanted.remove(components[i].getName());
            values[i] = v == null ? current : types[i] == int.class ? (Object) Integer.parseInt(v) : v;
        }
        if (!wanted.isEmpty()) {
            throw new IllegalArgumentException("unknown settings " + wanted.keySet());
        }
        return Mode.class.getDeclaredConstructor(types).newInstance(values);
    }

    /**
     * How long a run may take before the driver gives up on it as hung: 45 minutes in full mode, 12
     * in quick, and twice the seconds that {@code --set} adds to the mode's phases.
     */
    static Duration budget(Mode mode) throws ReflectiveOperationException {
        Mode base = "full".equals(mode.name()) ? FULL : QUICK;
        long added = 0;
        for (var component : Mode.class.getRecordComponents()) {
            if (component.getName().endsWith("Sec")) {
                added += (int) component.getAccessor().invoke(mode) - (int) component.getAccessor().invoke(base);
            }
        }
        return Duration.ofMinutes(base == FULL ? 45 : 12).plusSeconds(Math.max(0, 2 * added));
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> opt = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--help")) {
                System.out.println("""
                        java bench/Bench.java --url http://127.0.0.1:PORT --token T --db DB --server-pid PID
                            [--mode quick|full] [--pg-host H] [--pg-port P] [--pg-user U] [--bench-dir bench]
                            [--phases warmup,pgbench,e2e,restart,sdk,batch,claim,enqueue,latency,backlog,ping,drift,rss]
                            [--set warmupSec=30,e2eSec=60,...] [--out FILE] [--no-vacuum]
                            [--log-dir target/bench] [--sdk-jar sdk/java/target/blackboard-sdk-0.1.0-SNAPSHOT.jar]
                            [--python /usr/bin/python3] [--startup-plain-ms MS] [--startup-aot-ms MS] [--replica-script FILE]
                        Normally started by bench/run.sh, which starts the server and database first.""");
                System.exit(0);
            }
            if (args[i].equals("--no-vacuum")) {
                opt.put("no-vacuum", "true");
            } else if (args[i].startsWith("--") && i + 1 < args.length) {
                opt.put(args[i].substring(2), args[++i]);
            }
        }
        return opt;
    }
}
