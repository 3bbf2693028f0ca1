package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Locks taken on virtual threads, in an application that runs on them ({@code spring.threads.virtual.enabled}): the
 * contract holds in every mode, and interrupting a virtual waiter (which closes the socket it is blocked on) ends its
 * wait without costing the session of another lock it holds. Runs on JDK 21 and later; the build's release is 17, so
 * virtual threads are reached by reflection.
 */
@ExtendWith(TestDatabaseExtension.class)
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadLocksTest {

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = BizLockAutoConfigurationTest.runner(database, BizLockAutoConfiguration.class)
                .withUserConfiguration(BizLockAutoConfigurationTest.ListenerBean.class)
                .withPropertyValues(
                        "spring.threads.virtual.enabled=true",
                        "spring.datasource.hikari.maximum-pool-size=4",
                        "bizlock.session.max-connections=4");
    }

    /** Many virtual threads on few keys, more than there are sessions: no overlap, tokens rise, nobody fails. */
    @Test
    void everyModeExcludesAndRaisesTokensOnVirtualThreads() {
        int threads = 48;
        int keys = 4;
        int iterations = 10;
        runner.run(context -> {
            LockTemplate locks = context.getBean(LockTemplate.class);
            for (LockMode mode : LockMode.values()) {
                AtomicInteger overlaps = new AtomicInteger();
                AtomicInteger staleTokens = new AtomicInteger();
                AtomicInteger acquired = new AtomicInteger();
                List<Throwable> errors = new CopyOnWriteArrayList<>();
                Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
                Map<String, Long> lastToken = new ConcurrentHashMap<>();
                try (VirtualThreads virtual = new VirtualThreads()) {
                    List<Future<?>> workers = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        int first = t;
                        workers.add(virtual.submit(() -> {
                            for (int i = 0; i < iterations; i++) {
                                String key = String.valueOf((first + i) % keys);
                                try {
                                    Optional<LockHandle> handle = locks.tryAcquire(
                                            "virtual-" + mode,
                                            key,
                                            LockOptions.defaults().mode(mode).waitTime(Duration.ofSeconds(60)));
                                    if (handle.isEmpty()) {
                                        errors.add(new AssertionError("not acquired within 60 s"));
                                        continue;
                                    }
                                    try (LockHandle held = handle.get()) {
                                        if (inside.computeIfAbsent(key, k -> new AtomicInteger())
                                                        .incrementAndGet()
                                                != 1) {
                                            overlaps.incrementAndGet();
                                        }
                                        long token = held.fencingToken();
                                        Long previous = lastToken.put(key, token);
                                        if (previous != null && token <= previous) {
                                            staleTokens.incrementAndGet();
                                        }
                                        Thread.sleep(1); // a virtual thread unmounts here
                                        inside.get(key).decrementAndGet();
                                        acquired.incrementAndGet();
                                    }
                                } catch (Throwable ex) {
                                    errors.add(ex);
                                }
                            }
                        }));
                    }
                    for (Future<?> worker : workers) {
                        worker.get(5, TimeUnit.MINUTES);
                    }
                }
                System.out.printf(
                        "%s on %d virtual threads: %d acquired, %d overlaps, %d stale tokens, %d errors%n",
                        mode, threads, acquired.get(), overlaps.get(), staleTokens.get(), errors.size());
                assertThat(errors).as(mode.name()).isEmpty();
                assertThat(overlaps.get()).as(mode.name()).isZero();
                assertThat(staleTokens.get()).as(mode.name()).isZero();
                assertThat(acquired.get()).as(mode.name()).isEqualTo(threads * iterations);
            }
        });
    }

    /**
     * A virtual thread holds one lock and waits for another; interrupting it closes the socket of the wait (JDK
     * behaviour for virtual threads), which must end the wait as an interrupt, and must not close the session of the
     * lock it holds: that lock stays held, and its token and unlock work with the thread's interrupt status still set.
     */
    @Test
    void interruptingAVirtualWaiterLeavesItsHeldSessionAlone() {
        // Another instance holds the key the virtual thread waits for, so the wait is a statement on the server.
        runner.run(other -> runner.run(context -> {
            LockTemplate elsewhere = other.getBean(LockTemplate.class);
            LockTemplate locks = context.getBean(LockTemplate.class);
            List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
            context.getBean(BizLockAutoConfigurationTest.ListenerBean.class).also = lost::add;
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            for (LockMode mode : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
                String name = "interrupt-" + mode;
                LockOptions options = LockOptions.defaults().mode(mode);
                try (LockHandle busy = elsewhere.acquire(name, "busy", options);
                        VirtualThreads virtual = new VirtualThreads()) {
                    AtomicReference<Thread> waiter = new AtomicReference<>();
                    CountDownLatch holds = new CountDownLatch(1);
                    Future<?> outcome = virtual.submit(() -> {
                        waiter.set(Thread.currentThread());
                        LockHandle mine = locks.acquire(name, "mine", options);
                        holds.countDown();
                        assertThatThrownBy(() -> locks.acquire(name, "busy", options.waitTime(Duration.ofSeconds(30))))
                                .isInstanceOf(LockAcquisitionException.class)
                                .cause()
                                .as("the socket the wait was blocked on is closed, the wait ends as an interrupt")
                                .isInstanceOf(InterruptedException.class);
                        assertThat(Thread.currentThread().isInterrupted())
                                .as("the template keeps the interrupt")
                                .isTrue();
                        assertThat(mine.isHeld()).isTrue();
                        assertThat(mine.fencingToken()).isPositive();
                        mine.unlock(); // throws if the session was closed under it
                        return null;
                    });
                    assertThat(holds.await(30, TimeUnit.SECONDS)).isTrue();
                    awaitWaitingStatement(jdbc, mode);
                    waiter.get().interrupt();
                    outcome.get(30, TimeUnit.SECONDS);
                    assertThat(lost).as("%s: no lock reported lost", mode).isEmpty();
                    assertThat(elsewhere.tryAcquire(name, "mine", options.waitTime(Duration.ofSeconds(5))))
                            .as("%s: released by its holder", mode)
                            .hasValueSatisfying(LockHandle::unlock);
                    assertThat(busy.isHeld()).isTrue();
                }
            }
        }));
    }

    /** Polls the process list until a lock wait of the mode runs in this test's database. */
    private static void awaitWaitingStatement(JdbcTemplate jdbc, LockMode mode) throws InterruptedException {
        String statement = mode == LockMode.NAMED ? "%GET_LOCK(%" : "%FOR UPDATE%";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Integer waiting = jdbc.queryForObject(
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE ?"
                            + " AND ID <> CONNECTION_ID()",
                    Integer.class,
                    statement);
            if (waiting != null && waiting > 0) {
                return;
            }
            assertThat(System.nanoTime() - deadline)
                    .as("a %s wait started", mode)
                    .isNegative();
            Thread.sleep(5);
        }
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()}, which the build's release 17 cannot name. */
    private static final class VirtualThreads implements AutoCloseable {

        private final ExecutorService executor;

        VirtualThreads() throws ReflectiveOperationException {
            this.executor = (ExecutorService) java.util.concurrent.Executors.class
                    .getMethod("newVirtualThreadPerTaskExecutor")
                    .invoke(null);
        }

        <T> Future<T> submit(java.util.concurrent.Callable<T> task) {
            return executor.submit(task);
        }

        Future<?> submit(Runnable task) {
            return executor.submit(task);
        }

        @Override
        public void close() throws InterruptedException {
            executor.shutdownNow();
            assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }
}
