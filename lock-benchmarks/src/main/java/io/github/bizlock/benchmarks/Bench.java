package io.github.bizlock.benchmarks;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.benchmarks.Subjects.Env;
import io.github.bizlock.benchmarks.Subjects.Kind;
import io.github.bizlock.benchmarks.Subjects.Node;
import io.github.bizlock.benchmarks.Subjects.Subject;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.test.DatabaseServer;
import io.github.bizlock.test.EmbeddedMySqlServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Runs every scenario of issue 7 against one server ({@code mysql}: the embedded MySQL 8.0; {@code mariadb}: the
 * server at 127.0.0.1:3306), {@code BENCH_RUNS} times, and writes the medians as a markdown table.
 *
 * <p>Arguments: {@code <mysql|mariadb> <results directory>}. Environment: {@code BENCH_RUNS} (3),
 * {@code BENCH_SECONDS} (measured seconds per scenario and subject, 1.5), {@code BENCH_WARMUP_SECONDS} (0.5),
 * {@code BENCH_MYSQL_PORT} (33307), {@code BENCH_MARIADB_URL}, {@code BENCH_REDIS_PORT} (6379).
 */
public final class Bench {

    static final String DATABASE = "bizlock_bench";
    static final int THREADS = 8;
    static final int HELD_LOCKS = 10_000;
    /** C1's target for each mode, in acquisitions per second. */
    static final double C1_TARGET = 900;

    private final Env env;
    private final Stats stats;
    private final int runs;
    private final double seconds;
    private final double warmup;
    /** scenario -> subject -> metric -> one value per run. */
    private final Map<String, Map<Subject, Map<String, List<Double>>>> results = new LinkedHashMap<>();

    private Bench(Env env, Stats stats, int runs, double seconds, double warmup) {
        this.env = env;
        this.stats = stats;
        this.runs = runs;
        this.seconds = seconds;
        this.warmup = warmup;
    }

    public static void main(String[] args) throws Exception {
        String server = args[0];
        Path resultsDirectory = Path.of(args[1]);
        int runs = Integer.parseInt(setting("BENCH_RUNS", "3"));
        double seconds = Double.parseDouble(setting("BENCH_SECONDS", "1.5"));
        double warmup = Double.parseDouble(setting("BENCH_WARMUP_SECONDS", "0.5"));
        int redisPort = Integer.parseInt(setting("BENCH_REDIS_PORT", "6379"));
        String options = "sslMode=DISABLED&allowPublicKeyRetrieval=true";

        String serverUrl;
        String user;
        String password;
        String origin;
        if (server.equals("mysql")) {
            int port = Integer.parseInt(setting("BENCH_MYSQL_PORT", "33307"));
            Path data = Path.of(setting("BENCH_MYSQL_DATA", "/dev/shm/bizlock-bench-mysql"));
            DatabaseServer mysql = EmbeddedMySqlServer.startOrReuse(data, port);
            serverUrl = mysql.jdbcUrl("");
            user = mysql.username();
            password = mysql.password();
            origin = "embedded, port " + port + ", data in " + data;
        } else {
            serverUrl = setting("BENCH_MARIADB_URL", "jdbc:mysql://127.0.0.1:3306/?" + options);
            user = setting("BENCH_MARIADB_USER", "root");
            password = setting("BENCH_MARIADB_PASSWORD", "");
            origin = serverUrl.replaceFirst("\\?.*", "");
        }
        recreateDatabase(serverUrl, user, password);
        String url = serverUrl.replaceFirst("/(\\?|$)", "/" + DATABASE + "$1");
        if (!url.contains(DATABASE)) {
            throw new IllegalStateException("cannot place the database into " + serverUrl);
        }
        if (!url.contains("sslMode")) {
            url = url + (url.contains("?") ? "&" : "?") + options;
        }
        createSchema(url, user, password);
        Env env = new Env(url, user, password, "127.0.0.1", redisPort);
        long started = System.nanoTime();
        try (Stats stats = new Stats(url, user, password, "127.0.0.1", redisPort)) {
            String version = stats.serverVersion();
            Bench bench = new Bench(env, stats, runs, seconds, warmup);
            for (int run = 1; run <= runs; run++) {
                log("run %d of %d on %s %s", run, runs, server, version);
                bench.runOnce();
            }
            Map<String, Double> held = bench.heldLocks();
            String report = bench.report(server, version, origin, held, System.nanoTime() - started);
            Files.createDirectories(resultsDirectory);
            Path file = resultsDirectory.resolve(LocalDate.now(ZoneOffset.UTC) + "-" + server + ".md");
            Files.writeString(file, report);
            System.out.println(report);
            log("wrote %s", file);
        }
        System.exit(0);
    }

