package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** bizlock's own small pool of plain connections, on a real database. */
@ExtendWith(TestDatabaseExtension.class)
class LockConnectionPoolTest {

    private DataSource plain;

    @BeforeEach
    void setUp(TestDatabase database) {
        plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
    }

    private static long connectionId(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT CONNECTION_ID()")) {
            row.next();
            return row.getLong(1);
        }
    }

    @Test
    void aConnectionGivenBackIsLentAgainAndCannotBeUsedThroughItsOldHandle() throws Exception {
        try (LockConnectionPool pool = new LockConnectionPool(plain, 2)) {
            Connection first = pool.getConnection();
            long id = connectionId(first);
            first.close();
            first.close(); // twice: given back once

            assertThat(first.isClosed()).isTrue();
            assertThatThrownBy(first::createStatement)
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("given back to its pool");
            try (Connection again = pool.getConnection()) {
                assertThat(connectionId(again)).isEqualTo(id);
                assertThat(again).isNotEqualTo(first);
            }
        }
    }

    @Test
    void atMostMaxSizeAreLentAndAWaiterGetsTheFirstGivenBack() throws Exception {
        try (LockConnectionPool pool = new LockConnectionPool(plain, 1)) {
            Connection held = pool.getConnection();
            long id = connectionId(held);
            CountDownLatch asking = new CountDownLatch(1);
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(
                    () -> {
                        asking.countDown();
                        try (Connection next = pool.getConnection()) {
                            return connectionId(next);
                        } catch (SQLException ex) {
                            throw new IllegalStateException(ex);
                        }
                    },
                    ThreadPerTask.EXECUTOR);
            assertThat(asking.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(waiter).as("no second connection while one is lent").isNotDone();

            held.close();

            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(id);
        }
    }

    @Test
    void anInterruptedWaitEndsWithAnErrorAndKeepsTheInterrupt() throws Exception {
        try (LockConnectionPool pool = new LockConnectionPool(plain, 1);
                Connection ignored = pool.getConnection()) {
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(pool::getConnection)
                        .isInstanceOf(SQLTransientConnectionException.class)
                        .hasMessageContaining("interrupted while waiting for a connection");
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
        }
    }

    @Test
    void anIdleConnectionKilledOnTheServerIsReplacedAfterACheck() throws Exception {
        try (LockConnectionPool pool = new LockConnectionPool(plain, 1, Duration.ZERO)) {
            long killed;
            try (Connection first = pool.getConnection()) {
                killed = connectionId(first);
            }
            new JdbcTemplate(plain).execute("KILL CONNECTION " + killed);

            try (Connection next = pool.getConnection()) {
                assertThat(connectionId(next)).isNotEqualTo(killed);
            }
        }
    }

    @Test
    void aConnectionGivenBackInATransactionIsRolledBackAndInAutocommit() throws Exception {
        new JdbcTemplate(plain).execute("CREATE TABLE pool_probe (id INT PRIMARY KEY)");
        try (LockConnectionPool pool = new LockConnectionPool(plain, 1)) {
            try (Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                connection.setAutoCommit(false);
                statement.executeUpdate("INSERT INTO pool_probe VALUES (1)");
            }
            try (Connection next = pool.getConnection()) {
                assertThat(next.getAutoCommit()).isTrue();
            }
            assertThat(new JdbcTemplate(plain).queryForObject("SELECT COUNT(*) FROM pool_probe", Integer.class))
                    .isZero();
        }
    }

    @Test
    void closingClosesTheIdleConnectionsAndRefusesNewOnes() throws Exception {
        LockConnectionPool pool = new LockConnectionPool(plain, 2);
        long id;
        try (Connection connection = pool.getConnection()) {
            id = connectionId(connection);
        }
        pool.close();

        assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class).hasMessageContaining("closed");
        JdbcTemplate server = new JdbcTemplate(plain);
        Await.until(
                "connection " + id + " ended on the server",
                Duration.ofSeconds(10),
                () -> server.queryForObject(
                                "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ?", Integer.class, id)
                        == 0);
    }

    @Test
    void aPoolNeedsAConnectionAndSaysWhatItIs() {
        assertThatThrownBy(() -> new LockConnectionPool(plain, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 connection, was 0");
        try (LockConnectionPool pool = new LockConnectionPool(plain, 3)) {
            assertThat(pool.toString()).startsWith("bizlock lock connection pool (3) of ");
        }
    }

    @Test
    void aConnectionThatCouldNotBeOpenedFreesItsPlaceForTheNextCaller() {
        DataSource refusing = new DriverManagerDataSource("jdbc:mysql://127.0.0.1:1/none?connectTimeout=500", "x", "y");
        try (LockConnectionPool pool = new LockConnectionPool(refusing, 1)) {
            for (int attempt = 1; attempt <= 2; attempt++) {
                // With its one place kept by the first failure, the second caller would wait 30 s for it instead.
                assertThatThrownBy(pool::getConnection)
                        .as("attempt %d", attempt)
                        .isInstanceOf(SQLException.class)
                        .hasMessageNotContaining("stayed busy");
            }
        }
    }

    @Test
    void anIdleConnectionThatPassesItsCheckIsLentAgain() throws Exception {
        try (LockConnectionPool pool = new LockConnectionPool(plain, 1, Duration.ZERO)) {
            long id;
            try (Connection first = pool.getConnection()) {
                id = connectionId(first);
            }
            try (Connection next = pool.getConnection()) {
                assertThat(connectionId(next))
                        .as("checked, found valid, reused")
                        .isEqualTo(id);
            }
        }
    }

    @Test
    void aConnectionItsDriverClosedIsDroppedWhenGivenBack() throws Exception {
        try (LockConnectionPool pool = new LockConnectionPool(plain, 1)) {
            Connection lent = pool.getConnection();
            long id = connectionId(lent);
            Connection physical = lent.unwrap(Connection.class);
            physical.close(); // as the driver does after a read timeout or a network failure
            assertThat(lent.isClosed())
                    .as("a handle whose connection was closed")
                    .isTrue();
            lent.close();

            try (Connection next = pool.getConnection()) {
                assertThat(connectionId(next)).isNotEqualTo(id);
            }
        }
    }

    @Test
    void aConnectionGivenBackAfterThePoolClosedIsClosed() throws Exception {
        LockConnectionPool pool = new LockConnectionPool(plain, 2);
        Connection lent = pool.getConnection();
        Connection physical = lent.unwrap(Connection.class);
        pool.close();
        lent.close();

        assertThat(physical.isClosed()).isTrue();
    }

    @Test
    void aHandleEqualsOnlyItselfAndNamesItsConnection() throws Exception {
        try (LockConnectionPool pool = new LockConnectionPool(plain, 2);
                Connection one = pool.getConnection();
                Connection other = pool.getConnection()) {
            assertThat(one).isEqualTo(one).isNotEqualTo(other).hasSameHashCodeAs(one);
            assertThat(one.equals(null)).isFalse();
            assertThat(one.hashCode()).isEqualTo(System.identityHashCode(one));
            assertThat(one.toString()).startsWith("bizlock lock connection ");
            assertThat(one.isClosed()).isFalse();
        }
    }
}
