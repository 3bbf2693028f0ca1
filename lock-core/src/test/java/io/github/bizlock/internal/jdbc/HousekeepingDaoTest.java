package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.CountingDataSource;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Housekeeping's own transaction, for the ROW lock rows it reads then deletes: a new one, whatever the caller has open,
 * at READ COMMITTED; and no write at all when nothing is old enough to go.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HousekeepingDaoTest {

    private static final Duration RETENTION = Duration.ofMinutes(1);

    private DataSource dataSource;
    private JdbcTemplate jdbc;

    @BeforeAll
    void createSchema(DataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    @BeforeEach
    void noRows() {
        jdbc.update("DELETE FROM biz_lock_row");
        jdbc.update("DELETE FROM biz_lock_token");
        jdbc.update("DELETE FROM biz_lock");
    }

    @Test
    void rowLockRowsArePurgedInATransactionOfTheirOwnThatACallersRollbackDoesNotUndo() {
        oldRowLockRow("purged");
        RecordingTransactionManager transactions = new RecordingTransactionManager(dataSource);
        HousekeepingDao housekeeping = housekeeping(dataSource, transactions);

        int deleted = new TransactionTemplate(transactions).execute(status -> {
            int purged = housekeeping.purgeSessionTables(RETENTION, 10);
            status.setRollbackOnly();
            return purged;
        });

        assertThat(deleted).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM biz_lock_row", Integer.class))
                .isZero();
    }

    @Test
    void rowLockRowsArePurgedAtReadCommittedSoThatOnlyTheRowsReadAreLocked() {
        oldRowLockRow("read-committed");
        RecordingTransactionManager transactions = new RecordingTransactionManager(dataSource);

        assertThat(housekeeping(dataSource, transactions).purgeSessionTables(RETENTION, 10))
                .isEqualTo(1);

        assertThat(transactions.begun).hasSize(1);
        TransactionDefinition purge = transactions.begun.get(0);
        assertThat(purge.getIsolationLevel()).isEqualTo(TransactionDefinition.ISOLATION_READ_COMMITTED);
        assertThat(purge.getName()).isEqualTo("bizlock-housekeeping");
    }

    @Test
    void nothingOldEnoughToGoSendsNoWrite() {
        AtomicInteger writes = new AtomicInteger();
        DataSource counting = CountingDataSource.counting(
                dataSource,
                sql -> sql.strip().startsWith("UPDATE") || sql.strip().startsWith("DELETE"),
                writes);
        HousekeepingDao housekeeping = housekeeping(counting, new DataSourceTransactionManager(counting));

        assertThat(housekeeping.purgeLeaseTable(RETENTION, 10)).isZero();
        assertThat(housekeeping.purgeSessionTables(RETENTION, 10)).isZero();

        assertThat(writes).hasValue(0);
    }

    @Test
    void oldLeaseAndTokenRowsGoAfterTheFloorRisesAboveTheirTokens() {
        jdbc.update(
                "INSERT INTO biz_lock (biz_type, biz_id, owner_id, fencing_token, expire_at, created_at, acquired_at,"
                        + " modified_at) VALUES (?, ?, NULL, 70, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR,"
                        + " UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR,"
                        + " UTC_TIMESTAMP(6) - INTERVAL 1 HOUR)",
                LockJdbc.bytes("housekeeping"),
                LockJdbc.bytes("lease"));
        jdbc.update(
                "INSERT INTO biz_lock_token (biz_type, biz_id, lock_mode, last_token, modified_at)"
                        + " VALUES (?, ?, 'ROW', 90, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR)",
                LockJdbc.bytes("housekeeping"),
                LockJdbc.bytes("token"));
        HousekeepingDao housekeeping = housekeeping(dataSource, new DataSourceTransactionManager(dataSource));

        assertThat(housekeeping.purgeLeaseTable(RETENTION, 10)).isEqualTo(1);
        assertThat(floor()).isGreaterThanOrEqualTo(70L);
        assertThat(housekeeping.purgeSessionTables(RETENTION, 10)).isEqualTo(1);
        assertThat(floor()).isGreaterThanOrEqualTo(90L);

        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM biz_lock", Integer.class))
                .isZero();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM biz_lock_token", Integer.class))
                .isZero();
    }

    private long floor() {
        return jdbc.queryForObject("SELECT floor_token FROM biz_lock_token_floor WHERE id = 1", Long.class);
    }

    private void oldRowLockRow(String key) {
        jdbc.update(
                "INSERT INTO biz_lock_row (biz_type, biz_id, created_at)"
                        + " VALUES (?, ?, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR)",
                LockJdbc.bytes("housekeeping"),
                LockJdbc.bytes(key));
    }

    private static HousekeepingDao housekeeping(DataSource dataSource, DataSourceTransactionManager transactions) {
        return new HousekeepingDao(
                new LockDatabase(dataSource, Dialects.detect(dataSource, TableName.DEFAULT)), transactions);
    }

    /** Records the definition of every transaction it begins. */
    private static final class RecordingTransactionManager extends DataSourceTransactionManager {

        final List<TransactionDefinition> begun = new ArrayList<>();

        RecordingTransactionManager(DataSource dataSource) {
            super(dataSource);
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            begun.add(definition);
            super.doBegin(transaction, definition);
        }
    }
}
