package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * LEASE writes are single statements in autocommit, outside the caller's transaction. A pool that hands out connections
 * with autocommit off (a common setting with JPA) must not leave them uncommitted: the connection closes here after
 * each use, and the server rolls back what it did not commit.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseAutocommitTest {

    @Test
    void writesCommitWhenThePoolHandsOutConnectionsWithoutAutocommit(DataSource dataSource) throws Exception {
        DataSource manualCommit = manualCommit(dataSource);
        try (LockManager holder = LockFixture.manager(manualCommit).build();
                LockManager other = LockFixture.manager(dataSource).build()) {
            assertAcquisitionsAndReleasesCommit(holder, other, new LockKey("autocommit", "1"));
        }
    }

    @Test
    void aConnectionHandedOutWithoutAutocommitIsHandedBackWithout(DataSource dataSource) throws Exception {
        // One physical connection that stays open, as a pool keeps it: whatever the writes do to its autocommit, the
        // next user of the connection finds. (Hikari would reset it on return; not every pool does.)
        try (Connection physical = dataSource.getConnection()) {
            physical.setAutoCommit(false);
            SingleConnectionDataSource pooled = new SingleConnectionDataSource(physical, true);
            try (LockManager holder = LockFixture.manager(pooled).build();
                    LockManager other = LockFixture.manager(dataSource).build()) {
                assertAcquisitionsAndReleasesCommit(holder, other, new LockKey("autocommit", "restored"));
                assertThat(physical.getAutoCommit())
                        .as("autocommit switched on for each write, and back")
                        .isFalse();
            }
        }
    }

    @Test
    void writesCommitWithoutTransactionSynchronization(DataSource dataSource) throws Exception {
        DataSource manualCommit = manualCommit(dataSource);
        DataSourceTransactionManager unsynchronized = new DataSourceTransactionManager(manualCommit);
        unsynchronized.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
        try (LockManager holder = manager(dataSource, manualCommit, unsynchronized);
                LockManager other = LockFixture.manager(dataSource).build()) {
            assertAcquisitionsAndReleasesCommit(holder, other, new LockKey("autocommit", "unsynchronized"));
        }
    }

    @Test
    void writesNeverUseOrCommitTheCallersConnection(DataSource dataSource) throws Exception {
        JdbcTemplate plain = new JdbcTemplate(dataSource);
        plain.execute("CREATE TABLE IF NOT EXISTS scratch (id INT PRIMARY KEY)");
        DataSource manualCommit = manualCommit(dataSource);
        DataSourceTransactionManager transactions = new DataSourceTransactionManager(manualCommit);
        // A scope without a transaction that still binds its connection (SUPPORTS, synchronization on): the caller's
        // insert is pending on that connection, uncommitted.
        TransactionTemplate supports = new TransactionTemplate(transactions);
        supports.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);
        LockKey key = new LockKey("autocommit", "scope");
        try (LockManager holder = manager(dataSource, manualCommit, transactions);
                LockManager other = LockFixture.manager(dataSource).build()) {
            LockHandle handle = supports.execute(status -> {
                new JdbcTemplate(manualCommit).update("INSERT INTO scratch (id) VALUES (1)");
                try {
                    return holder.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                            .orElseThrow();
                } catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            assertThat(other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                    .as("the acquisition committed")
                    .isEmpty();
            assertThat(plain.queryForObject("SELECT COUNT(*) FROM scratch", Integer.class))
                    .as("the caller's uncommitted insert was not committed by the lock's write")
                    .isZero();
            handle.unlock();
        }
    }

    /** Takes and releases the lock twice (the first creates the row): {@code other} sees each write at once. */
    private static void assertAcquisitionsAndReleasesCommit(LockManager holder, LockManager other, LockKey key)
            throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            LockHandle handle =
                    holder.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            assertThat(other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                    .as("the acquisition committed")
                    .isEmpty();
            handle.unlock();
            other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow(() -> new AssertionError("the release did not commit"))
                    .unlock();
        }
    }

    /** A LEASE manager writing through {@code target} with the given transaction manager. */
    private static LockManager manager(
            DataSource dataSource, DataSource target, PlatformTransactionManager transactionManager) {
        LockDaos daos = LockDaos.of(target, transactionManager, Dialects.detect(dataSource, TableName.DEFAULT));
        return LockFixture.manager(daos, InstanceId.generate()).build();
    }

    /** The data source, handing out connections with autocommit off, as a pool configured so does. */
    private static DataSource manualCommit(DataSource dataSource) {
        return new DelegatingDataSource(dataSource) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = super.getConnection();
                connection.setAutoCommit(false);
                return connection;
            }
        };
    }
}
