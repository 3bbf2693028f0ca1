package io.github.bizlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Which thread of one process gets a contended lock next. Threads queue up, one after another, for a lock the calling
 * thread holds; the caller then releases it and at once asks for it again. A fair lock serves the queued threads
 * first, in the order they asked; an unfair one lets the caller, which is running while they are parked, barge ahead.
 */
public final class TurnOrder {

    private TurnOrder() {}

    /**
     * Queues {@code waiters} threads, numbered from 1, for lock {@code name}/{@code key}, which the calling thread
     * holds, then releases it and asks for it again.
     *
     * @return the number of the thread of each hold after the release, the caller's being 0
     */
    public static List<Integer> afterReleasingAndAskingAgain(LockTemplate locks, String name, String key, int waiters)
            throws Exception {
        return afterReleasing(locks, name, key, waiters, LockOptions.defaults().waitTime(Duration.ofSeconds(60)));
    }

    /**
     * As {@link #afterReleasingAndAskingAgain}, but the caller asks again without waiting: one attempt, which a fair lock
     * refuses while others wait.
     *
     * @return the number of the thread of each hold after the release, the caller's being 0 if it got the lock
     */
    public static List<Integer> afterReleasingAndTryingOnce(LockTemplate locks, String name, String key, int waiters)
            throws Exception {
        return afterReleasing(locks, name, key, waiters, LockOptions.defaults().waitTime(Duration.ZERO));
    }

    private static List<Integer> afterReleasing(
            LockTemplate locks, String name, String key, int waiters, LockOptions again) throws Exception {
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<Thread> workers = new ArrayList<>();
        LockOptions patiently = LockOptions.defaults().waitTime(Duration.ofSeconds(60));
        LockHandle first = locks.acquire(name, key, patiently);
        try {
            for (int t = 1; t <= waiters; t++) {
                int number = t;
                Thread worker = new Thread(
                        () -> {
                            try (LockHandle ignored = locks.acquire(name, key, patiently)) {
                                order.add(number);
                            }
                        },
                        "waiter-" + t);
                worker.start();
                workers.add(worker);
                // The next thread asks only once this one is parked in the lock's queue: the order they asked in.
                Await.until(
                        worker.getName() + " waits for the lock",
                        Duration.ofSeconds(30),
                        () -> worker.getState() == Thread.State.TIMED_WAITING);
            }
        } finally {
            first.unlock();
        }
        Optional<LockHandle> mine = locks.tryAcquire(name, key, again);
        if (mine.isPresent()) {
            order.add(0);
            mine.get().unlock();
        }
        for (Thread worker : workers) {
            worker.join(TimeUnit.SECONDS.toMillis(60));
        }
        return List.copyOf(order);
    }

    /** The fair order when the caller does not wait: the queued threads in the order they asked, without the caller. */
    public static List<Integer> queuedOnly(int waiters) {
        List<Integer> order = queuedFirst(waiters);
        order.remove(order.size() - 1);
        return order;
    }

    /** The fair order: the queued threads in the order they asked, then the caller. */
    public static List<Integer> queuedFirst(int waiters) {
        List<Integer> order = new ArrayList<>();
        for (int t = 1; t <= waiters; t++) {
            order.add(t);
        }
        order.add(0);
        return order;
    }
}