    private void runOnce() throws Exception {
        List<Subject> uncontended = List.of(
                Subjects.LEASE,
                Subjects.ROW,
                Subjects.NAMED,
                Subjects.SHEDLOCK,
                Subjects.SPRING_INTEGRATION,
                Subjects.REDISSON,
                Subjects.FLOOR_INSERT_DELETE,
                Subjects.FLOOR_GET_LOCK,
                Subjects.FLOOR_FOR_UPDATE,
                Subjects.FLOOR_SELECT_1);
        // A alone also runs ROW and NAMED reading their fencing token in every cycle: what a token costs them.
        List<Subject> single = new ArrayList<>(uncontended);
        single.addAll(single.indexOf(Subjects.NAMED) + 1, List.of(Subjects.ROW_TOKEN, Subjects.NAMED_TOKEN));
        for (Subject subject : single) {
            single(subject);
        }
        for (Subject subject : uncontended) {
            distinctKeys(subject);
        }
        List<Subject> contended = List.of(
                Subjects.LEASE,
                Subjects.ROW,
                Subjects.NAMED,
                Subjects.LEASE_FAIR,
                Subjects.ROW_FAIR,
                Subjects.NAMED_FAIR,
                Subjects.SHEDLOCK,
                Subjects.SPRING_INTEGRATION,
                Subjects.REDISSON,
                Subjects.FLOOR_GET_LOCK,
                Subjects.FLOOR_FOR_UPDATE);
        for (Subject subject : contended) {
            contended("C1", subject, 1, THREADS, 1);
        }
        for (Subject subject : contended) {
            contended("C", subject, THREADS, 1, 1);
        }
        for (Subject subject : List.of(
                Subjects.LEASE,
                Subjects.ROW,
                Subjects.NAMED,
                Subjects.SPRING_INTEGRATION,
                Subjects.REDISSON,
                Subjects.FLOOR_GET_LOCK)) {
            contended("C3", subject, 1, 0, 3);
        }
    }

    // ---- A: one thread, lock + unlock ----

