package io.github.bizlock.benchmarks;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * One JVM's part of a contended run (scenarios C1 and C): {@code nodes} lock clients with {@code threadsPerNode}
 * threads each, all on one key, each holding it for a 1 ms critical section. Phases come from {@link Shared}.
 *
 * <p>Every acquisition reads the fencing token ({@link Held#token()}) for the D check, and measures how long it
 * actually held the lock: it parks and then spins to the end of the 1 ms, so the section lasts 1 ms plus the time to
 * leave it, and no lock can pass more than one second / that length of acquisitions per second (the serial limit).
 */
final class Contended {

    static final String KEY = "contended";
    static final long CRITICAL_SECTION_NANOS = 1_000_000;

    /** How long before the end of a critical section the holder stops parking and spins. */
    static final long SPIN_NANOS = 200_000;

    /**
     * What this JVM's threads measured while the phase was {@link Shared#MEASURING}: acquisitions per thread, the
     * time they held the lock in all (acquisition to release), and the hand-offs.
     */
    record Part(List<Long> perThread, long heldNanos, Histogram handOff) {

        String encode() {
            ByteBuffer buffer = ByteBuffer.allocate(handOff.getNeededByteBufferCapacity());
            int length = handOff.encodeIntoCompressedByteBuffer(buffer);
            byte[] bytes = new byte[length];
            buffer.flip();
            buffer.get(bytes);
            return "RESULT " + perThread.stream().map(String::valueOf).collect(Collectors.joining(",")) + " "
                    + heldNanos + " " + Base64.getEncoder().encodeToString(bytes);
        }

        static Part decode(String line) throws Exception {
            String[] parts = line.split(" ");
            List<Long> counts = new ArrayList<>();
            for (String count : parts[1].split(",")) {
                counts.add(Long.parseLong(count));
            }
            Histogram histogram = Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(parts[3])), 0);
            return new Part(counts, Long.parseLong(parts[2]), histogram);
        }
    }

    /** One thread's measurements. */
    private static final class Tally {
        long acquisitions;
        long heldNanos;
        final Histogram handOff = new Histogram(3);
    }

    private final List<Node> nodes = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Tally> tallies = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /** Builds the nodes and starts the threads; each counts itself in {@link Shared#READY} after one warm cycle. */
    Contended(Subject subject, Env env, int nodeCount, int threadsPerNode, Shared shared) throws Exception {
        for (int n = 0; n < nodeCount; n++) {
            Node node = Subjects.node(subject, env, threadsPerNode);
            nodes.add(node);
            for (int t = 0; t < threadsPerNode; t++) {
                Tally tally = new Tally();
                tallies.add(tally);
                Thread thread = new Thread(() -> loop(node, shared, tally), "bench-" + n + "-" + t);
                threads.add(thread);
            }
        }
        threads.forEach(Thread::start);
    }

    private void loop(Node node, Shared shared, Tally tally) {
        try {
            node.lock(KEY).unlock();
            shared.add(Shared.READY, 1);
            while (shared.get(Shared.PHASE) == Shared.WAITING) {
                LockSupport.parkNanos(1_000_000);
            }
            while (shared.get(Shared.PHASE) != Shared.STOPPING) {
                Held held = node.lock(KEY);
                long acquired = System.nanoTime();
                boolean measuring = shared.get(Shared.PHASE) == Shared.MEASURING;
                if (shared.add(Shared.INSIDE, 1) != 0) {
                    shared.add(Shared.OVERLAPS, 1);
                }
                long released = shared.get(Shared.LAST_RELEASE);
                if (measuring) {
                    tally.acquisitions++;
                    if (released != 0) {
                        tally.handOff.recordValue(Math.max(0, acquired - released));
                    }
                }
                long token = held.token();
                if (token >= 0) {
                    if (token <= shared.get(Shared.LAST_TOKEN)) {
                        shared.add(Shared.TOKEN_VIOLATIONS, 1);
                    }
                    shared.set(Shared.LAST_TOKEN, token);
                }
                holdUntil(acquired + CRITICAL_SECTION_NANOS);
                shared.add(Shared.INSIDE, -1);
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

    /**
     * Holds the lock until {@code end}: parks until {@link #SPIN_NANOS} before it, then spins, so the section lasts 1 ms
     * and not 1 ms plus {@code parkNanos}' overshoot (tens of µs on Linux, more under load).
     */
    private static void holdUntil(long end) {
        for (long left = end - System.nanoTime(); left > SPIN_NANOS; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left - SPIN_NANOS);
        }
        while (end - System.nanoTime() > 0) {
            Thread.onSpinWait();
        }
    }

    /** Waits for the threads (after {@link Shared#STOPPING}) and closes the nodes. */
    Part finish() throws Exception {
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
        return new Part(
                tallies.stream().map(tally -> tally.acquisitions).toList(),
                tallies.stream().mapToLong(tally -> tally.heldNanos).sum(),
                all);
    }

    /** A child JVM of the multi-process run: {@code <subject> <threads> <shared file> <env...>}. */
    public static void main(String[] args) throws Exception {
        Subject subject = Subjects.byId(args[0]);
        int threads = Integer.parseInt(args[1]);
        Shared shared = Shared.open(Path.of(args[2]));
        Env env = Env.fromArgs(args, 3);
        Contended run = new Contended(subject, env, 1, threads, shared);
        Part part = run.finish();
        System.out.println(part.encode());
        System.out.flush();
        System.exit(0);
    }
}
