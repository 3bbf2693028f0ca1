package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * ROW mode's statements for the server under test: how a row lock waits (in the statement on MariaDB, through the
 * session's {@code innodb_lock_wait_timeout} on MySQL) and which error a failed {@code NOWAIT} reports.
 */
@ExtendWith(TestDatabaseExtension.class)
public class RowSqlTest {

    @Test
    void theStatementsLockTheRowOfTheConfiguredTableAndWaitAsTheServerDoes(TestDatabase database) {
        Dialect dialect = Dialects.detect(database.dataSource(), "biz_lock");
        RowSql sql = new RowSql(dialect);

        assertThat(sql.createLockRow()).contains("INSERT IGNORE INTO biz_lock_row");
        assertThat(sql.lockRowNowait())
                .contains("SELECT CONNECTION_ID()")
                .contains("FROM biz_lock_row")
                .contains("FOR UPDATE NOWAIT");
        if (dialect.product().equals("MariaDB")) {
            assertThat(sql.lockRow(7)).contains("FOR UPDATE WAIT 7").doesNotContain("NOWAIT");
            assertThat(sql.lockWaitTimeout()).isNull();
            assertThat(sql.nowaitErrorCode()).isEqualTo(ServerErrors.ER_LOCK_WAIT_TIMEOUT);
        } else {
            assertThat(sql.lockRow(7)).contains("FOR UPDATE").doesNotContain("WAIT");
            assertThat(sql.lockWaitTimeout()).isEqualTo("SET SESSION innodb_lock_wait_timeout = ?");
            assertThat(sql.nowaitErrorCode()).isEqualTo(3572);
        }
    }

    @Test
    void onMySqlARowLockWaitsForTheSessionsLockWaitTimeoutAndAFailedNowaitIs3572() throws Exception {
        // The statements are text: MySQL's are checked whatever server the tests run on.
        RowSql sql = new RowSql(mySqlDialect());

        assertThat(sql.lockRow(7))
                .contains("FROM biz_lock_row")
                .contains("FOR UPDATE")
                .doesNotContain("WAIT");
        assertThat(sql.lockWaitTimeout()).isEqualTo("SET SESSION innodb_lock_wait_timeout = ?");
        assertThat(sql.nowaitErrorCode()).isEqualTo(3572);
    }

    /** The dialect of a MySQL server, whatever the server under test. */
    public static Dialect mySqlDialect() {
        return Dialects.forServer("MySQL", "8.0.31", TableName.DEFAULT, ClusterTopology.SINGLE_SERVER);
    }
}
