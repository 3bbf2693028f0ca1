package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What happens to the work under a lock whose lease is lost, per policy, on a real database. The loss is forced the
 * way a long pause causes it: the lease row's lease ends, another lock manager takes the lock over, and the holder's
 * watchdog (with a short lease) finds it gone.
 */
@ExtendWith(TestDatabaseExtension.class)
class LockLostPolicyTest {

    /** Writes a row under a lock, then waits until the test has made it lose the lock. */
    static class Writer {

        private final JdbcTemplate jdbc;
        private volatile CountDownLatch entered = new CountDownLatch(1);
        private volatile CountDownLatch lost = new CountDownLatch(1);

        Writer(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        // Called through the proxy, so the latches live in the target.
        public void reset() {
            entered = new CountDownLatch(1);
            lost = new CountDownLatch(1);
        }

        public boolean awaitEntered() throws InterruptedException {
            return entered.await(30, TimeUnit.SECONDS);
        }

        public void lockLost() {
            lost.countDown();
        }

        @DistributedLock(name = "policy", key = "#id", onLost = LockLostPolicy.ROLLBACK_ONLY)
        @Transactional
        public void rollbackOnlyInOwnTransaction(String id) throws InterruptedException {
            writeAndWaitForLoss(id);
        }

        @DistributedLock(name = "policy", key = "#id", onLost = LockLostPolicy.ROLLBACK_ONLY)
        public void rollbackOnlyInCallersTransaction(String id) throws InterruptedException {
            writeAndWaitForLoss(id);
        }

        /** No policy on the annotation: bizlock.on-lost decides. */
        @DistributedLock(name = "policy", key = "#id")
        @Transactional
        public void defaultPolicyInOwnTransaction(String id) throws InterruptedException {
            writeAndWaitForLoss(id);
        }

        /** No policy on the annotation, no transaction: works until interrupted (or for 30 s). */
        @DistributedLock(name = "policy", key = "#id")
        public void sleepUnderTheDefaultPolicy(String id) throws InterruptedException {
            entered.countDown();
            Thread.sleep(30_000);
        }

        private void writeAndWaitForLoss(String id) throws InterruptedException {
            jdbc.update("INSERT INTO policy_probe (id) VALUES (?)", id);
            entered.countDown();
            if (!lost.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the lock was not lost");
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {

        @Bean
        Writer writer(JdbcTemplate jdbc) {
            return new Writer(jdbc);
        }
    }

    private TestDatabase database;
    private ApplicationContextRunner runner;
    private ExecutorService threads;

    @BeforeEach
    void setUp(TestDatabase database) {
        this.database = database;
        new JdbcTemplate(database.dataSource())
                .execute("CREATE TABLE IF NOT EXISTS policy_probe (id VARCHAR(40) PRIMARY KEY)");
        runner = LockFixtures.runner(database)
                .withConfiguration(AutoConfigurations.of(SpringBootAutoConfigurations.of(
                        "transaction", "TransactionManagerCustomizationAutoConfiguration")))
                .withPropertyValues("bizlock.watchdog-lease=900ms")
                .withUserConfiguration(Services.class, LockFixtures.ForwardedLosses.class);
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
    }

    private int rows(String id) {
        Integer count = new JdbcTemplate(database.dataSource())
                .queryForObject("SELECT COUNT(*) FROM policy_probe WHERE id = ?", Integer.class, id);
        return count == null ? -1 : count;
    }

    /** Ends the lease in the table and takes the lock with another manager until it succeeds. */
    private static LockHandle takeOver(DataSource dataSource, LockManager other, LockKey key) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        for (int i = 0; i < 50; i++) {
            jdbc.update(
                    "UPDATE biz_lock SET expire_at = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND"
                            + " WHERE biz_type = ? AND biz_id = ?",
                    key.name().getBytes(StandardCharsets.UTF_8),
                    key.key().getBytes(StandardCharsets.UTF_8));
            Optional<LockHandle> taken = other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null);
            if (taken.isPresent()) {
                return taken.get();
            }
        }
        throw new AssertionError("could not take over " + key);
    }

    /** Runs the call on another thread, forces the loss once it holds the lock, and returns how the call ended. */
    private Throwable callAndLoseTheLock(Writer writer, LockFixtures.ForwardedLosses losses, String id, Callable call)
            throws Exception {
        writer.reset();
        losses.target = (event -> {
            if (event.key().equals(id)) {
                writer.lockLost();
            }
        });
        Future<?> running = threads.submit(() -> {
            call.call();
            return null;
        });
        assertThat(writer.awaitEntered()).isTrue();
        try (LockManager other = LockFixture.manager(database.dataSource()).build()) {
            LockHandle taken = takeOver(database.dataSource(), other, new LockKey("policy", id));
            try {
                running.get(60, TimeUnit.SECONDS);
                return null;
            } catch (ExecutionException ex) {
                return ex.getCause();
            } finally {
                taken.unlock();
            }
        }
    }

    @FunctionalInterface
    interface Callable {
        void call() throws Exception;
    }

    @Test
    void rollbackOnlyRollsBackTheMethodsOwnTransaction() {
        runner.run(context -> {
            Writer writer = context.getBean(Writer.class);
            Throwable failure = callAndLoseTheLock(
                    writer,
                    context.getBean(LockFixtures.ForwardedLosses.class),
                    "own",
                    () -> writer.rollbackOnlyInOwnTransaction("own"));
            assertThat(failure)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("policy/own")
                    .hasMessageContaining("rolled back");
            assertThat(rows("own")).as("the insert was rolled back").isZero();
        });
    }

    @Test
    void rollbackOnlyRollsBackTheCallersTransaction() {
        runner.run(context -> {
            Writer writer = context.getBean(Writer.class);
            TransactionTemplate outer = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            Throwable failure = callAndLoseTheLock(
                    writer,
                    context.getBean(LockFixtures.ForwardedLosses.class),
                    "callers",
                    () -> outer.executeWithoutResult(status -> {
                        try {
                            writer.rollbackOnlyInCallersTransaction("callers");
                        } catch (InterruptedException ex) {
                            throw new IllegalStateException(ex);
                        }
                    }));
            assertThat(failure).isInstanceOf(LockLostException.class);
            assertThat(rows("callers"))
                    .as("the caller's transaction was rolled back")
                    .isZero();
        });
    }

    @Test
    void theDefaultPolicyOnlyReportsAndTheWorkCommits() {
        runner.run(context -> {
            Writer writer = context.getBean(Writer.class);
            Throwable failure = callAndLoseTheLock(
                    writer,
                    context.getBean(LockFixtures.ForwardedLosses.class),
                    "logged",
                    () -> writer.defaultPolicyInOwnTransaction("logged"));
            assertThat(failure)
                    .as("unlock after the commit reports the loss")
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("was lost before unlock");
            assertThat(rows("logged")).as("LOG lets the transaction commit").isEqualTo(1);
        });
    }

    @Test
    void thePropertySetsThePolicyOfLocksThatNameNone() {
        runner.withPropertyValues("bizlock.on-lost=rollback-only").run(context -> {
            Writer writer = context.getBean(Writer.class);
            Throwable failure = callAndLoseTheLock(
                    writer,
                    context.getBean(LockFixtures.ForwardedLosses.class),
                    "by-property",
                    () -> writer.defaultPolicyInOwnTransaction("by-property"));
            assertThat(failure).isInstanceOf(LockLostException.class).hasMessageContaining("rolled back");
            assertThat(rows("by-property")).isZero();
        });
    }

    @Test
    void theInterruptPropertyInterruptsTheHolderOfALockThatNamesNoPolicy() {
        runner.withPropertyValues("bizlock.on-lost=interrupt").run(context -> {
            Writer writer = context.getBean(Writer.class);
            Throwable failure = callAndLoseTheLock(
                    writer,
                    context.getBean(LockFixtures.ForwardedLosses.class),
                    "interrupted-by-property",
                    () -> writer.sleepUnderTheDefaultPolicy("interrupted-by-property"));
            assertThat(failure)
                    .as("the sleep under the lock ended when the lock was lost, long before its 30 s")
                    .isInstanceOf(InterruptedException.class);
        });
    }

    /** A transaction manager the application defines itself, with bizlock's listener registered as README says. */
    @Configuration(proxyBeanMethods = false)
    static class OwnTransactionManager {

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource, RollbackOnLockLost rollbackOnLockLost) {
            DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
            manager.addListener(rollbackOnLockLost);
            return manager;
        }
    }

