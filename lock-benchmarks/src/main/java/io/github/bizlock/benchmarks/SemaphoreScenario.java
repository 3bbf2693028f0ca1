package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Timing.log;
import static io.github.bizlock.benchmarks.Timing.sleep;

import io.github.bizlock.LockMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * S (issue 33): a semaphore of {@link #PERMITS} permits, {@link #THREADS} threads of one client contending for it, each
 * holding a permit for 1 ms. Counts the holders inside the critical section with an {@link AtomicInteger} (the most ever
 * seen must not pass {@link #PERMITS}) and checks that the fencing tokens increase per slot.
 */
final class SemaphoreScenario {

    static final String SCENARIO = "S";
    static final int PERMITS = 4;
    static final int THREADS = 16;

    /** The subjects of S: bizlock's three modes and Redisson's semaphore. */
    static final List<Subject> SUBJECTS =
            List.of(Subjects.LEASE, Subjects.ROW, Subjects.NAMED, Subjects.REDISSON_SEMAPHORE);

    private final Env env;
    private final Stats stats;
    private final Results results;
    private final Settings settings;
    private int runs;

    SemaphoreScenario(ScenarioContext context) {
        this.env = context.env();
        this.stats = context.stats();
        this.results = context.results();
        this.settings = context.settings();
    }

    /** What the threads share: the phase, the holders inside, the most seen, the last token of each slot. */
    private static final class Tally {
        final AtomicInteger phase = new AtomicInteger();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();
        final AtomicInteger tokenErrors = new AtomicInteger();
        final AtomicLongArray lastToken = new AtomicLongArray(PERMITS);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
    }

    void run(Subject subject) throws Exception {
        runs++;
        try (PermitNode node = node(subject)) {
            Tally tally = new Tally();
            long[] acquisitions = new long[THREADS];
            List<LongList> waits = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                LongList threadWaits = new LongList();
                waits.add(threadWaits);
                int thread = t;
                threads.add(
                        new Thread(() -> loop(node, tally, acquisitions, thread, threadWaits), "bench-permit-" + t));
            }
            threads.forEach(Thread::start);
            sleep(settings.warmup());
            Counters before = Counters.read(stats, subject);
            long started = System.nanoTime();
            tally.phase.set(1);
            sleep(settings.seconds());
            tally.phase.set(2);
            long elapsed = System.nanoTime() - started;
            Counters used = Counters.read(stats, subject).minus(before);
            for (Thread thread : threads) {
                thread.join();
            }
            if (tally.failure.get() != null) {
                throw new IllegalStateException(subject.label() + " failed in S", tally.failure.get());
            }
            record(subject, tally, acquisitions, waits, used, elapsed / 1e9);
        }
    }

    private PermitNode node(Subject subject) {
        return switch (subject.id()) {
            case "bizlock-lease" -> BizLockNode.of(env, LockMode.LEASE, THREADS, false);
            case "bizlock-row" -> BizLockNode.of(env, LockMode.ROW, THREADS, false);
            case "bizlock-named" -> BizLockNode.of(env, LockMode.NAMED, THREADS, false);
            // A semaphore of its own per run: Redisson's permits would outlive a run that failed.
            case "redisson-semaphore" ->
                new RedissonPermitNode(env, THREADS, "bench:permits:" + runs + ":" + System.nanoTime());
            default -> throw new IllegalArgumentException(subject.label() + " has no semaphore");
        };
    }

    private static void loop(PermitNode node, Tally tally, long[] acquisitions, int thread, LongList waits) {
        try {
            while (tally.phase.get() < 2) {
                long asked = System.nanoTime();
                PermitNode.Permit permit = node.acquire("contended");
                long acquired = System.nanoTime();
                tally.mostInside.accumulateAndGet(tally.inside.incrementAndGet(), Math::max);
                if (permit.slot() >= 0) {
                    // Only this slot's holder writes its entry, so read and write need not be one atomic step.
                    if (permit.token() <= tally.lastToken.get(permit.slot())) {
                        tally.tokenErrors.incrementAndGet();
                    }
                    tally.lastToken.set(permit.slot(), permit.token());
                }
                if (tally.phase.get() == 1) {
                    acquisitions[thread]++;
                    waits.add(acquired - asked);
                }
                Contended.holdUntil(acquired + Contended.CRITICAL_SECTION_NANOS);
                tally.inside.decrementAndGet();
                permit.release().run();
            }
        } catch (Throwable ex) {
            tally.failure.compareAndSet(null, ex);
            tally.phase.set(2);
        }
    }

    private void record(
            Subject subject, Tally tally, long[] acquisitions, List<LongList> waits, Counters used, double seconds) {
        long total = Arrays.stream(acquisitions).sum();
        long min = Arrays.stream(acquisitions).min().orElse(0);
        long max = Arrays.stream(acquisitions).max().orElse(0);
        for (int t = 0; t < THREADS; t++) {
            long[] threadWaits = waits.get(t).toArray();
            results.waits().add(SCENARIO, subject, 0, t, threadWaits, threadWaits.length / seconds);
        }
        long[] sorted = waits.stream()
                .flatMapToLong(list -> Arrays.stream(list.toArray()))
                .sorted()
                .toArray();
        results.record(SCENARIO, subject, "acq", total / seconds);
        results.record(SCENARIO, subject, "mostInside", tally.mostInside.get());
        results.record(SCENARIO, subject, "tokens", tally.tokenErrors.get());
        results.record(SCENARIO, subject, "threadMin", min / seconds);
        results.record(SCENARIO, subject, "threadMax", max / seconds);
        results.record(SCENARIO, subject, "spread", ContendedScenario.spread(min, max));
        results.record(SCENARIO, subject, "w50", WaitSamples.percentile(sorted, 50) / 1e6);
        results.record(SCENARIO, subject, "w99", WaitSamples.percentile(sorted, 99) / 1e6);
        results.record(SCENARIO, subject, "wmax", WaitSamples.percentile(sorted, 100) / 1e6);
        results.recordStatements(SCENARIO, subject, used, total);
        log(
                "S  %-45s %6.0f permits/s  most holders %d of %d  per thread %d..%d  wait p99 %5.1f ms max %5.1f ms"
                        + "  token errors %d",
                subject.label(),
                total / seconds,
                tally.mostInside.get(),
                PERMITS,
                min,
                max,
                WaitSamples.percentile(sorted, 99) / 1e6,
                WaitSamples.percentile(sorted, 100) / 1e6,
                tally.tokenErrors.get());
    }
}
