package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Scenarios.THREADS;
import static io.github.bizlock.benchmarks.Timing.log;
import static io.github.bizlock.benchmarks.Timing.sleep;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/** E: 10,000 LEASE locks held under the watchdog: their heap, threads and renewal statements. */
final class HeldLocksScenario {

    static final int HELD_LOCKS = 10_000;
    /** Renewed every third of it: 3 s. */
    static final Duration WATCHDOG_LEASE = Duration.ofSeconds(9);

    private final Env env;
    private final Stats stats;

    HeldLocksScenario(ScenarioContext context) {
        this.env = context.env();
        this.stats = context.stats();
    }

    /** The metrics of E by name, as the report reads them. */
    Map<String, Double> run() throws Exception {
        log("E: %d held LEASE locks", HELD_LOCKS);
        Duration lease = WATCHDOG_LEASE;
        Map<String, Double> result = new LinkedHashMap<>();
        try (BizLockNode node =
                new BizLockNode(env, LockMode.LEASE, THREADS, false, builder -> builder.watchdogLease(lease))) {
            node.lock("held-warm").unlock();
            LockOptions options = LockOptions.defaults().mode(LockMode.LEASE).waitTime(Node.WAIT);
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            long heapBefore = usedHeapAfterGc(memory);
            CountDownLatch acquired = new CountDownLatch(THREADS);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger lost = new AtomicInteger();
            List<List<LockHandle>> held = new ArrayList<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t;
                List<LockHandle> handles = new ArrayList<>();
                held.add(handles);
                workers.add(new Thread(() -> {
                    try {
                        for (int i = first; i < HELD_LOCKS; i += THREADS) {
                            handles.add(node.template()
                                    .tryAcquire("held", "k" + i, options)
                                    .orElseThrow());
                        }
                    } catch (Throwable ex) {
                        failure.compareAndSet(null, ex);
                    }
                    acquired.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    for (LockHandle handle : handles) {
                        try {
                            handle.unlock();
                        } catch (RuntimeException ex) {
                            lost.incrementAndGet();
                        }
                    }
                }));
            }
            long started = System.nanoTime();
            workers.forEach(Thread::start);
            acquired.await();
            double acquireSeconds = (System.nanoTime() - started) / 1e9;
            if (failure.get() != null) {
                release.countDown();
                throw new IllegalStateException("E failed", failure.get());
            }
            long heapAfter = usedHeapAfterGc(memory);
            int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount() - THREADS;
            sleep(lease.toMillis() / 3000.0 / 2);
            Stats.Reading before = stats.read();
            double window = lease.toMillis() / 1000.0;
            sleep(window);
            Stats.Reading used = stats.read().minus(before);
            // Still held after a whole lease: renewed by the watchdog, or their leases would have ended.
            long stillHeld = held.stream()
                    .flatMap(List::stream)
                    .filter(LockHandle::isHeld)
                    .count();
            release.countDown();
            for (Thread worker : workers) {
                worker.join();
            }
            double rounds = window / (lease.toMillis() / 3000.0);
            result.put("held", (double) stillHeld);
            result.put("acquireSeconds", acquireSeconds);
            result.put("heapPerLock", (heapAfter - heapBefore) / (double) HELD_LOCKS);
            result.put("threadsAdded", (double) (threadsAfter - threadsBefore));
            result.put("renewUpdatesPerSecond", used.updates() / window);
            result.put("statementsPerSecond", used.questions() / window);
            result.put("locksPerRenewUpdate", used.updates() == 0 ? 0 : HELD_LOCKS * rounds / used.updates());
            result.put("lost", (double) lost.get());
            log("E %s", result);
        }
        return result;
    }

    private static long usedHeapAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 4; i++) {
            System.gc();
            LockSupport.parkNanos(100_000_000);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