    @Test
    void rollbackOnlyWorksWithATransactionManagerOfTheApplicationsOwn() {
        runner.withUserConfiguration(OwnTransactionManager.class).run(context -> {
            Writer writer = context.getBean(Writer.class);
            Throwable failure = callAndLoseTheLock(
                    writer,
                    context.getBean(LockFixtures.ForwardedLosses.class),
                    "own-manager",
                    () -> writer.rollbackOnlyInOwnTransaction("own-manager"));
            assertThat(failure).isInstanceOf(LockLostException.class).hasMessageContaining("rolled back");
            assertThat(rows("own-manager")).as("the insert was rolled back").isZero();
        });
    }

    @Test
    void interruptInterruptsTheHoldingThread(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("policy", "interrupt");
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockManager manager = LockFixture.manager(dataSource)
                        .watchdogLease(Duration.ofMillis(900))
                        .build();
                LockManager other = LockFixture.manager(dataSource).build()) {
            manager.addListener(lost::add);
            LockTemplate locks = LockFixture.template(manager);
            CountDownLatch entered = new CountDownLatch(1);
            Future<Throwable> holder = threads.submit(() -> {
                try {
                    locks.execute(
                            "policy", "interrupt", LockOptions.defaults().onLost(LockLostPolicy.INTERRUPT), () -> {
                                entered.countDown();
                                Thread.sleep(60_000);
                                return null;
                            });
                    return null;
                } catch (Throwable ex) {
                    return ex;
                }
            });
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
            LockHandle taken = takeOver(dataSource, other, key);
            Throwable ended = holder.get(30, TimeUnit.SECONDS);
            assertThat(ended).as("the sleep under the lock was interrupted").isInstanceOf(InterruptedException.class);
            assertThat(ended.getSuppressed())
                    .as("and unlocking reported the loss")
                    .singleElement()
                    .isInstanceOf(LockLostException.class);
            // Listeners are told on a thread of their own, after the interrupt.
            Await.until("the listener is told", Duration.ofSeconds(5), () -> !lost.isEmpty());
            assertThat(lost)
                    .singleElement()
                    .satisfies(event -> assertThat(event.key()).isEqualTo("interrupt"));
            assertThat(taken.isHeld()).isTrue();
            taken.unlock();
        }
    }

