package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.HeldLocksScenario.HELD_LOCKS;
import static io.github.bizlock.benchmarks.Numbers.number;
import static io.github.bizlock.benchmarks.Numbers.orNa;
import static io.github.bizlock.benchmarks.Numbers.tokenRead;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/** The markdown report of one server: where and how it ran, a table per scenario, and the targets. */
final class Report {

    private Report() {}

    /**
     * @param version the server's {@code VERSION()}
     * @param origin where the server runs
     * @param durability the server's durability settings ({@link Stats#durability})
     * @param files the base name of the CSV and charts beside the report ({@code <date>-<server>})
     * @param held E's metrics
     */
    static String write(
            ScenarioContext context,
            String server,
            String version,
            String origin,
            String durability,
            String files,
            Map<String, Double> held,
            long elapsedNanos) {
        Results results = context.results();
        StringBuilder out = new StringBuilder();
        header(out, server, version, origin, durability, context, elapsedNanos);
        charts(out, files);
        single(out, results);
        distinctKeys(out, results);
        ContendedTable.write(out, results, "C1", "C1: 8 threads of one client on one key, 1 ms critical section");
        ContendedTable.write(
                out,
                results,
                "C",
                "C: 8 clients (as 8 nodes) of one thread each, one JVM, one key, 1 ms critical section");
        ContendedTable.write(
                out,
                results,
                "C3",
                "C: 3 JVM processes (3 + 3 + 2 threads, one client each), one key, 1 ms critical section");
        SemaphoreTable.write(
                out,
                results,
                SemaphoreScenario.SCENARIO,
                "S: a semaphore of " + SemaphoreScenario.PERMITS + " permits, " + SemaphoreScenario.THREADS
                        + " threads of one client, one key, 1 ms held");
        SemaphoreTable.write(
                out,
                results,
                SemaphoreScenario.ACROSS_JVMS,
                "S3: the same semaphore, " + SemaphoreScenario.JVMS
                        + " JVM processes (6 + 5 + 5 threads, one client each)");
        KillTable.write(out, results);
        heldLocks(out, held);
        out.append("\n## Targets of issue 32 (medians of this run; wait max: the worst run)\n\n");
        out.append("| target | measured | met |\n| --- | --- | --- |\n");
        Targets.writeIssue32(out, results);
        out.append("\n## Targets of issue 7 (medians of this run)\n\n");
        out.append("| target | measured | met |\n| --- | --- | --- |\n");
        Targets.write(out, results, held);
        return out.toString();
    }

    private static void header(
            StringBuilder out,
            String server,
            String version,
            String origin,
            String durability,
            ScenarioContext context,
            long elapsedNanos) {
        Env env = context.env();
        Settings settings = context.settings();
        out.append("# bizlock benchmarks: ").append(Machine.product(version)).append("\n\n");
        out.append("- date: ")
                .append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append(" UTC\n");
        out.append("- server: ").append(version).append(" (").append(origin).append(")\n");
        out.append("- durability: ").append(durability).append('\n');
        out.append("- code: bizlock ")
                .append(Settings.get("BENCH_REVISION", "(revision unknown)"))
                .append('\n');
        out.append("- Redis: ")
                .append(Machine.redisVersion(env))
                .append(" at 127.0.0.1:")
                .append(env.redisPort())
                .append('\n');
        out.append("- machine: ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, ")
                .append(Machine.memoryGib())
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
                settings.runs(),
                settings.seconds(),
                settings.warmup(),
                elapsedNanos / 1e9));
        out.append("- statements: the server's `Questions` delta per operation, transaction control (`BEGIN`,"
                + " `COMMIT`, `ROLLBACK`, `SET autocommit`) included; \"excl. tx\" leaves it out. For Redisson: Redis"
                + " commands (`total_commands_processed`, which counts the calls inside its Lua scripts too).\n");
        out.append("- server work: InnoDB fsyncs (`Innodb_data_fsyncs`), redo bytes (`Innodb_lsn_current` on MariaDB,"
                + " `Innodb_redo_log_current_lsn` on MySQL 8.0.30+) and binary log syncs (performance_schema's"
                + " `wait/io/file/sql/binlog`, MySQL) per operation, from the server's global counters over the"
                + " measured seconds: everything the server did then, the benchmark's own 2 readings included;"
                + " \"n/a\": the server does not count it.\n\n");
    }

    private static void charts(StringBuilder out, String files) {
        out.append("Charts (drawn from the raw waits in [`")
                .append(files)
                .append("-waits.csv`](")
                .append(files)
                .append("-waits.csv), one row per acquisition of C1, C, C3 and K):\n\n");
        out.append("![throughput per scenario](").append(files.substring(0, 10)).append("-throughput.png)\n");
        out.append("![wait-time CDF, C1 and C](").append(files).append("-wait-cdf.png)\n");
        out.append("![acquisitions per thread (C1) and per instance (C)](")
                .append(files)
                .append("-strip.png)\n\n");
    }

    private static void single(StringBuilder out, Results results) {
        out.append("## A: one thread, lock + unlock (µs per cycle)\n\n");
        out.append(
                "| subject | p50 | p99 | statements | excl. tx | fsyncs | redo bytes | binlog syncs | fencing token |\n"
                        + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        for (Subject subject : results.subjects("A")) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f | %.0f | %s | %s | %s | %s | %s | %s |%n",
                    subject.label(),
                    results.median("A", subject, "p50"),
                    results.median("A", subject, "p99"),
                    number(results.median("A", subject, "stmts"), 1),
                    number(results.median("A", subject, "stmtsNoTx"), 1),
                    orNa(results.median("A", subject, "fsyncs"), 1),
                    orNa(results.median("A", subject, "redo"), 0),
                    orNa(results.median("A", subject, "binlog"), 1),
                    tokenRead(subject, false)));
        }
        out.append("\nFencing token: A's loop itself never asks for it. bizlock ROW and NAMED issue their token only"
                + " when a hold first asks for it (`LockHandle.fencingToken()`), so their plain rows pay nothing for"
                + " one; the \"+ token\" rows read it on every acquisition, as a holder that fences its writes does,"
                + " and their difference to the plain rows is the honest price of a token (by design one more"
                + " statement for NAMED, two for ROW). LEASE has no \"+ token\" row: its token comes back with the"
                + " acquiring `UPDATE`, so reading it costs nothing. \"none\": the implementation has no fencing"
                + " token.\n");
    }

    private static void distinctKeys(StringBuilder out, Results results) {
        out.append("\n## B: 8 threads, distinct keys, one client\n\n");
        out.append("| subject | ops/s | statements/op | fsyncs/op | redo bytes/op | binlog syncs/op |\n"
                + "| --- | ---: | ---: | ---: | ---: | ---: |\n");
        for (Subject subject : results.subjects("B")) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f | %s | %s | %s | %s |%n",
                    subject.label(),
                    results.median("B", subject, "ops"),
                    number(results.median("B", subject, "stmts"), 1),
                    orNa(results.median("B", subject, "fsyncs"), 1),
                    orNa(results.median("B", subject, "redo"), 0),
                    orNa(results.median("B", subject, "binlog"), 1)));
        }
        out.append("\nB never asks for the fencing token: the bizlock rows are without one, like A's plain rows.\n");
    }

    private static void heldLocks(StringBuilder out, Map<String, Double> held) {
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
    }
}
