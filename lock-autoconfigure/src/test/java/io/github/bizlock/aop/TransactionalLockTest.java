package io.github.bizlock.aop;

import static io.github.bizlock.aop.LockFixtures.heldInDatabase;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/** R14: the next holder of a lock never reads what the previous holder has not committed yet. */
@ExtendWith(TestDatabaseExtension.class)
class TransactionalLockTest {

    private static final int THREADS = 4;
    private static final int INCREMENTS = 25;

    /** A read-modify-write of a counter row, the classic lost update when two run at once. */
    static class Counter {

        private final JdbcTemplate jdbc;
        private final Observer observer;
        private final AtomicReference<Boolean> heldAfterCompletion = new AtomicReference<>();

        Counter(JdbcTemplate jdbc, Observer observer) {
            this.jdbc = jdbc;
            this.observer = observer;
        }

        @DistributedLock(name = "counter", key = "#id", waitTime = "60s")
        @Transactional
        public void incrementInOwnTransaction(String id) {
            readModifyWrite(id);
        }

        /** Joins the caller's transaction, if any. */
        @DistributedLock(name = "counter", key = "#id", waitTime = "60s")
        public void incrementInCallersTransaction(String id) {
            readModifyWrite(id);
        }

        @DistributedLock(name = "probe", key = "#id")
        @Transactional
        public boolean recordLockAtCompletion(String id) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    heldAfterCompletion.set(observer.held("probe", id));
                }
            });
            return TransactionSynchronizationManager.isActualTransactionActive();
        }

        /** Whether the lock was held when the last transaction of {@link #recordLockAtCompletion} completed. */
        public Boolean heldAfterCompletion() {
            return heldAfterCompletion.get();
        }

        private void readModifyWrite(String id) {
            Integer value = jdbc.queryForObject("SELECT value FROM probe_counter WHERE id = ?", Integer.class, id);
            jdbc.update("UPDATE probe_counter SET value = ? WHERE id = ?", value + 1, id);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {

        @Bean
        Counter counter(JdbcTemplate jdbc, Observer observer) {
            return new Counter(jdbc, observer);
        }
    }

    /**
     * Looks at the lock table through a pool of its own, outside any transaction of the application (whose snapshot
     * would still show a lock released after it began).
     */
    record Observer(LeaseDao dao) {

        boolean held(String name, String key) {
            return heldInDatabase(dao, name, key);
        }
    }

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("CREATE TABLE IF NOT EXISTS probe_counter (id VARCHAR(20) PRIMARY KEY, value INT NOT NULL)");
        DataSource own = database.dataSource();
        Observer observer =
                new Observer(LockDaos.of(own, new DataSourceTransactionManager(own), Dialects.detect(own, "biz_lock"))
                        .leases());
        runner = LockFixtures.runner(database)
                .withBean(Observer.class, () -> observer)
                .withUserConfiguration(Services.class);
    }

    private static void resetCounter(JdbcTemplate jdbc, String id) {
        jdbc.update("REPLACE INTO probe_counter (id, value) VALUES (?, 0)", id);
    }

    private static int counter(JdbcTemplate jdbc, String id) {
        Integer value = jdbc.queryForObject("SELECT value FROM probe_counter WHERE id = ?", Integer.class, id);
        return value == null ? -1 : value;
    }

    private static void concurrently(Callable<Void> work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                futures.add(pool.submit(() -> {
                    for (int n = 0; n < INCREMENTS; n++) {
                        work.call();
                    }
                    return null;
                }));
            }
            for (Future<Void> future : futures) {
                future.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void holdsTheLockUntilTheMethodsOwnTransactionHasCompleted() {
        runner.run(context -> {
            Counter counter = context.getBean(Counter.class);
            assertThat(counter.recordLockAtCompletion("a"))
                    .as("the method ran in a transaction")
                    .isTrue();
            assertThat(counter.heldAfterCompletion())
                    .as("lock held when the transaction completed")
                    .isTrue();
            assertThat(context.getBean(Observer.class).held("probe", "a"))
                    .as("released after the call")
                    .isFalse();
        });
    }

    @Test
    void releasesOnlyWhenTheCallersTransactionCompletes() {
        runner.run(context -> {
            Counter counter = context.getBean(Counter.class);
            Observer observer = context.getBean(Observer.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            resetCounter(jdbc, "outer");
            TransactionTemplate outer = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            outer.executeWithoutResult(status -> {
                counter.incrementInCallersTransaction("outer");
                assertThat(observer.held("counter", "outer"))
                        .as("still held while the caller's transaction is open")
                        .isTrue();
            });
            assertThat(observer.held("counter", "outer"))
                    .as("released after commit")
                    .isFalse();
            outer.executeWithoutResult(status -> {
                counter.incrementInCallersTransaction("outer");
                status.setRollbackOnly();
            });
            assertThat(observer.held("counter", "outer"))
                    .as("released after rollback")
                    .isFalse();
            assertThat(counter(jdbc, "outer")).isEqualTo(1);
        });
    }

    @Test
    void noUpdateIsLostWhenTheMethodHasItsOwnTransaction() {
        runner.run(context -> {
            Counter counter = context.getBean(Counter.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            resetCounter(jdbc, "own");
            concurrently(() -> {
                counter.incrementInOwnTransaction("own");
                return null;
            });
            assertThat(counter(jdbc, "own")).isEqualTo(THREADS * INCREMENTS);
        });
    }

    @Test
    void noUpdateIsLostWhenTheMethodJoinsTheCallersTransaction() {
        runner.run(context -> {
            Counter counter = context.getBean(Counter.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            TransactionTemplate outer = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            resetCounter(jdbc, "joined");
            concurrently(() -> {
                outer.executeWithoutResult(status -> {
                    counter.incrementInCallersTransaction("joined");
                    // More work in the caller's transaction after the locked call: the window in which a lock
                    // released at the end of the call would let the next holder read the old value.
                    jdbc.queryForObject("SELECT COUNT(*) FROM probe_counter", Integer.class);
                });
                return null;
            });
            assertThat(counter(jdbc, "joined")).isEqualTo(THREADS * INCREMENTS);
        });
    }
}
