package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Timing.log;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;

/**
 * Runs every scenario of issues 7 and 32 against one server ({@code mysql}: the embedded MySQL 8.0; {@code mariadb}:
 * the server at 127.0.0.1:3306), {@code BENCH_RUNS} times, and writes the medians as a markdown table, the raw waits
 * as CSV and the charts as PNG ({@link ResultFiles}).
 *
 * <p>Arguments: {@code <mysql|mariadb> <results directory>}; the environment variables are those of {@link Settings}.
 */
public final class Bench {

    private Bench() {}

    public static void main(String[] args) throws Exception {
        String server = args[0];
        Path resultsDirectory = Path.of(args[1]);
        Settings settings = Settings.fromEnvironment();
        BenchServer database = BenchServer.start(server);
        BenchSchema.create(database);
        Env env = database.env(settings.redisPort());
        long started = System.nanoTime();
        try (Stats stats = new Stats(env)) {
            String version = stats.serverVersion();
            String durability = stats.durability();
            Results results = new Results();
            ScenarioContext context = new ScenarioContext(env, stats, results, settings);
            Scenarios scenarios = new Scenarios(context);
            for (int run = 1; run <= settings.runs(); run++) {
                log("run %d of %d on %s %s", run, settings.runs(), server, version);
                results.waits().startRun(run);
                scenarios.runOnce();
            }
            Map<String, Double> held = new HeldLocksScenario(context).run();
            ResultFiles files = new ResultFiles(
                    resultsDirectory, LocalDate.now(ZoneOffset.UTC).toString(), server);
            String report = Report.write(
                    context,
                    server,
                    version,
                    database.origin(),
                    durability,
                    files.base(),
                    held,
                    System.nanoTime() - started);
            Files.createDirectories(resultsDirectory);
            Files.writeString(files.report(), report);
            System.out.println(report);
            log("wrote %s", files.report());
            files.write(results);
        }
        System.exit(0);
    }
}
