package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockTest;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Housekeeping and read leases: a lock row whose readers' leases still run stays, however long ago it was modified (a
 * writer would otherwise create it again and take it under the readers), and read leases a crashed instance left go
 * after the retention.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadLeaseHousekeepingTest {

    private static final Duration RETENTION = Duration.ofMinutes(1);

    private JdbcTemplate jdbc;
    private HousekeepingDao housekeeping;

    @BeforeAll
    void setUp(DataSource dataSource) {
        jdbc = new JdbcTemplate(dataSource);
        housekeeping = new HousekeepingDao(
                new LockDatabase(dataSource, Dialects.detect(dataSource, TableName.DEFAULT)),
                new DataSourceTransactionManager(dataSource));
    }

    @BeforeEach
    void noRows() {
        jdbc.update("DELETE FROM biz_lock_reader");
        jdbc.update("DELETE FROM biz_lock");
    }

    private void freeRowModifiedAnHourAgo(String key, String readUntil) {
        jdbc.update(
                "INSERT INTO biz_lock (biz_type, biz_id, owner_id, fencing_token, expire_at, created_at, acquired_at,"
                        + " modified_at, read_until) VALUES ('catalog', ?, NULL, 5, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR,"
                        + " UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR,"
                        + " UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, " + readUntil + ")",
                LockJdbc.bytes(key));
    }

    @Test
    void aRowWithARunningReadLeaseStaysAndOneWhoseReadersLeftGoes() {
        freeRowModifiedAnHourAgo("read", "UTC_TIMESTAMP(6) + INTERVAL 1 HOUR");
        freeRowModifiedAnHourAgo("left", "UTC_TIMESTAMP(6) - INTERVAL 1 HOUR");

        assertThat(housekeeping.purgeLeaseTable(RETENTION, 10)).isEqualTo(1);

        assertThat(jdbc.queryForList("SELECT biz_id FROM biz_lock", byte[].class))
                .singleElement()
                .isEqualTo(LockJdbc.bytes("read"));
    }

    @Test
    void readLeasesThatEndedLongerAgoThanTheRetentionGo() {
        jdbc.update("INSERT INTO biz_lock_reader (biz_type, biz_id, owner_id, grant_id, expire_at, created_at) VALUES"
                + " ('catalog', 'a', 'crashed', 1, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, UTC_TIMESTAMP(6) - INTERVAL 2"
                + " HOUR), ('catalog', 'a', 'live', 1, UTC_TIMESTAMP(6) + INTERVAL 1 HOUR, UTC_TIMESTAMP(6))");

        assertThat(housekeeping.purgeLeaseTable(RETENTION, 10)).isEqualTo(1);

        assertThat(jdbc.queryForList("SELECT owner_id FROM biz_lock_reader", byte[].class))
                .singleElement()
                .isEqualTo(LockJdbc.bytes("live"));
    }
}
