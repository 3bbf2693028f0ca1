package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A lock taken inside a REPEATABLE READ transaction that has already read protects nothing for plain reads: InnoDB fixed
 * the transaction's snapshot at its first read, so a read under the lock does not see what the previous holder
 * committed. bizlock cannot see whether the transaction has read; it warns, once per method, when a lock is taken inside
 * a transaction that was open before the call and is not READ COMMITTED.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class LockInsideTransactionTest {

    private static final String WARNING = "takes its lock inside a transaction that was open before the call";

    static class Counter {

        private final JdbcTemplate jdbc;

        Counter(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** A read-modify-write under the lock, in the caller's transaction if there is one. */
        @DistributedLock(name = "counter", key = "#id", waitTime = "30s")
        public void increment(String id) {
            Integer value = jdbc.queryForObject("SELECT value FROM tx_counter WHERE id = ?", Integer.class, id);
            jdbc.update("UPDATE tx_counter SET value = ? WHERE id = ?", value + 1, id);
        }

        /** A plain read, in the caller's transaction if there is one. */
        public int read(String id) {
            Integer value = jdbc.queryForObject("SELECT value FROM tx_counter WHERE id = ?", Integer.class, id);
            return value == null ? -1 : value;
        }

        @DistributedLock(name = "counter", key = "#id", waitTime = "30s")
        @Transactional
        public void incrementInOwnTransaction(String id) {
            increment(id);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {

        @Bean
        Counter counter(JdbcTemplate jdbc) {
            return new Counter(jdbc);
        }
    }

    private ApplicationContextRunner runner;
    private JdbcTemplate jdbc;

    @BeforeEach
    void setUp(TestDatabase database) {
        jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("CREATE TABLE IF NOT EXISTS tx_counter (id VARCHAR(20) PRIMARY KEY, value INT NOT NULL)");
        runner = LockFixtures.runner(database).withUserConfiguration(Services.class);
    }

    private int counter(String id) {
        Integer value = jdbc.queryForObject("SELECT value FROM tx_counter WHERE id = ?", Integer.class, id);
        return value == null ? -1 : value;
    }

    /**
     * The caller's transaction reads, another holder increments under the lock and commits, then the caller takes the
     * lock and increments: at REPEATABLE READ it reads its old snapshot and one increment is lost; at READ COMMITTED it
     * reads the other holder's commit.
     */
    private int incrementAfterAReadAndAnotherHoldersCommit(
            PlatformTransactionManager transactions, Counter counter, String id, int isolation) throws Exception {
        jdbc.update("REPLACE INTO tx_counter (id, value) VALUES (?, 0)", id);
        TransactionTemplate outer = new TransactionTemplate(transactions);
        outer.setIsolationLevel(isolation);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            outer.executeWithoutResult(status -> {
                // The transaction's first read, on the application's DataSource: InnoDB takes its snapshot here at
                // REPEATABLE READ.
                counter.read(id);
                try {
                    other.submit(() -> counter.increment(id)).get(30, TimeUnit.SECONDS);
                } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
                counter.increment(id);
            });
        } finally {
            other.shutdownNow();
        }
        return counter(id);
    }

    @Test
    void atRepeatableReadAReadBeforeTheLockLosesTheOtherHoldersUpdate() {
        runner.run(context -> {
            PlatformTransactionManager transactions = context.getBean(PlatformTransactionManager.class);
            Counter counter = context.getBean(Counter.class);

            assertThat(incrementAfterAReadAndAnotherHoldersCommit(
                            transactions, counter, "rr", TransactionDefinition.ISOLATION_REPEATABLE_READ))
                    .as("two increments under the lock, one lost to the stale snapshot")
                    .isEqualTo(1);
            assertThat(incrementAfterAReadAndAnotherHoldersCommit(
                            transactions, counter, "rc", TransactionDefinition.ISOLATION_READ_COMMITTED))
                    .as("READ COMMITTED reads the other holder's commit under the lock")
                    .isEqualTo(2);
        });
    }

    @Test
    void warnsOncePerMethodWhenTheLockIsTakenInsideARepeatableReadTransaction(CapturedOutput output) {
        runner.run(context -> {
            Counter counter = context.getBean(Counter.class);
            jdbc.update("REPLACE INTO tx_counter (id, value) VALUES ('w', 0)");
            TransactionTemplate outer = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            outer.executeWithoutResult(status -> counter.increment("w"));
            outer.executeWithoutResult(status -> counter.increment("w"));
            outer.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
            outer.executeWithoutResult(status -> counter.increment("w"));

            String log = output.getAll();
            assertThat(log.split(WARNING, -1)).as("warned once for the method").hasSize(2);
            String warning = log.substring(log.indexOf(WARNING) - 200);
            assertThat(warning)
                    .contains(Counter.class.getName() + ".increment(String)")
                    .contains("REPEATABLE READ")
                    .contains("FOR UPDATE")
                    .contains("READ COMMITTED");
        });
    }

    @Test
    void doesNotWarnOutsideAnEarlierTransactionOrAtReadCommitted(CapturedOutput output) {
        runner.run(context -> {
            Counter counter = context.getBean(Counter.class);
            jdbc.update("REPLACE INTO tx_counter (id, value) VALUES ('q', 0)");
            TransactionTemplate outer = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            outer.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);

            counter.increment("q");
            counter.incrementInOwnTransaction("q");
            outer.executeWithoutResult(status -> counter.increment("q"));

            assertThat(counter("q")).isEqualTo(3);
            assertThat(output.getAll()).doesNotContain(WARNING);
        });
    }

    @Test
    void refusesInsteadOfWarningWhenTheApplicationAsks() {
        runner.withPropertyValues("bizlock.refuse-in-snapshot-transaction=true").run(context -> {
            Counter counter = context.getBean(Counter.class);
            jdbc.update("REPLACE INTO tx_counter (id, value) VALUES ('r', 0)");
            TransactionTemplate outer = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

            assertThatThrownBy(() -> outer.executeWithoutResult(status -> counter.increment("r")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(Counter.class.getName() + ".increment(String)")
                    .hasMessageContaining("bizlock.refuse-in-snapshot-transaction=true")
                    .hasMessageContaining("READ COMMITTED");
            assertThat(counter("r")).as("the method did not run").isZero();

            outer.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
            outer.executeWithoutResult(status -> counter.increment("r"));
            counter.increment("r");
            assertThat(counter("r")).isEqualTo(2);
        });
    }
}
