package io.github.bizlock.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One JVM's part of a contended run (scenarios C1 and C): {@code nodes} lock clients with {@code threadsPerNode}
 * threads each, all on one key, each holding it for a 1 ms critical section. Phases come from {@link Shared}.
 *
 * <p>Every acquisition reads the fencing token ({@link Held#token()}) for the D check, and measures how long it
 * actually held the lock: it parks and then spins to the end of the 1 ms, so the section lasts 1 ms plus the time to
 * leave it, and no lock can pass more than one second / that length of acquisitions per second (the serial limit).
 * Each acquisition also records how long its thread waited for it, and whether the previous holder was the same thread
 * or the same instance (client); after a kill ({@link KillScenario}), the survivors' first acquisition and longest wait.
 */
final class Contended {

    static final String KEY = "contended";
    static final long CRITICAL_SECTION_NANOS = 1_000_000;

    /** How long before the end of a critical section the holder stops parking and spins. */
    static final long SPIN_NANOS = 200_000;

    /** One thread's measurements. */
    private static final class Tally {
        final int instance;
        final long holderId;
        long acquisitions;
        long heldNanos;
        long sameThread;
        long sameInstance;
        final Histogram handOff = new Histogram(3);
        final LongList waits = new LongList();

        Tally(int instance, int thread) {
            this.instance = instance;
            this.holderId = holderId(instance, thread);
        }
    }

    private final List<Node> nodes = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Tally> tallies = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /**
     * Builds the nodes and starts the threads; each counts itself in {@link Shared#READY} after one warm cycle.
     *
     * @param process this JVM's index among the run's processes (0 in the benchmark's own JVM); a worker JVM's one
     *     node is instance {@code process}, the nodes of the benchmark's JVM are instances 0 to {@code nodeCount - 1}
     */
    Contended(Subject subject, Env env, int nodeCount, int threadsPerNode, Shared shared, int process)
            throws Exception {
        long inside = Shared.insideUnit(process);
        for (int n = 0; n < nodeCount; n++) {
            Node node = Subjects.node(subject, env, threadsPerNode);
            nodes.add(node);
            for (int t = 0; t < threadsPerNode; t++) {
                Tally tally = new Tally(process + n, t);
                tallies.add(tally);
                Thread thread = new Thread(() -> loop(node, shared, tally, process, inside), "bench-" + n + "-" + t);
                threads.add(thread);
            }
        }
        threads.forEach(Thread::start);
    }

    /** A holder's id in {@link Shared#LAST_HOLDER}: never 0, and the same instance for the threads of one client. */
    static long holderId(int instance, int thread) {
        return instance * 256L + thread + 1;
    }

    private void loop(Node node, Shared shared, Tally tally, int process, long inside) {
        try {
            node.lock(KEY).unlock();
            shared.add(Shared.READY, 1);
            while (shared.get(Shared.PHASE) == Shared.WAITING) {
                LockSupport.parkNanos(1_000_000);
            }
            while (shared.get(Shared.PHASE) != Shared.STOPPING) {
                long asked = System.nanoTime();
                Held held = node.lock(KEY);
                long acquired = System.nanoTime();
                boolean measuring = shared.get(Shared.PHASE) == Shared.MEASURING;
                if (shared.add(Shared.INSIDE, inside) != 0) {
                    shared.add(Shared.OVERLAPS, 1);
                }
                long previous = shared.getAndSet(Shared.LAST_HOLDER, tally.holderId);
                long released = shared.get(Shared.LAST_RELEASE);
                if (measuring) {
                    tally.acquisitions++;
                    tally.waits.add(acquired - asked);
                    if (previous == tally.holderId) {
                        tally.sameThread++;
                    }
                    if (previous != 0 && (previous - 1) / 256 == tally.instance) {
                        tally.sameInstance++;
                    }
                    if (released != 0) {
                        tally.handOff.recordValue(Math.max(0, acquired - released));
                    }
                }
                afterKill(shared, process, asked, acquired);
                long token = held.token();
                if (token >= 0) {
                    if (token <= shared.get(Shared.LAST_TOKEN)) {
                        shared.add(Shared.TOKEN_VIOLATIONS, 1);
                    }
                    shared.set(Shared.LAST_TOKEN, token);
                }
                holdUntil(acquired + CRITICAL_SECTION_NANOS);
                shared.add(Shared.INSIDE, -inside);
                long leaving = System.nanoTime();
                shared.set(Shared.LAST_RELEASE, leaving);
                if (measuring) {
                    tally.heldNanos += leaving - acquired;
                }
                held.unlock();
            }
        } catch (Throwable ex) {
            failure.compareAndSet(null, ex);
            shared.add(Shared.READY, 1);
        }
    }

    /** After a kill, a survivor's acquisition: the first one, and the longest wait, go to {@link Shared}. */
    private static void afterKill(Shared shared, int process, long asked, long acquired) {
        long killedAt = shared.get(Shared.KILLED_AT);
        if (killedAt != 0 && acquired > killedAt && shared.get(Shared.KILLED_PROCESS) != process) {
            shared.compareAndSet(Shared.FIRST_AFTER_KILL, 0, acquired);
            // Counted from the kill: how long the dead holder kept this waiter out, not what it waited before.
            shared.max(Shared.LONGEST_AFTER_KILL, acquired - Math.max(asked, killedAt));
        }
    }

    /**
     * Holds the lock until {@code end}: parks until {@link #SPIN_NANOS} before it, then spins, so the section lasts 1 ms
     * and not 1 ms plus {@code parkNanos}' overshoot (tens of µs on Linux, more under load).
     */
    static void holdUntil(long end) {
        for (long left = end - System.nanoTime(); left > SPIN_NANOS; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left - SPIN_NANOS);
        }
        while (end - System.nanoTime() > 0) {
            Thread.onSpinWait();
        }
    }

    /** Waits for the threads (after {@link Shared#STOPPING}) and closes the nodes. */
    ContendedPart finish() throws Exception {
        for (Thread thread : threads) {
            thread.join();
        }
        for (Node node : nodes) {
            node.close();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a benchmark thread failed", failure.get());
        }
        Histogram all = new Histogram(3);
        tallies.forEach(tally -> all.add(tally.handOff));
        return new ContendedPart(
                tallies.stream().map(tally -> tally.acquisitions).toList(),
                tallies.stream().map(tally -> tally.instance).toList(),
                tallies.stream().mapToLong(tally -> tally.heldNanos).sum(),
                all,
                tallies.stream().mapToLong(tally -> tally.sameThread).sum(),
                tallies.stream().mapToLong(tally -> tally.sameInstance).sum(),
                tallies.stream().map(tally -> tally.waits.toArray()).toList());
    }

    /** A child JVM of the multi-process run: {@code <subject> <threads> <process> <shared file> <env...>}. */
    public static void main(String[] args) throws Exception {
        Subject subject = Subjects.byId(args[0]);
        int threads = Integer.parseInt(args[1]);
        int process = Integer.parseInt(args[2]);
        Shared shared = Shared.open(Path.of(args[3]));
        Env env = Env.fromArgs(args, 4);
        Contended run = new Contended(subject, env, 1, threads, shared, process);
        ContendedPart part = run.finish();
        System.out.println(part.encode());
        System.out.flush();
        System.exit(0);
    }
}
