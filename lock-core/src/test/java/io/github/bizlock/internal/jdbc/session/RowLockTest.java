package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.contract.StatementCounter;
import io.github.bizlock.internal.jdbc.dialect.RowSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RowLockTest extends AbstractSessionLockTest {

    @Override
    protected LockMode mode() {
        return LockMode.ROW;
    }

    @Override
    protected String waitingStatement() {
        return "FOR UPDATE";
    }

    @Override
    protected long holderConnectionId(String lockName, String lockKey) {
        // Only this test's database: the server may be shared with other work.
        List<Long> ids = jdbc.queryForList(
                "SELECT t.trx_mysql_thread_id FROM information_schema.INNODB_TRX t"
                        + " JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
                        + " WHERE t.trx_rows_locked > 0 AND p.DB = DATABASE()",
                Long.class);
        assertThat(ids).as("sessions holding row locks").hasSize(1);
        return ids.get(0);
    }

    @Test
    void nowaitFailsWithTheServersOwnErrorCode() throws SQLException {
        RowSql sql = new RowSql(LockFixture.daos(dataSource).dialect());
        try (LockHandle ignored = a.template().acquire(name, "1");
                Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement statement = other.prepareStatement(sql.lockRowNowait())) {
                statement.setBytes(1, name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                statement.setBytes(2, "1".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                assertThatThrownBy(statement::executeQuery)
                        .isInstanceOf(SQLException.class)
                        .extracting(ex -> ((SQLException) ex).getErrorCode())
                        .isEqualTo(database.server().isMariaDb() ? 1205 : 3572)
                        .isEqualTo(sql.nowaitErrorCode());
            } finally {
                other.rollback();
            }
        }
    }

    @Test
    void waitersAreServedInTheServersOrder() throws Exception {
        int count = 5;
        List<SessionLocks> waiters = new ArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        List<Integer> order = new CopyOnWriteArrayList<>();
        LockHandle held = a.template().acquire(name, "1");
        try {
            for (int i = 0; i < count; i++) {
                SessionLocks waiter = locks();
                waiters.add(waiter);
                int index = i;
                done.add(CompletableFuture.runAsync(
                        () -> {
                            try (LockHandle mine = waiter.template()
                                    .acquire(name, "1", LockOptions.defaults().waitTime(Duration.ofSeconds(30)))) {
                                order.add(index);
                            }
                        },
                        threads));
                awaitWaiters(i + 1);
            }
            held.unlock();
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        } finally {
            waiters.forEach(SessionLocks::close);
        }
        System.out.printf(
                "%s ROW: %d waiters queued in order 0..%d were granted in order %s%n",
                server(), count, count - 1, order);
        assertThat(order)
                .containsExactlyInAnyOrderElementsOf(
                        IntStream.range(0, count).boxed().toList());
        if (database.server().isMariaDb()) {
            assertThat(order)
                    .as("MariaDB grants row locks first come, first served")
                    .isSorted();
        }
    }

    @Test
    void mySqlsLockWaitTimeoutIsSetOnlyWhenItChanges() throws Exception {
        // MariaDB waits with FOR UPDATE WAIT n; MySQL through the session variable, one statement more when it changes.
        assumeFalse(database.server().isMariaDb(), "MySQL only");
        try (SessionLocks counted = SessionLocks.open(
                        mode(),
                        LockFixture.daos(dataSource),
                        new org.springframework.jdbc.datasource.DriverManagerDataSource(
                                database.jdbcUrl() + "&" + StatementCounter.URL_PARAMETER,
                                database.username(),
                                database.password()),
                        1);
                LockHandle held = a.template().acquire(name, "1")) {
            StatementCounter.countMatching(sql -> sql.contains("innodb_lock_wait_timeout"));
            // Two waits that the server counts as 1 s, on the one session: set once.
            for (int i = 0; i < 2; i++) {
                assertThat(counted.template().tryAcquire(name, "1", Duration.ofMillis(300)))
                        .isEmpty();
            }
            assertThat(StatementCounter.matched()).as("sets for two 1 s waits").isEqualTo(1);
            // A wait of 2 s on the server: set again.
            assertThat(counted.template().tryAcquire(name, "1", Duration.ofMillis(1500)))
                    .isEmpty();
            assertThat(StatementCounter.matched()).as("sets after a 2 s wait").isEqualTo(2);
        } finally {
            StatementCounter.countMatching(sql -> false);
        }
    }
}
