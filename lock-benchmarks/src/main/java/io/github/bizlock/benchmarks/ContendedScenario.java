package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Scenarios.THREADS;
import static io.github.bizlock.benchmarks.Timing.log;
import static io.github.bizlock.benchmarks.Timing.micros;
import static io.github.bizlock.benchmarks.Timing.sleep;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * C1, C and C3: 8 threads on one key, each holding it for 1 ms, in this JVM ({@link Contended}) or in worker JVMs;
 * this side moves them through the {@link Shared} phases, counts the statements and records what they measured.
 */
final class ContendedScenario {

    private final ScenarioContext context;
    private final Env env;
    private final Results results;

    ContendedScenario(ScenarioContext context) {
        this.context = context;
        this.env = context.env();
        this.results = context.results();
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
            local = new Contended(subject, env, nodes, threadsPerNode, shared, 0);
        }
        Measured measured =
                measure(context, run, subject, shared, THREADS, local == null ? null : local::finish, workers);
        // Same owner: the same thread in C1 (one client), else the same instance (client or JVM).
        record(
                scenario,
                subject,
                measured.parts(),
                shared,
                measured.used(),
                measured.elapsed(),
                nodes == 1 && jvms == 1);
        Files.deleteIfExists(shared.file());
    }

    /** The threads of this JVM of a run, ended after {@link Shared#STOPPING}. */
    @FunctionalInterface
    interface LocalPart {
        ContendedPart finish() throws Exception;
    }

    /**
     * What one run measured: each JVM's part, the statements counted and the measured nanoseconds.
     *
     * @param elapsed the measured time in nanoseconds
     */
    record Measured(List<ContendedPart> parts, Counters used, long elapsed) {}

    /**
     * Moves the {@code threads} threads of a run (in this JVM, {@code local}, or in {@code workers}) through the
     * {@link Shared} phases: ready, warm-up, the measured seconds with the statements counted, stop; then collects what
     * each JVM measured.
     */
    static Measured measure(
            ScenarioContext context,
            String run,
            Subject subject,
            Shared shared,
            int threads,
            @Nullable LocalPart local,
            @Nullable WorkerJvms workers)
            throws Exception {
        awaitReady(shared, workers, run, threads);
        shared.set(Shared.PHASE, Shared.WARMUP);
        sleep(context.settings().warmup());
        Counters before = Counters.read(context.stats(), subject);
        long started = System.nanoTime();
        shared.set(Shared.PHASE, Shared.MEASURING);
        sleep(context.settings().seconds());
        shared.set(Shared.PHASE, Shared.STOPPING);
        long elapsed = System.nanoTime() - started;
        Counters used = Counters.read(context.stats(), subject).minus(before);
        List<ContendedPart> parts = new ArrayList<>();
        if (local != null) {
            parts.add(local.finish());
        }
        if (workers != null) {
            parts.addAll(workers.finish(run));
        }
        return new Measured(parts, used, elapsed);
    }

    /** Waits until every thread has locked once; stops the run if that takes 2 minutes or a worker JVM ended. */
    static void awaitReady(Shared shared, WorkerJvms workers, String run) {
        awaitReady(shared, workers, run, THREADS);
    }

    /** As above, for a run of {@code threads} threads. */
    static void awaitReady(Shared shared, WorkerJvms workers, String run, int threads) {
        long readyBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (shared.get(Shared.READY) < threads) {
            if (System.nanoTime() > readyBy || (workers != null && workers.anyEnded())) {
                shared.set(Shared.PHASE, Shared.STOPPING);
                if (workers != null) {
                    workers.destroy();
                }
                throw new IllegalStateException(run + ": workers did not start");
            }
            LockSupport.parkNanos(5_000_000);
        }
    }

    /** Records what {@code parts} measured in {@code elapsed}, and the raw waits of every thread. */
    void record(
            String scenario,
            Subject subject,
            List<ContendedPart> parts,
            Shared shared,
            Counters used,
            long elapsed,
            boolean ownerIsThread) {
        double seconds = elapsed / 1e9;
        Histogram handOff = new Histogram(3);
        List<Long> perThread = new ArrayList<>();
        Map<Integer, long[]> perInstance = new HashMap<>(); // instance -> {acquisitions, threads}
        List<long[]> waits = new ArrayList<>();
        long heldNanos = 0;
        long sameOwner = 0;
        for (ContendedPart part : parts) {
            handOff.add(part.handOff());
            perThread.addAll(part.perThread());
            heldNanos += part.heldNanos();
            sameOwner += ownerIsThread ? part.sameThread() : part.sameInstance();
            for (int i = 0; i < part.perThread().size(); i++) {
                int instance = part.instances().get(i);
                long[] tally = perInstance.computeIfAbsent(instance, k -> new long[2]);
                long[] threadWaits = part.waits().get(i);
                results.waits()
                        .add(scenario, subject, instance, (int) tally[1], threadWaits, threadWaits.length / seconds);
                tally[0] += part.perThread().get(i);
                tally[1]++;
                waits.add(threadWaits);
            }
        }
        long total = perThread.stream().mapToLong(Long::longValue).sum();
        long min = perThread.stream().mapToLong(Long::longValue).min().orElse(0);
        long max = perThread.stream().mapToLong(Long::longValue).max().orElse(0);
        double rate = total / seconds;
        double criticalSection = total == 0 ? Double.NaN : heldNanos / (double) total;
        results.record(scenario, subject, "acq", rate);
        results.record(scenario, subject, "cs", criticalSection / 1000);
        results.record(scenario, subject, "serial", 1e9 / criticalSection);
        results.record(scenario, subject, "p50", micros(handOff.getValueAtPercentile(50)));
        results.record(scenario, subject, "p99", micros(handOff.getValueAtPercentile(99)));
        results.recordStatements(scenario, subject, used, total);
        results.record(scenario, subject, "min", min);
        results.record(scenario, subject, "max", max);
        results.record(scenario, subject, "spread", spread(min, max));
        results.record(scenario, subject, "threadMin", min / seconds);
        results.record(scenario, subject, "threadMax", max / seconds);
        results.record(scenario, subject, "overlaps", shared.get(Shared.OVERLAPS));
        results.record(scenario, subject, "tokens", shared.get(Shared.TOKEN_VIOLATIONS));
        results.record(scenario, subject, "sameOwner", total == 0 ? Double.NaN : 100.0 * sameOwner / total);
        // Per instance, as acquisitions per second per thread: C3's JVMs have 3, 3 and 2 threads.
        double[] instanceRates = perInstance.values().stream()
                .mapToDouble(tally -> tally[0] / seconds / tally[1])
                .sorted()
                .toArray();
        double instanceMin = instanceRates.length == 0 ? 0 : instanceRates[0];
        double instanceMax = instanceRates.length == 0 ? 0 : instanceRates[instanceRates.length - 1];
        results.record(scenario, subject, "instMin", instanceMin);
        results.record(scenario, subject, "instMax", instanceMax);
        results.record(scenario, subject, "instSpread", spread(instanceMin, instanceMax));
        long[] sorted = waits.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        results.record(scenario, subject, "w50", WaitSamples.percentile(sorted, 50) / 1e6);
        results.record(scenario, subject, "w99", WaitSamples.percentile(sorted, 99) / 1e6);
        results.record(scenario, subject, "w999", WaitSamples.percentile(sorted, 99.9) / 1e6);
        results.record(scenario, subject, "wmax", WaitSamples.percentile(sorted, 100) / 1e6);
        log(
                "%-2s %-45s %6.0f acq/s  critical section %5.0f us  hand-off p50 %6.0f us  per thread %d..%d"
                        + "  same owner %3.0f %%  wait p99 %5.1f ms max %5.1f ms  overlaps %d",
                scenario,
                subject.label(),
                rate,
                criticalSection / 1000,
                micros(handOff.getValueAtPercentile(50)),
                min,
                max,
                total == 0 ? Double.NaN : 100.0 * sameOwner / total,
                WaitSamples.percentile(sorted, 99) / 1e6,
                WaitSamples.percentile(sorted, 100) / 1e6,
                shared.get(Shared.OVERLAPS));
    }

    static double spread(double min, double max) {
        return max == 0 ? 0 : 100.0 * (max - min) / max;
    }
}
