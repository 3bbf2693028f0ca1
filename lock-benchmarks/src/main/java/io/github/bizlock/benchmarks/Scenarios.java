package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Timing.log;
import static io.github.bizlock.benchmarks.Timing.micros;
import static io.github.bizlock.benchmarks.Timing.nanos;
import static io.github.bizlock.benchmarks.Timing.sleep;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * One run of the scenarios that are repeated for medians, in order: A (one thread, lock + unlock), B (8 threads on
 * distinct keys), then the contended C1, C and C3 of {@link ContendedScenario}, the semaphore's S and S3
 * ({@link SemaphoreScenario}) and K ({@link KillScenario}).
 */
final class Scenarios {

    static final int THREADS = 8;

    private final Env env;
    private final Stats stats;
    private final Results results;
    private final Settings settings;
    private final ContendedScenario contended;
    private final KillScenario kill;
    private final SemaphoreScenario semaphore;

    Scenarios(ScenarioContext context) {
        this.env = context.env();
        this.stats = context.stats();
        this.results = context.results();
        this.settings = context.settings();
        this.contended = new ContendedScenario(context);
        this.kill = new KillScenario(context);
        this.semaphore = new SemaphoreScenario(context);
    }

    void runOnce() throws Exception {
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
        // A alone also runs ROW and NAMED reading their fencing token in every cycle: what a token costs them, beside
        // the floors of issue 32.
        List<Subject> single = new ArrayList<>(uncontended);
        single.addAll(single.indexOf(Subjects.NAMED) + 1, List.of(Subjects.ROW_TOKEN, Subjects.NAMED_TOKEN));
        single.addAll(
                List.of(Subjects.FLOOR_LEASE_HANDOFF, Subjects.FLOOR_TOKEN_GET_LOCK, Subjects.FLOOR_TOKEN_FOR_UPDATE));
        for (Subject subject : single) {
            single(subject);
        }
        for (Subject subject : uncontended) {
            distinctKeys(subject);
        }
        List<Subject> contendedSubjects = List.of(
                Subjects.LEASE,
                Subjects.ROW,
                Subjects.NAMED,
                Subjects.LEASE_UNFAIR,
                Subjects.ROW_UNFAIR,
                Subjects.NAMED_UNFAIR,
                Subjects.SHEDLOCK,
                Subjects.SPRING_INTEGRATION,
                Subjects.REDISSON,
                Subjects.FLOOR_GET_LOCK,
                Subjects.FLOOR_FOR_UPDATE,
                Subjects.FLOOR_LEASE_HANDOFF,
                Subjects.FLOOR_TOKEN_GET_LOCK,
                Subjects.FLOOR_TOKEN_FOR_UPDATE);
        for (Subject subject : contendedSubjects) {
            contended.run("C1", subject, 1, THREADS, 1);
        }
        for (Subject subject : contendedSubjects) {
            contended.run("C", subject, THREADS, 1, 1);
        }
        for (Subject subject : List.of(
                Subjects.LEASE,
                Subjects.ROW,
                Subjects.NAMED,
                Subjects.SPRING_INTEGRATION,
                Subjects.REDISSON,
                Subjects.FLOOR_GET_LOCK)) {
            contended.run("C3", subject, 1, 0, 3);
        }
        for (Subject subject : SemaphoreScenario.SUBJECTS) {
            semaphore.run(SemaphoreScenario.SCENARIO, subject, 1);
        }
        for (Subject subject : SemaphoreScenario.SUBJECTS) {
            semaphore.run(SemaphoreScenario.ACROSS_JVMS, subject, SemaphoreScenario.JVMS);
        }
        kill.run();
    }

    /** A: one thread, lock + unlock. */
    private void single(Subject subject) throws Exception {
        try (Node node = Subjects.node(subject, env, 1)) {
            long warmupEnd = System.nanoTime() + nanos(settings.warmup());
            while (System.nanoTime() < warmupEnd) {
                node.lock("single").unlock();
            }
            Histogram histogram = new Histogram(3);
            Counters before = Counters.read(stats, subject);
            long end = System.nanoTime() + nanos(settings.seconds());
            long cycles = 0;
            for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                node.lock("single").unlock();
                histogram.recordValue(System.nanoTime() - now);
                cycles++;
            }
            Counters used = Counters.read(stats, subject).minus(before);
            results.record("A", subject, "ops", cycles / settings.seconds());
            results.record("A", subject, "p50", micros(histogram.getValueAtPercentile(50)));
            results.record("A", subject, "p99", micros(histogram.getValueAtPercentile(99)));
            results.recordStatements("A", subject, used, cycles);
            log(
                    "A %-45s p50 %6.0f us  p99 %6.0f us",
                    subject.label(),
                    micros(histogram.getValueAtPercentile(50)),
                    micros(histogram.getValueAtPercentile(99)));
        }
    }

    /** B: 8 threads, distinct keys, one client. */
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
            sleep(settings.warmup());
            Counters before = Counters.read(stats, subject);
            long started = System.nanoTime();
            phase.set(1);
            sleep(settings.seconds());
            phase.set(2);
            long elapsed = System.nanoTime() - started;
            Counters used = Counters.read(stats, subject).minus(before);
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new IllegalStateException(subject.label() + " failed in B", failure.get());
            }
            long total = Arrays.stream(counts).mapToLong(count -> count[0]).sum();
            results.record("B", subject, "ops", total / (elapsed / 1e9));
            results.recordStatements("B", subject, used, total);
            log("B %-45s %8.0f ops/s", subject.label(), total / (elapsed / 1e9));
        }
    }
}
