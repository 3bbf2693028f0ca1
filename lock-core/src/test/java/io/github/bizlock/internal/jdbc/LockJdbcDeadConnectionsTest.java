package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.ProxiedLockPool;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.test.FreezingProxy;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A host that died without a word leaves every pooled connection to it half-open. Once one lock statement timed out on
 * such a connection, the next is not sent on another dead one: it pings each connection it is lent first, and the
 * pool drops those that do not answer.
 */
@ExtendWith(TestDatabaseExtension.class)
class LockJdbcDeadConnectionsTest {

    @Test
    void afterAStatementTimedOutOnADeadConnectionTheNextRunsOnOneThatAnswers(TestDatabase database) throws Exception {
        new JdbcTemplate(database.dataSource()).execute("CREATE TABLE dead_probe (id INT PRIMARY KEY)");
        try (FreezingProxy network = new FreezingProxy(database.jdbcUrl());
                HikariDataSource pool = ProxiedLockPool.open(network, database)) {
            LockJdbc db = new LockJdbc(
                    database.dataSource(), pool, Dialects.detect(database.dataSource(), TableName.DEFAULT));
            ProxiedLockPool.openAll(pool);
            assertThat(network.freezeOpen()).isEqualTo(ProxiedLockPool.SIZE);

            assertThatThrownBy(() -> db.update(inSeconds(2), "INSERT INTO dead_probe VALUES (1)"))
                    .as("the first statement meets a dead connection and ends at its deadline")
                    .isInstanceOf(DataAccessException.class);
            long started = System.nanoTime();
            assertThat(db.update(inSeconds(10), "INSERT INTO dead_probe VALUES (2)"))
                    .as("the next statement, on a connection that answers")
                    .isEqualTo(1);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("a statement after a dead connection's timeout, 3 dead ones left: %d ms%n", millis);
            // Ceiling: a 1 s ping of each of the 3 dead connections left, and a new connection; before, the statement
            // waited on the next dead connection until its deadline, and failed.
            assertThat(millis).isLessThan(8000);
        }
    }

    private static long inSeconds(int seconds) {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }
}
