package io.github.bizlock.benchmarks;

import io.github.bizlock.LockMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * S's contenders in one JVM: one client of a subject's semaphore and its threads, each taking a permit, holding it for
 * 1 ms and giving it back, moved through the {@link Shared} phases like {@link Contended}'s. Inside the critical
 * section they count themselves in {@link Shared#PERMIT_HOLDERS} (the most ever seen goes to
 * {@link Shared#MOST_PERMIT_HOLDERS}) and check that their slot's fencing token rose.
 */
final class PermitContenders {

    private final PermitNode node;
    private final List<Thread> threads = new ArrayList<>();
    private final long[] acquisitions;
    private final List<LongList> waits = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final int process;

    /** Makes the client and starts {@code threadCount} threads; each counts itself in {@link Shared#READY}. */
    PermitContenders(Subject subject, Env env, int threadCount, Shared shared, int process) {
        this.node = node(subject, env, threadCount, shared);
        this.process = process;
        this.acquisitions = new long[threadCount];
        for (int t = 0; t < threadCount; t++) {
            LongList threadWaits = new LongList();
            waits.add(threadWaits);
            int thread = t;
            threads.add(new Thread(() -> loop(shared, thread, threadWaits), "bench-permit-" + process + "-" + t));
        }
        threads.forEach(Thread::start);
    }

    private static PermitNode node(Subject subject, Env env, int threads, Shared shared) {
        return switch (subject.id()) {
            case "bizlock-lease" -> BizLockNode.of(env, LockMode.LEASE, threads, false);
            case "bizlock-row" -> BizLockNode.of(env, LockMode.ROW, threads, false);
            case "bizlock-named" -> BizLockNode.of(env, LockMode.NAMED, threads, false);
            // Named after the run's shared file: one semaphore for the run's JVMs, none left from another run.
            case "redisson-semaphore" ->
                new RedissonPermitNode(
                        env, threads, "bench:permits:" + shared.file().getFileName());
            default -> throw new IllegalArgumentException(subject.label() + " has no semaphore");
        };
    }

    private void loop(Shared shared, int thread, LongList threadWaits) {
        try {
            node.acquire(Contended.KEY).release().run();
            shared.add(Shared.READY, 1);
            while (shared.get(Shared.PHASE) == Shared.WAITING) {
                LockSupport.parkNanos(1_000_000);
            }
            while (shared.get(Shared.PHASE) != Shared.STOPPING) {
                long asked = System.nanoTime();
                PermitNode.Permit permit = node.acquire(Contended.KEY);
                long acquired = System.nanoTime();
                shared.max(Shared.MOST_PERMIT_HOLDERS, shared.add(Shared.PERMIT_HOLDERS, 1) + 1);
                if (permit.slot() >= 0) {
                    // Only the slot's holder writes its token, so reading and writing need not be one atomic step.
                    int slotToken = Shared.SLOT_TOKENS + 8 * permit.slot();
                    if (permit.token() <= shared.get(slotToken)) {
                        shared.add(Shared.TOKEN_VIOLATIONS, 1);
                    }
                    shared.set(slotToken, permit.token());
                }
                if (shared.get(Shared.PHASE) == Shared.MEASURING) {
                    acquisitions[thread]++;
                    threadWaits.add(acquired - asked);
                }
                Contended.holdUntil(acquired + Contended.CRITICAL_SECTION_NANOS);
                shared.add(Shared.PERMIT_HOLDERS, -1);
                permit.release().run();
            }
        } catch (Throwable ex) {
            failure.compareAndSet(null, ex);
            shared.add(Shared.READY, 1);
        }
    }

    /** Waits for the threads (after {@link Shared#STOPPING}), closes the client and says what they measured. */
    ContendedPart finish() throws Exception {
        for (Thread thread : threads) {
            thread.join();
        }
        node.close();
        if (failure.get() != null) {
            throw new IllegalStateException("a benchmark thread failed", failure.get());
        }
        List<Long> perThread = new ArrayList<>();
        for (long count : acquisitions) {
            perThread.add(count);
        }
        return new ContendedPart(
                perThread,
                perThread.stream().map(count -> process).toList(),
                0,
                new Histogram(3),
                0,
                0,
                waits.stream().map(LongList::toArray).toList());
    }

    /** A worker JVM of S3: {@code <subject> <threads> <process> <shared file> <env...>}, as {@link Contended#main}. */
    public static void main(String[] args) throws Exception {
        Subject subject = Subjects.byId(args[0]);
        Shared shared = Shared.open(Path.of(args[3]));
        PermitContenders run = new PermitContenders(
                subject, Env.fromArgs(args, 4), Integer.parseInt(args[1]), shared, Integer.parseInt(args[2]));
        System.out.println(run.finish().encode());
        System.out.flush();
        System.exit(0);
    }
}