    @Test
    void logDoesNotInterruptTheHoldingThread(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("policy", "log");
        try (LockManager manager = LockFixture.manager(dataSource)
                        .watchdogLease(Duration.ofMillis(900))
                        .build();
                LockManager other = LockFixture.manager(dataSource).build()) {
            CountDownLatch lost = new CountDownLatch(1);
            manager.addListener(event -> lost.countDown());
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch proceed = new CountDownLatch(1);
            Future<HolderSaw> holder = threads.submit(() -> {
                LockHandle handle = manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null, LockLostPolicy.LOG)
                        .orElseThrow();
                entered.countDown();
                // An interrupt would end this wait with InterruptedException and fail the future.
                proceed.await(30, TimeUnit.SECONDS);
                HolderSaw saw = new HolderSaw(Thread.currentThread().isInterrupted(), handle.isHeld());
                assertThatThrownBy(handle::unlock).isInstanceOf(LockLostException.class);
                return saw;
            });
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
            LockHandle taken = takeOver(dataSource, other, key);
            assertThat(lost.await(30, TimeUnit.SECONDS)).isTrue();
            proceed.countDown();
            HolderSaw saw = holder.get(30, TimeUnit.SECONDS);
            assertThat(saw.interrupted())
                    .as("LOG leaves the holder thread alone")
                    .isFalse();
            assertThat(saw.held()).as("the holder sees that its lock was lost").isFalse();
            taken.unlock();
        }
    }

    /** What a holder thread saw after its lock was lost. */
    private record HolderSaw(boolean interrupted, boolean held) {}

    @Test
    void aLockNamesAtMostOnePolicy() {
        assertThatThrownBy(() -> new LockedMethodResolver(null, new LockKeyEvaluator(null))
                        .resolve(TwoPolicies.class.getMethod("run"), TwoPolicies.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names 2 onLost policies");
    }

    static class TwoPolicies {
        @DistributedLock(onLost = {LockLostPolicy.LOG, LockLostPolicy.INTERRUPT})
        public void run() {}
    }
}
