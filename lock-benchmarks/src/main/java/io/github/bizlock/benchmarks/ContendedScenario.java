package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Scenarios.THREADS;
import static io.github.bizlock.benchmarks.Timing.log;
import static io.github.bizlock.benchmarks.Timing.micros;
import static io.github.bizlock.benchmarks.Timing.sleep;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * C1, C and C3: 8 threads on one key, each holding it for 1 ms, in this JVM ({@link Contended}) or in worker JVMs;
 * this side moves them through the {@link Shared} phases, counts the statements and records what they measured.
 */
final class ContendedScenario {

    private final Env env;
    private final Stats stats;
    private final Results results;
    private final Settings settings;

    ContendedScenario(ScenarioContext context) {
        this.env = context.env();
        this.stats = context.stats();
        this.results = context.results();
        this.settings = context.settings();
    }

    /**
     * One contended measurement: {@code nodes} clients of {@code threadsPerNode} threads in this JVM, or with
     * {@code jvms} > 1 that many worker JVMs of one client each, sharing {@link Scenarios#THREADS} threads.
     */
    void run(String scenario, Subject subject, int nodes, int threadsPerNode, int jvms) throws Exception {
        String run = scenario + " " + subject.label();
        Shared shared = Shared.create();
        Contended local = null;
        WorkerJvms workers = null;
        if (jvms > 1) {
            workers = WorkerJvms.start(subject, env, shared, jvms, THREADS);
        } else {
            local = new Contended(subject, env, nodes, threadsPerNode, shared);
        }
        long readyBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (shared.get(Shared.READY) < THREADS) {
            if (System.nanoTime() > readyBy || (workers != null && workers.anyEnded())) {
                shared.set(Shared.PHASE, Shared.STOPPING);
                if (workers != null) {
                    workers.destroy();
                }
                throw new IllegalStateException(run + ": workers did not start");
            }
            LockSupport.parkNanos(5_000_000);
        }
        shared.set(Shared.PHASE, Shared.WARMUP);
        sleep(settings.warmup());
        Counters before = Counters.read(stats, subject);
        long started = System.nanoTime();
        shared.set(Shared.PHASE, Shared.MEASURING);
        sleep(settings.seconds());
        shared.set(Shared.PHASE, Shared.STOPPING);
        long elapsed = System.nanoTime() - started;
        Counters used = Counters.read(stats, subject).minus(before);

        List<Contended.Part> parts = new ArrayList<>();
        if (local != null) {
            parts.add(local.finish());
        }
        if (workers != null) {
            parts.addAll(workers.finish(run));
        }
        record(scenario, subject, parts, shared, used, elapsed);
        Files.deleteIfExists(shared.file());
    }

    private void record(
            String scenario, Subject subject, List<Contended.Part> parts, Shared shared, Counters used, long elapsed) {
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
        results.record(scenario, subject, "acq", rate);
        results.record(scenario, subject, "cs", criticalSection / 1000);
        results.record(scenario, subject, "serial", 1e9 / criticalSection);
        results.record(scenario, subject, "p50", micros(handOff.getValueAtPercentile(50)));
        results.record(scenario, subject, "p99", micros(handOff.getValueAtPercentile(99)));
        results.recordStatements(scenario, subject, used, total);
        results.record(scenario, subject, "min", min);
        results.record(scenario, subject, "max", max);
        results.record(scenario, subject, "spread", max == 0 ? 0 : 100.0 * (max - min) / max);
        results.record(scenario, subject, "overlaps", shared.get(Shared.OVERLAPS));
        results.record(scenario, subject, "tokens", shared.get(Shared.TOKEN_VIOLATIONS));
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
}