    private void single(Subject subject) throws Exception {
        try (Node node = Subjects.node(subject, env, 1)) {
            long warmupEnd = System.nanoTime() + nanos(warmup);
            while (System.nanoTime() < warmupEnd) {
                node.lock("single").unlock();
            }
            Histogram histogram = new Histogram(3);
            Counters before = counters(subject);
            long end = System.nanoTime() + nanos(seconds);
            long cycles = 0;
            for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                node.lock("single").unlock();
                histogram.recordValue(System.nanoTime() - now);
                cycles++;
            }
            Counters used = counters(subject).minus(before);
            record("A", subject, "p50", micros(histogram.getValueAtPercentile(50)));
            record("A", subject, "p99", micros(histogram.getValueAtPercentile(99)));
            recordStatements("A", subject, used, cycles);
            log(
                    "A %-45s p50 %6.0f us  p99 %6.0f us",
                    subject.label(),
                    micros(histogram.getValueAtPercentile(50)),
                    micros(histogram.getValueAtPercentile(99)));
        }
    }

    // ---- B: 8 threads, distinct keys ----

    private void distinctKeys(Subject subject) throws Exception {
        try (Node node = Subjects.node(subject, env, THREADS)) {
            AtomicInteger phase = new AtomicInteger();
            long[][] counts = new long[THREADS][1];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                String key = "distinct-" + t;
                long[] count = counts[t];
                threads.add(new Thread(() -> {
                    try {
                        while (phase.get() < 2) {
                            node.lock(key).unlock();
                            if (phase.get() == 1) {
                                count[0]++;
                            }
                        }
                    } catch (Throwable ex) {
                        failure.compareAndSet(null, ex);
                    }
                }));
            }
            threads.forEach(Thread::start);
            sleep(warmup);
            Counters before = counters(subject);
            long started = System.nanoTime();
            phase.set(1);
            sleep(seconds);
            phase.set(2);
            long elapsed = System.nanoTime() - started;
            Counters used = counters(subject).minus(before);
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new IllegalStateException(subject.label() + " failed in B", failure.get());
            }
            long total = Arrays.stream(counts).mapToLong(count -> count[0]).sum();
            record("B", subject, "ops", total / (elapsed / 1e9));
            recordStatements("B", subject, used, total);
            log("B %-45s %8.0f ops/s", subject.label(), total / (elapsed / 1e9));
        }
    }

    // ---- C1 / C / C3: 8 threads on one key, 1 ms critical section ----

    private void contended(String scenario, Subject subject, int nodes, int threadsPerNode, int jvms) throws Exception {
        Shared shared = Shared.create();
        Contended local = null;
        List<Process> children = new ArrayList<>();
        List<StringBuilder> outputs = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        if (jvms > 1) {
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            for (int j = 0; j < jvms; j++) {
                int threads = THREADS / jvms + (j < THREADS % jvms ? 1 : 0);
                List<String> command = new ArrayList<>(List.of(
                        java,
                        "-Xmx256m",
                        "-XX:TieredStopAtLevel=4",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Contended.class.getName(),
                        subject.id(),
                        Integer.toString(threads),
                        shared.file().toString()));
                command.addAll(env.toArgs());
                Process process = new ProcessBuilder(command)
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                children.add(process);
                StringBuilder output = new StringBuilder();
                outputs.add(output);
                Thread reader = new Thread(() -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            synchronized (output) {
                                output.append(line).append('\n');
                            }
                        }
                    } catch (Exception ignored) {
                        // the process ended
                    }
                });
                reader.start();
                readers.add(reader);
            }
        } else {
            local = new Contended(subject, env, nodes, threadsPerNode, shared);
        }
        long readyBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (shared.get(Shared.READY) < THREADS) {
            if (System.nanoTime() > readyBy || children.stream().anyMatch(p -> !p.isAlive())) {
                shared.set(Shared.PHASE, Shared.STOPPING);
                children.forEach(Process::destroy);
                throw new IllegalStateException(scenario + " " + subject.label() + ": workers did not start");
            }
            LockSupport.parkNanos(5_000_000);
        }
        shared.set(Shared.PHASE, Shared.WARMUP);
        sleep(warmup);
        Counters before = counters(subject);
        long started = System.nanoTime();
        shared.set(Shared.PHASE, Shared.MEASURING);
        sleep(seconds);
        shared.set(Shared.PHASE, Shared.STOPPING);
        long elapsed = System.nanoTime() - started;
        Counters used = counters(subject).minus(before);

        List<Contended.Part> parts = new ArrayList<>();
        if (local != null) {
            parts.add(local.finish());
        }
        for (int j = 0; j < children.size(); j++) {
            Process process = children.get(j);
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(scenario + " " + subject.label() + ": a worker JVM did not stop");
            }
            readers.get(j).join();
            String output;
            synchronized (outputs.get(j)) {
                output = outputs.get(j).toString();
            }
            String line = output.lines()
                    .filter(l -> l.startsWith("RESULT "))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(scenario + " " + subject.label()
                            + ": a worker JVM failed (exit " + process.exitValue() + ")"));
            parts.add(Contended.Part.decode(line));
        }
        Histogram handOff = new Histogram(3);
        List<Long> perThread = new ArrayList<>();
        long heldNanos = 0;
        for (Contended.Part part : parts) {
            handOff.add(part.handOff());
            perThread.addAll(part.perThread());
            heldNanos += part.heldNanos();
        }
        long total = perThread.stream().mapToLong(Long::longValue).sum();
        long min = perThread.stream().mapToLong(Long::longValue).min().orElse(0);
        long max = perThread.stream().mapToLong(Long::longValue).max().orElse(0);
        double rate = total / (elapsed / 1e9);
        double criticalSection = total == 0 ? Double.NaN : heldNanos / (double) total;
        record(scenario, subject, "acq", rate);
        record(scenario, subject, "cs", criticalSection / 1000);
        record(scenario, subject, "serial", 1e9 / criticalSection);
        record(scenario, subject, "p50", micros(handOff.getValueAtPercentile(50)));
        record(scenario, subject, "p99", micros(handOff.getValueAtPercentile(99)));
        recordStatements(scenario, subject, used, total);
        record(scenario, subject, "min", min);
        record(scenario, subject, "max", max);
        record(scenario, subject, "spread", max == 0 ? 0 : 100.0 * (max - min) / max);
        record(scenario, subject, "overlaps", shared.get(Shared.OVERLAPS));
        record(scenario, subject, "tokens", shared.get(Shared.TOKEN_VIOLATIONS));
        Files.deleteIfExists(shared.file());
        log(
                "%-2s %-45s %6.0f acq/s  critical section %5.0f us  hand-off p50 %6.0f us  per thread %d..%d"
                        + "  overlaps %d",
                scenario,
                subject.label(),
                rate,
                criticalSection / 1000,
                micros(handOff.getValueAtPercentile(50)),
                min,
                max,
                shared.get(Shared.OVERLAPS));
    }

    // ---- E: 10,000 held LEASE locks with the watchdog ----

    private Map<String, Double> heldLocks() throws Exception {
        log("E: %d held LEASE locks", HELD_LOCKS);
        Duration lease = Duration.ofSeconds(9); // renewed every 3 s
        Map<String, Double> result = new LinkedHashMap<>();
        try (Subjects.BizLockNode node = new Subjects.BizLockNode(env, LockMode.LEASE, THREADS, false, false, lease)) {
            node.lock("held-warm").unlock();
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            long heapBefore = usedHeapAfterGc(memory);
            CountDownLatch acquired = new CountDownLatch(THREADS);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger lost = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t;
                workers.add(new Thread(() -> {
                    List<LockHandle> handles = new ArrayList<>();
                    try {
                        for (int i = first; i < HELD_LOCKS; i += THREADS) {
                            handles.add(node.manager
                                    .tryAcquire(new LockKey("held", "k" + i), LockMode.LEASE, Subjects.WAIT, null)
                                    .orElseThrow());
                        }
                    } catch (Throwable ex) {
                        failure.compareAndSet(null, ex);
                    }
                    acquired.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    for (LockHandle handle : handles) {
                        try {
                            handle.unlock();
                        } catch (RuntimeException ex) {
                            lost.incrementAndGet();
                        }
                    }
                }));
            }
            long started = System.nanoTime();
            workers.forEach(Thread::start);
            acquired.await();
            double acquireSeconds = (System.nanoTime() - started) / 1e9;
            if (failure.get() != null) {
                release.countDown();
                throw new IllegalStateException("E failed", failure.get());
            }
            long heapAfter = usedHeapAfterGc(memory);
            int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount() - THREADS;
            sleep(lease.toMillis() / 3000.0 / 2);
            Stats.Reading before = stats.read();
            double window = lease.toMillis() / 1000.0;
            sleep(window);
            Stats.Reading used = stats.read().minus(before);
            int renewed = node.manager.renewedCount();
            release.countDown();
            for (Thread worker : workers) {
                worker.join();
            }
            double rounds = window / (lease.toMillis() / 3000.0);
            result.put("held", (double) renewed);
            result.put("acquireSeconds", acquireSeconds);
            result.put("heapPerLock", (heapAfter - heapBefore) / (double) HELD_LOCKS);
            result.put("threadsAdded", (double) (threadsAfter - threadsBefore));
            result.put("renewUpdatesPerSecond", used.updates() / window);
            result.put("statementsPerSecond", used.questions() / window);
            result.put("locksPerRenewUpdate", used.updates() == 0 ? 0 : HELD_LOCKS * rounds / used.updates());
            result.put("lost", (double) lost.get());
            log("E %s", result);
        }
        return result;
    }

    private static long usedHeapAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 4; i++) {
            System.gc();
            LockSupport.parkNanos(100_000_000);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    // ---- bookkeeping ----

    /** Statements of the database, or commands of Redis. */
    private record Counters(Stats.Reading database, long redis) {
        Counters minus(Counters before) {
            return new Counters(database.minus(before.database), redis - before.redis - 1);
        }
    }

    private Counters counters(Subject subject) throws Exception {
        return new Counters(stats.read(), subject.kind() == Kind.REDIS ? stats.redisCommands() : 0);
    }

    private void recordStatements(String scenario, Subject subject, Counters used, long operations) {
        if (operations == 0) {
            return;
        }
        if (subject.kind() == Kind.REDIS) {
            record(scenario, subject, "stmts", used.redis() / (double) operations);
            return;
        }
        record(scenario, subject, "stmts", used.database().questions() / (double) operations);
        record(
                scenario,
                subject,
                "stmtsNoTx",
                (used.database().questions() - used.database().transactionControl()) / (double) operations);
    }

    private void record(String scenario, Subject subject, String metric, double value) {
        results.computeIfAbsent(scenario, s -> new LinkedHashMap<>())
                .computeIfAbsent(subject, s -> new LinkedHashMap<>())
                .computeIfAbsent(metric, m -> new ArrayList<>())
                .add(value);
    }

    /** The median over runs, or NaN if not measured. */
    private double median(String scenario, Subject subject, String metric) {
        List<Double> values = results.getOrDefault(scenario, Map.of())
                .getOrDefault(subject, Map.of())
                .get(metric);
        if (values == null || values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted =
                values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private double sum(String scenario, Subject subject, String metric) {
        return results
                .getOrDefault(scenario, Map.of())
                .getOrDefault(subject, Map.of())
                .getOrDefault(metric, List.of())
                .stream()
                .mapToDouble(Double::doubleValue)
                .sum();
    }

    // ---- the report ----

    private String report(String server, String version, String origin, Map<String, Double> held, long elapsedNanos)
            throws Exception {
        StringBuilder out = new StringBuilder();
        out.append("# bizlock benchmarks: ").append(product(version)).append("\n\n");
        out.append("- date: ")
                .append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append(" UTC\n");
        out.append("- server: ").append(version).append(" (").append(origin).append(")\n");
        out.append("- code: bizlock ")
                .append(setting("BENCH_REVISION", "(revision unknown)"))
                .append('\n');
        out.append("- Redis: ")
                .append(redisVersion())
                .append(" at 127.0.0.1:")
                .append(env.redisPort())
                .append('\n');
        out.append("- machine: ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, ")
                .append(memoryGib())
                .append(" GiB; JDK ")
                .append(System.getProperty("java.version"))
                .append("; ")
                .append(System.getProperty("os.name"))
                .append(' ')
                .append(System.getProperty("os.arch"))
                .append('\n');
        out.append(String.format(
                Locale.ROOT,
                "- command: `lock-benchmarks/run.sh` (%s); %d runs, medians shown; %.1f s measured after %.1f s warm-up"
                        + " per scenario and subject; this server's part took %.0f s%n",
                server,
                runs,
                seconds,
                warmup,
                elapsedNanos / 1e9));
        out.append("- statements: the server's `Questions` delta per operation, transaction control (`BEGIN`,"
                + " `COMMIT`, `ROLLBACK`, `SET autocommit`) included; \"excl. tx\" leaves it out. For Redisson: Redis"
                + " commands (`total_commands_processed`, which counts the calls inside its Lua scripts too).\n\n");

        out.append("## A: one thread, lock + unlock (µs per cycle)\n\n");
        out.append("| subject | p50 | p99 | statements | excl. tx | fencing token |\n"
                + "| --- | ---: | ---: | ---: | ---: | --- |\n");
        for (Subject subject : subjects("A")) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f | %.0f | %s | %s | %s |%n",
                    subject.label(),
                    median("A", subject, "p50"),
                    median("A", subject, "p99"),
                    number(median("A", subject, "stmts"), 1),
                    number(median("A", subject, "stmtsNoTx"), 1),
                    tokenRead(subject, false)));
        }
        out.append("\nFencing token: A's loop itself never asks for it. bizlock ROW and NAMED issue their token only"
                + " when a hold first asks for it (`LockHandle.fencingToken()`), so their plain rows pay nothing for"
                + " one; the \"+ token\" rows read it on every acquisition, as a holder that fences its writes does,"
                + " and their difference to the plain rows is the honest price of a token (by design one more"
                + " statement for NAMED, two for ROW). LEASE has no \"+ token\" row: its token comes back with the"
                + " acquiring `UPDATE`, so reading it costs nothing. \"none\": the implementation has no fencing"
                + " token.\n");
        out.append("\n## B: 8 threads, distinct keys, one client\n\n");
        out.append("| subject | ops/s | statements/op |\n| --- | ---: | ---: |\n");
        for (Subject subject : subjects("B")) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f | %s |%n",
                    subject.label(),
                    median("B", subject, "ops"),
                    number(median("B", subject, "stmts"), 1)));
        }
        out.append("\nB never asks for the fencing token: the bizlock rows are without one, like A's plain rows.\n");
        contendedTable(out, "C1", "C1: 8 threads of one client on one key, 1 ms critical section");
        contendedTable(
                out, "C", "C: 8 clients (as 8 nodes) of one thread each, one JVM, one key, 1 ms critical section");
        contendedTable(
                out, "C3", "C: 3 JVM processes (3 + 3 + 2 threads, one client each), one key, 1 ms critical section");

        out.append("\n## E: ")
                .append(HELD_LOCKS)
                .append(" held LEASE locks, watchdog lease 9 s (renewed every 3 s)\n\n");
        out.append("| metric | value |\n| --- | ---: |\n");
        out.append(String.format(Locale.ROOT, "| locks held (watchdog-registered) | %.0f |%n", held.get("held")));
        out.append(String.format(
                Locale.ROOT, "| time to acquire them with 8 threads | %.1f s |%n", held.get("acquireSeconds")));
        out.append(String.format(Locale.ROOT, "| heap per held lock | %.0f bytes |%n", held.get("heapPerLock")));
        out.append(String.format(Locale.ROOT, "| locks lost before unlock | %.0f |%n", held.get("lost")));
        out.append(String.format(Locale.ROOT, "| threads added | %.0f |%n", held.get("threadsAdded")));
        out.append(String.format(
                Locale.ROOT, "| renewal `UPDATE`s per second | %.1f |%n", held.get("renewUpdatesPerSecond")));
        out.append(String.format(
                Locale.ROOT,
                "| statements per second (all, tx control included) | %.1f |%n",
                held.get("statementsPerSecond")));
        out.append(String.format(
                Locale.ROOT, "| locks renewed per renewal `UPDATE` | %.0f |%n", held.get("locksPerRenewUpdate")));

        out.append("\n## Targets (medians of this run)\n\n");
        out.append("| target | measured | met |\n| --- | --- | --- |\n");
        targets(out, held);
        return out.toString();
    }

    private List<Subject> subjects(String scenario) {
        return new ArrayList<>(results.getOrDefault(scenario, Map.of()).keySet());
    }

    private void contendedTable(StringBuilder out, String scenario, String title) {
        if (!results.containsKey(scenario)) {
            return;
        }
        out.append("\n## ").append(title).append("\n\n");
        out.append("| subject | acquisitions/s | critical section µs | serial limit /s | hand-off p50 µs"
                + " | hand-off p99 µs | statements/acq | per thread min..max | spread | overlaps (D) | token errors"
                + " | fencing token |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        for (Subject subject : subjects(scenario)) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %.0f..%.0f | %.0f %% | %.0f | %.0f | %s |%n",
                    subject.label(),
                    median(scenario, subject, "acq"),
                    median(scenario, subject, "cs"),
                    median(scenario, subject, "serial"),
                    median(scenario, subject, "p50"),
                    median(scenario, subject, "p99"),
                    number(median(scenario, subject, "stmts"), 1),
                    median(scenario, subject, "min"),
                    median(scenario, subject, "max"),
                    median(scenario, subject, "spread"),
                    sum(scenario, subject, "overlaps"),
                    sum(scenario, subject, "tokens"),
                    tokenRead(subject, true)));
        }
        double[] criticalSection = range(scenario, "cs");
        double[] serial = range(scenario, "serial");
        out.append(String.format(
                Locale.ROOT,
                "%nCritical section: each holder keeps the lock until %.0f µs have passed since it acquired it (it parks,"
                        + " then spins for the last 200 µs, since `parkNanos` alone overshoots by tens of µs);"
                        + " \"critical section\" is the mean time it actually held it, acquisition to release (the"
                        + " token read happens inside that time), here %s µs. \"serial limit\" = 1 s /"
                        + " that mean, the most acquisitions/s any lock could reach on this machine even with no"
                        + " hand-off time at all: here %s /s.",
                Contended.CRITICAL_SECTION_NANOS / 1000.0,
                span(criticalSection, 0),
                span(serial, 0)));
        if (scenario.equals("C1")) {
            out.append(String.format(
                    Locale.ROOT,
                    " The issue's target of %.0f acquisitions/s (\"90 %% of the serial limit\", taking the limit as a"
                            + " nominal 1000/s) is %s %% of these measured limits.",
                    C1_TARGET,
                    span(new double[] {100 * C1_TARGET / serial[1], 100 * C1_TARGET / serial[0]}, 0)));
        }
        out.append(" Fencing token: every acquisition asks for it, for the D check (tokens must increase), so bizlock"
                + " ROW and NAMED pay for a token on every acquisition (LEASE's is free); \"none\": the implementation"
                + " has no fencing token.\n");
    }

    /** The smallest and largest median of {@code metric} among the subjects of {@code scenario}. */
    private double[] range(String scenario, String metric) {
        double[] medians = subjects(scenario).stream()
                .mapToDouble(subject -> median(scenario, subject, metric))
                .filter(value -> !Double.isNaN(value))
                .toArray();
        return new double[] {
            Arrays.stream(medians).min().orElse(Double.NaN),
            Arrays.stream(medians).max().orElse(Double.NaN)
        };
    }

    private static String span(double[] range, int decimals) {
        String low = number(range[0], decimals);
        String high = number(range[1], decimals);
        return low.equals(high) ? low : low + ".." + high;
    }

    /** Whether {@code subject} read its fencing token in a scenario; {@code asked}: whether the scenario asks. */
    private static String tokenRead(Subject subject, boolean asked) {
        return switch (subject.token()) {
            case NONE -> "none";
            case WHEN_ASKED -> asked ? "read every acquisition" : "not read";
            case EVERY_LOCK -> "read every acquisition";
        };
    }

    private void targets(StringBuilder out, Map<String, Double> held) {
        double namedA = median("A", Subjects.NAMED, "p50");
        double getLockA = median("A", Subjects.FLOOR_GET_LOCK, "p50");
        double redissonA = median("A", Subjects.REDISSON, "p50");
        double leaseA = median("A", Subjects.LEASE, "p50");
        double insertA = median("A", Subjects.FLOOR_INSERT_DELETE, "p50");
        ratio(out, "A: NAMED p50 ≤ 1.2 × GET_LOCK floor", namedA, getLockA, 1.2, true);
        ratio(out, "A: NAMED p50 ≤ 0.5 × Redisson", namedA, redissonA, 0.5, true);
        ratio(out, "A: LEASE p50 ≤ 1.1 × INSERT+DELETE floor", leaseA, insertA, 1.1, true);
        limit(out, "A: LEASE ≤ 2 statements besides tx control", median("A", Subjects.LEASE, "stmtsNoTx"), 2, true);
        record FloorOf(Subject mode, Subject floor, String floorName) {}
        for (FloorOf pair : List.of(
                new FloorOf(Subjects.LEASE, Subjects.FLOOR_INSERT_DELETE, "INSERT+DELETE"),
                new FloorOf(Subjects.ROW, Subjects.FLOOR_FOR_UPDATE, "FOR UPDATE"),
                new FloorOf(Subjects.NAMED, Subjects.FLOOR_GET_LOCK, "GET_LOCK"))) {
            ratio(
                    out,
                    "B: " + pair.mode().label() + " ≥ 0.9 × " + pair.floorName() + " floor",
                    median("B", pair.mode(), "ops"),
                    median("B", pair.floor(), "ops"),
                    0.9,
                    false);
        }
        for (Subject mode : List.of(Subjects.LEASE, Subjects.ROW, Subjects.NAMED)) {
            limit(out, "C1: " + mode.label() + " ≥ 900 acquisitions/s", median("C1", mode, "acq"), C1_TARGET, false);
            double serial = median("C1", mode, "serial");
            ratio(
                    out,
                    "C1: " + mode.label() + " ≥ 0.9 × its measured serial limit (the 900/s target is "
                            + number(100 * C1_TARGET / serial, 0) + " % of that limit)",
                    median("C1", mode, "acq"),
                    serial,
                    0.9,
                    false);
            limit(out, "C1: " + mode.label() + " hand-off p50 ≤ 100 µs", median("C1", mode, "p50"), 100, true);
        }
        for (String scenario : List.of("C", "C3")) {
            String name = scenario.equals("C") ? "C (8 clients)" : "C (3 JVMs)";
            ratio(
                    out,
                    name + ": LEASE ≥ 1.5 × Spring Integration",
                    median(scenario, Subjects.LEASE, "acq"),
                    median(scenario, Subjects.SPRING_INTEGRATION, "acq"),
                    1.5,
                    false);
            limit(
                    out,
                    name + ": LEASE ≤ 4 statements per acquisition",
                    median(scenario, Subjects.LEASE, "stmts"),
                    4,
                    true);
            for (Subject mode : List.of(Subjects.ROW, Subjects.NAMED)) {
                ratio(
                        out,
                        name + ": " + mode.label() + " ≥ 0.95 × GET_LOCK floor",
                        median(scenario, mode, "acq"),
                        median(scenario, Subjects.FLOOR_GET_LOCK, "acq"),
                        0.95,
                        false);
            }
        }
        double overlaps = 0;
        double tokens = 0;
        for (String scenario : List.of("C1", "C", "C3")) {
            for (Subject subject : subjects(scenario)) {
                overlaps += sum(scenario, subject, "overlaps");
                tokens += sum(scenario, subject, "tokens");
            }
        }
        limit(out, "D: overlaps in every C1/C run, every subject (sum) = 0", overlaps, 0, true);
        limit(out, "D: bizlock tokens not increasing (sum) = 0", tokens, 0, true);
        limit(
                out,
                "E: threads added for " + HELD_LOCKS + " held locks (no thread per lock)",
                held.get("threadsAdded"),
                8,
                true);
        limit(out, "E: heap per held lock ≤ 1024 bytes", held.get("heapPerLock"), 1024, true);
        limit(out, "E: held locks lost = 0", held.get("lost"), 0, true);
        limit(out, "E: ≥ 50 locks per renewal statement", held.get("locksPerRenewUpdate"), 50, false);
        for (String scenario : List.of("C1", "C")) {
            for (Subject fair : List.of(Subjects.LEASE_FAIR, Subjects.ROW_FAIR, Subjects.NAMED_FAIR)) {
                limit(
                        out,
                        scenario + ": " + fair.label() + " per-thread spread ≤ 10 %",
                        median(scenario, fair, "spread"),
                        10,
                        true);
            }
        }
    }

    private static void ratio(
            StringBuilder out, String target, double value, double base, double bound, boolean atMost) {
        double ratio = value / base;
        boolean met = atMost ? ratio <= bound : ratio >= bound;
        out.append(String.format(
                Locale.ROOT,
                "| %s | %s / %s = **%.2f ×** | %s |%n",
                target,
                number(value, value < 10 ? 1 : 0),
                number(base, base < 10 ? 1 : 0),
                ratio,
                Double.isNaN(ratio) ? "n/a" : met ? "met" : "**missed**"));
    }

    private static void limit(StringBuilder out, String target, double value, double bound, boolean atMost) {
        boolean met = atMost ? value <= bound : value >= bound;
        out.append(String.format(
                Locale.ROOT,
                "| %s | %s | %s |%n",
                target,
                number(value, value < 10 ? 1 : 0),
                Double.isNaN(value) ? "n/a" : met ? "met" : "**missed**"));
    }

    private static String number(double value, int decimals) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String product(String version) {
        return version.toLowerCase(Locale.ROOT).contains("mariadb")
                ? "MariaDB " + version.split("-")[0]
                : "MySQL " + version.split("-")[0];
    }

    private String redisVersion() {
        try (java.net.Socket socket = new java.net.Socket(env.redisHost(), env.redisPort())) {
            socket.getOutputStream().write("*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n".getBytes(StandardCharsets.US_ASCII));
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("redis_version:")) {
                    return line.substring("redis_version:".length()).strip();
                }
            }
        } catch (Exception ex) {
            return "unknown";
        }
        return "unknown";
    }

    private static long memoryGib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kib = Long.parseLong(line.replaceAll("\\D", ""));
                    return Math.round(kib / 1024.0 / 1024.0);
                }
            }
        } catch (Exception ex) {
            // not Linux
        }
        return Runtime.getRuntime().maxMemory() >> 30;
    }

    private static void recreateDatabase(String serverUrl, String user, String password) throws SQLException {
        try (Connection connection = DriverManager.getConnection(serverUrl, user, password);
                Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + DATABASE);
            statement.execute("CREATE DATABASE " + DATABASE + " CHARACTER SET utf8mb4");
        }
    }

    private static void createSchema(String url, String user, String password) throws SQLException {
        List<String> ddl = new ArrayList<>();
        String lease = LockSchema.ddl(TableName.DEFAULT).replaceAll("(?m)^--.*$", "");
        Arrays.stream(lease.split(";"))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .forEach(ddl::add);
        ddl.addAll(Subjects.DDL);
        try (Connection connection = DriverManager.getConnection(url, user, password);
                Statement statement = connection.createStatement()) {
            for (String sql : ddl) {
                statement.execute(sql);
            }
        }
    }

    private static String setting(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static long nanos(double seconds) {
        return (long) (seconds * 1e9);
    }

    private static double micros(long nanos) {
        return nanos / 1000.0;
    }

    private static void sleep(double seconds) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(nanos(seconds));
    }

    private static void log(String format, Object... args) {
        System.err.printf(
                Locale.ROOT,
                "[%s] %s%n",
                ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("HH:mm:ss")),
                String.format(Locale.ROOT, format, args));
    }
}
