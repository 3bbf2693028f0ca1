package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Timing.log;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * S and S3 (issue 33): a semaphore of {@link #PERMITS} permits, {@link #THREADS} threads contending for it, each holding
 * a permit for 1 ms: the threads of one client in this JVM (S), or of one client in each of 3 worker JVMs (S3, 6 + 5 +
 * 5 threads). {@link PermitContenders} count the holders inside the critical section (the most ever seen must not pass
 * {@link #PERMITS}) and check that the fencing tokens rise per slot; this side moves them through the {@link Shared}
 * phases, counts the statements and records what they measured.
 */
final class SemaphoreScenario {

    static final String SCENARIO = "S";
    static final String ACROSS_JVMS = "S3";
    static final int PERMITS = 4;
    static final int THREADS = 16;
    static final int JVMS = 3;

    /** The subjects of S and S3: bizlock's three modes and Redisson's semaphore. */
    static final List<Subject> SUBJECTS =
            List.of(Subjects.LEASE, Subjects.ROW, Subjects.NAMED, Subjects.REDISSON_SEMAPHORE);

    private final ScenarioContext context;
    private final Env env;
    private final Results results;

    SemaphoreScenario(ScenarioContext context) {
        this.context = context;
        this.env = context.env();
        this.results = context.results();
    }

    /** One measurement of {@code subject}: in this JVM with {@code jvms} 1, else in that many worker JVMs. */
    void run(String scenario, Subject subject, int jvms) throws Exception {
        String run = scenario + " " + subject.label();
        Shared shared = Shared.create();
        PermitContenders local = null;
        WorkerJvms workers = null;
        if (jvms > 1) {
            workers = WorkerJvms.start(PermitContenders.class, subject, env, shared, jvms, THREADS);
        } else {
            local = new PermitContenders(subject, env, THREADS, shared, 0);
        }
        ContendedScenario.Measured measured = ContendedScenario.measure(
                context, run, subject, shared, THREADS, local == null ? null : local::finish, workers);
        record(scenario, subject, measured.parts(), shared, measured.used(), measured.elapsed() / 1e9);
        Files.deleteIfExists(shared.file());
    }

    private void record(
            String scenario, Subject subject, List<ContendedPart> parts, Shared shared, Counters used, double seconds) {
        List<Long> perThread = new ArrayList<>();
        List<long[]> waits = new ArrayList<>();
        for (ContendedPart part : parts) {
            for (int t = 0; t < part.perThread().size(); t++) {
                long[] threadWaits = part.waits().get(t);
                results.waits()
                        .add(scenario, subject, part.instances().get(t), t, threadWaits, threadWaits.length / seconds);
                perThread.add(part.perThread().get(t));
                waits.add(threadWaits);
            }
        }
        long total = perThread.stream().mapToLong(Long::longValue).sum();
        long min = perThread.stream().mapToLong(Long::longValue).min().orElse(0);
        long max = perThread.stream().mapToLong(Long::longValue).max().orElse(0);
        long[] sorted = waits.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        long mostHolders = shared.get(Shared.MOST_PERMIT_HOLDERS);
        long tokenErrors = shared.get(Shared.TOKEN_VIOLATIONS);
        results.record(scenario, subject, "acq", total / seconds);
        results.record(scenario, subject, "mostInside", mostHolders);
        results.record(scenario, subject, "tokens", tokenErrors);
        results.record(scenario, subject, "threadMin", min / seconds);
        results.record(scenario, subject, "threadMax", max / seconds);
        results.record(scenario, subject, "spread", ContendedScenario.spread(min, max));
        results.record(scenario, subject, "w50", WaitSamples.percentile(sorted, 50) / 1e6);
        results.record(scenario, subject, "w99", WaitSamples.percentile(sorted, 99) / 1e6);
        results.record(scenario, subject, "wmax", WaitSamples.percentile(sorted, 100) / 1e6);
        results.recordStatements(scenario, subject, used, total);
        log(
                "%-2s %-45s %6.0f permits/s  most holders %d of %d  per thread %d..%d  wait p99 %5.1f ms max %5.1f ms"
                        + "  token errors %d",
                scenario,
                subject.label(),
                total / seconds,
                mostHolders,
                PERMITS,
                min,
                max,
                WaitSamples.percentile(sorted, 99) / 1e6,
                WaitSamples.percentile(sorted, 100) / 1e6,
                tokenErrors);
    }
}
