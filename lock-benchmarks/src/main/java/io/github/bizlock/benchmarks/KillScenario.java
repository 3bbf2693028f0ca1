package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Scenarios.THREADS;
import static io.github.bizlock.benchmarks.Timing.log;
import static io.github.bizlock.benchmarks.Timing.sleep;

import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * K: C with 3 worker JVMs (3 + 3 + 2 threads) of bizlock LEASE, where the JVM holding the lock is killed with SIGKILL
 * during the measurement. Its lock stays taken until its lease ends, {@link #LEASE} (set through the builder's
 * {@code watchdogLease}; the default, 30 s, would make the scenario take a minute), and nobody may hold it with a
 * live holder meanwhile. Measured: the time from the kill to the first acquisition by a survivor, the longest wait
 * among the acquisitions after the kill, overlaps and token errors (D); the killed JVM's own counts are lost with it.
 */
final class KillScenario {

    /** The watchdog lease of the LEASE subject killed here. */
    static final Duration LEASE = Duration.ofSeconds(2);

    /** What the longest wait after the kill may exceed the lease by: a poll interval and scheduling on a loaded box. */
    static final Duration EPSILON = Duration.ofMillis(500);

    private static final int JVMS = 3;

    private final Env env;
    private final Stats stats;
    private final Results results;
    private final Settings settings;
    private final ContendedScenario contended;

    KillScenario(ScenarioContext context) {
        this.env = context.env();
        this.stats = context.stats();
        this.results = context.results();
        this.settings = context.settings();
        this.contended = new ContendedScenario(context);
    }

    void run() throws Exception {
        Subject subject = Subjects.LEASE_KILL;
        String run = "K " + subject.label();
        Shared shared = Shared.create();
        WorkerJvms workers = WorkerJvms.start(subject, env, shared, JVMS, THREADS);
        ContendedScenario.awaitReady(shared, workers, run);
        shared.set(Shared.PHASE, Shared.WARMUP);
        sleep(settings.warmup());
        Counters before = Counters.read(stats, subject);
        long started = System.nanoTime();
        shared.set(Shared.PHASE, Shared.MEASURING);
        sleep(settings.seconds());

        int victim = holdingProcess(shared);
        boolean diedInside = false;
        if (victim >= 0) {
            shared.set(Shared.KILLED_PROCESS, victim);
            shared.set(Shared.KILLED_AT, System.nanoTime());
            workers.kill(victim);
            // The dead holder's thread stays counted inside: take it out, or every later holder would be an overlap.
            long inside = Shared.insideOf(shared.get(Shared.INSIDE), victim);
            diedInside = inside > 0;
            shared.add(Shared.INSIDE, -inside * Shared.insideUnit(victim));
            sleep((LEASE.toMillis() + 2000) / 1000.0);
        }
        shared.set(Shared.PHASE, Shared.STOPPING);
        long elapsed = System.nanoTime() - started;
        Counters used = Counters.read(stats, subject).minus(before);
        contended.record("K", subject, workers.finish(run), shared, used, elapsed, false);

        long killedAt = shared.get(Shared.KILLED_AT);
        long first = shared.get(Shared.FIRST_AFTER_KILL);
        results.record("K", subject, "lease", LEASE.toMillis());
        results.record("K", subject, "killed", victim >= 0 ? 1 : 0);
        results.record("K", subject, "diedInside", diedInside ? 1 : 0);
        results.record("K", subject, "unavailable", first == 0 ? Double.NaN : (first - killedAt) / 1e6);
        results.record(
                "K",
                subject,
                "longestAfterKill",
                first == 0 ? Double.NaN : shared.get(Shared.LONGEST_AFTER_KILL) / 1e6);
        log(
                "K %s: killed JVM %d (holder inside: %s); first acquisition %.0f ms after the kill, longest wait %.0f ms,"
                        + " lease %d ms",
                subject.label(),
                victim,
                diedInside,
                first == 0 ? Double.NaN : (first - killedAt) / 1e6,
                shared.get(Shared.LONGEST_AFTER_KILL) / 1e6,
                LEASE.toMillis());
        Files.deleteIfExists(shared.file());
    }

    /** The worker JVM with a thread inside the critical section, waiting up to 10 s for one; -1 if none. */
    private static int holdingProcess(Shared shared) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            long inside = shared.get(Shared.INSIDE);
            for (int process = 0; process < JVMS; process++) {
                if (Shared.insideOf(inside, process) > 0) {
                    return process;
                }
            }
            Thread.onSpinWait();
        }
        return -1;
    }
}
