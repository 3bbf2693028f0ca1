package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.bizlock.LockTest;
import io.github.bizlock.internal.jdbc.dialect.ClusterTopology;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * How {@link LockJdbc} runs statements, on the real database: writes on a connection of their own, bounded by a
 * deadline, with the connection and the caller's interrupt status handed back as they were; causal reads; the
 * classification of failures and the retry of transient ones.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LockJdbcTest {

    private static final String INSERT = "INSERT INTO jdbc_probe (id, v) VALUES (?, ?)";

    private DataSource dataSource;
    private JdbcTemplate jdbc;
    private LockJdbc db;

    @BeforeAll
    void createTables(DataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE jdbc_probe (id INT PRIMARY KEY, v BIGINT NOT NULL)");
        db = new LockJdbc(dataSource, dataSource, Dialects.detect(dataSource, TableName.DEFAULT));
    }

    @BeforeEach
    @AfterEach
    void emptyProbeTable() {
        jdbc.update("DELETE FROM jdbc_probe");
        Thread.interrupted();
    }

    private static long inTenSeconds() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    }

    /** A LockJdbc whose writes all go through {@code physical}, so that a test can read its settings after them. */
    private LockJdbc writingThrough(Connection physical) {
        return new LockJdbc(
                dataSource,
                new SingleConnectionDataSource(physical, true),
                Dialects.detect(dataSource, TableName.DEFAULT));
    }

    /** As {@link #writingThrough(Connection)}, on a dialect that takes the server for a Galera node. */
    private LockJdbc onGalera(DataSource lockConnections) {
        ClusterTopology galera = new ClusterTopology(ClusterTopology.Kind.GALERA, "wsrep_on=ON", false);
        return new LockJdbc(
                dataSource,
                lockConnections,
                Dialects.forServer("MariaDB", "10.11.19-MariaDB", TableName.DEFAULT, galera));
    }

    @Test
    void aCausalQueryOnGaleraWaitsForTheClusterForThatQueryOnly() throws SQLException {
        assumeMariaDb();
        try (Connection physical = dataSource.getConnection()) {
            LockJdbc onOneConnection = writingThrough(physical);
            String syncWait = "SELECT @@SESSION.wsrep_sync_wait";

            LockJdbc onGalera = onGalera(new SingleConnectionDataSource(physical, true));
            assertThat(onGalera.queryCausal(inTenSeconds(), syncWait, (rs, row) -> rs.getInt(1)))
                    .containsExactly(1);
            assertThat(onOneConnection.queryCausal(inTenSeconds(), syncWait, (rs, row) -> rs.getInt(1)))
                    .as("the session's setting is back to its default after the causal query, and a plain query"
                            + " leaves it so")
                    .containsExactly(0);
        }
    }

    @Test
    void aCausalQueryReturnsTheRowsItRead() {
        jdbc.update(INSERT, 1, 41);
        jdbc.update(INSERT, 2, 42);
        String query = "SELECT v FROM jdbc_probe WHERE id >= ? ORDER BY id";

        assertThat(db.queryCausal(inTenSeconds(), query, (rs, row) -> rs.getLong(1), 1))
                .containsExactly(41L, 42L);
        if (isMariaDb()) {
            assertThat(onGalera(dataSource).queryCausal(inTenSeconds(), query, (rs, row) -> rs.getLong(1), 1))
                    .containsExactly(41L, 42L);
        }
    }

    @Test
    void aTokenStatementBindsTextAsBytes() {
        jdbc.update(INSERT, 1, 0);

        OptionalLong token = db.updateReturningToken(
                inTenSeconds(),
                "UPDATE jdbc_probe SET v = LAST_INSERT_ID(IF(COLLATION(?) = 'binary', 7, 8)) WHERE id = 1",
                "name");

        assertThat(token).hasValue(7);
    }

    @Test
    void aTokenStatementThatChangesNoRowReturnsNoToken() {
        assertThat(db.updateReturningToken(
                        inTenSeconds(), "UPDATE jdbc_probe SET v = LAST_INSERT_ID(5) WHERE id = ?", 99))
                .isEmpty();
    }

    @Test
    void aTokenStatementThatSetsNoPositiveTokenFails() {
        jdbc.update(INSERT, 1, 0);

        assertThatThrownBy(() -> db.updateReturningToken(
                        inTenSeconds(), "UPDATE jdbc_probe SET v = LAST_INSERT_ID(0) WHERE id = 1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("did not return the fencing token");
    }

    @Test
    void aWriteWhoseDeadlineIsTooCloseIsNotSent() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);

        assertThatThrownBy(() -> db.update(deadline, INSERT, 1, 1))
                .isInstanceOf(DataAccessResourceFailureException.class)
                .hasMessageContaining("the write was not sent");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM jdbc_probe", Integer.class))
                .isZero();
    }

    @Test
    void aBoundedWriteHandsItsConnectionBackWithTheNetworkTimeoutItHad() throws SQLException {
        try (Connection physical = dataSource.getConnection()) {
            physical.setNetworkTimeout(Runnable::run, 43_210);
            LockJdbc onOneConnection = writingThrough(physical);

            onOneConnection.update(System.nanoTime() + TimeUnit.SECONDS.toNanos(10), INSERT, 1, 1);

            assertThat(physical.getNetworkTimeout()).isEqualTo(43_210);
        }
        assertThat(jdbc.queryForObject("SELECT v FROM jdbc_probe WHERE id = 1", Long.class))
                .isEqualTo(1L);
    }

    @Test
    void aBoundedWriteRunsWithAReadTimeoutOfItsRemainingTimeUpToThirtySeconds() throws SQLException {
        try (Connection physical = dataSource.getConnection()) {
            physical.setNetworkTimeout(Runnable::run, 43_210);
            LockJdbc onOneConnection = writingThrough(physical);
            // Read by the query that follows the write on its connection: the timeout the statements ran with.
            RowMapper<Integer> networkTimeout = (rs, row) -> physical.getNetworkTimeout();

            List<Integer> near = onOneConnection.updateThenQuery(
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(10),
                    INSERT,
                    new Object[] {1, 1},
                    "SELECT 1",
                    networkTimeout);
            List<Integer> far = onOneConnection.updateThenQuery(
                    System.nanoTime() + TimeUnit.MINUTES.toNanos(5),
                    INSERT,
                    new Object[] {2, 2},
                    "SELECT 1",
                    networkTimeout);

            assertThat(near)
                    .singleElement(as(InstanceOfAssertFactories.INTEGER))
                    .as("the time left until the deadline, in milliseconds")
                    .isBetween(5_000, 10_000);
            assertThat(far).as("never more than 30 s, however far the deadline").containsExactly(30_000);
            assertThat(physical.getNetworkTimeout()).isEqualTo(43_210);
        }
    }

    @Test
    void aWriteOfHousekeepingOrTheMigrationLeaseRunsWithAThirtySecondReadTimeout() throws SQLException {
        try (Connection physical = dataSource.getConnection()) {
            physical.setNetworkTimeout(Runnable::run, 0);
            List<Integer> readTimeouts = new ArrayList<>();
            Connection recording = (Connection) java.lang.reflect.Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("setNetworkTimeout")) {
                            readTimeouts.add((Integer) args[1]);
                        }
                        try {
                            return method.invoke(physical, args);
                        } catch (java.lang.reflect.InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });

            writingThrough(recording).update(INSERT, 1, 1);

            assertThat(readTimeouts)
                    .as("read timeouts set for the write, then the pool's given back: a write without a deadline of"
                            + " its own still ends if its connection goes dead")
                    .hasSize(2)
                    .last()
                    .isEqualTo(0);
            assertThat(readTimeouts.get(0)).as("the write's, in ms").isBetween(25_000, 30_000);
        }
    }

    @Test
    void aBoundedWriteGivesAConnectionWithoutReadTimeoutBackWithoutOne() throws SQLException {
        try (Connection physical = dataSource.getConnection()) {
            physical.setNetworkTimeout(Runnable::run, 0);
            LockJdbc onOneConnection = writingThrough(physical);

            onOneConnection.updateThenQuery(
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(10),
                    INSERT,
                    new Object[] {1, 1},
                    "SELECT 1",
                    (rs, row) -> rs.getInt(1));

            // 0 is "no read timeout", the driver's default: the pool's connection must not keep the write's.
            assertThat(physical.getNetworkTimeout()).isZero();
        }
    }

    @Test
    void durationsAreBoundInWholeMicroseconds() {
        assertThat(LockJdbc.micros(Duration.ofSeconds(2, 345_678_999))).isEqualTo(2_345_678L);
        assertThat(LockJdbc.micros(Duration.ofMillis(1))).isEqualTo(1_000L);
        assertThat(LockJdbc.micros(Duration.ofNanos(999))).isZero();
    }

    @Test
    void anInterruptedCallersWriteRunsAndTheInterruptStaysSet() {
        Thread.currentThread().interrupt();

        int written = db.update(INSERT, 1, 1);

        assertThat(Thread.interrupted()).as("interrupt status handed back").isTrue();
        assertThat(written).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM jdbc_probe", Integer.class))
                .isEqualTo(1);
    }

    @Test
    void aMissingLockTableFailsWithTheDdlThatCreatesIt() {
        assertThatThrownBy(() -> db.guarded(() -> jdbc.queryForList("SELECT 1 FROM no_such_table")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not exist")
                .hasMessageContaining("CREATE TABLE");
    }

    @Test
    void aMissingColumnOfALockTableFailsWithTheDdlThatCreatesIt() {
        assertThatThrownBy(() -> db.guarded(() -> jdbc.queryForList("SELECT no_such_column FROM biz_lock")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lacks a column of this version")
                .hasMessageContaining("CREATE TABLE");
    }

    @Test
    void otherFailuresPassUnchanged() {
        jdbc.update(INSERT, 1, 1);

        assertThatThrownBy(() -> db.guarded(() -> jdbc.update(INSERT, 1, 1))).isInstanceOf(DuplicateKeyException.class);
    }

    @Test
    void aJdbcFailureIsTranslatedByItsErrorCode() throws SQLException {
        jdbc.update(INSERT, 1, 1);
        SQLException duplicate = catchThrowableOfType(SQLException.class, () -> {
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.executeUpdate("INSERT INTO jdbc_probe (id, v) VALUES (1, 2)");
            }
        });

        assertThat(ServerErrors.translate("inserting", duplicate)).isInstanceOf(DuplicateKeyException.class);
        assertThat(ServerErrors.translate("anything", new SQLException("no code")))
                .isInstanceOf(UncategorizedSQLException.class);
    }

    @Test
    void aTransientFailureIsTriedAgainUntilItSucceeds() {
        AtomicInteger attempts = new AtomicInteger();

        String result = db.retrying(() -> {
            if (attempts.incrementAndGet() < 4) {
                throw failure(1213);
            }
            return "done";
        });

        assertThat(result).isEqualTo("done");
        assertThat(attempts).hasValue(4);
    }

    @Test
    void aTransientFailureIsTriedFourTimesAtMost() {
        AtomicInteger attempts = new AtomicInteger();

        assertThatThrownBy(() -> db.retrying(() -> {
                    attempts.incrementAndGet();
                    throw failure(1205);
                }))
                .isInstanceOf(DataAccessException.class);
        assertThat(attempts).hasValue(4);
    }

    @Test
    void anotherFailureIsNotTriedAgain() {
        AtomicInteger attempts = new AtomicInteger();

        assertThatThrownBy(() -> db.retrying(() -> {
                    attempts.incrementAndGet();
                    throw failure(1062);
                }))
                .isInstanceOf(DataAccessException.class);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void anInterruptDuringThePauseBetweenAttemptsStaysSet() {
        List<Boolean> interruptedAtAttempt = new ArrayList<>();

        db.retrying(() -> {
            interruptedAtAttempt.add(Thread.currentThread().isInterrupted());
            if (interruptedAtAttempt.size() == 1) {
                Thread.currentThread().interrupt();
                throw failure(1213);
            }
            return 1;
        });

        assertThat(interruptedAtAttempt).containsExactly(false, true);
        assertThat(Thread.interrupted()).isTrue();
    }

    /** A failure as the server reports it, with its error code, translated as every write's is. */
    private static DataAccessException failure(int errorCode) {
        return ServerErrors.translate("test", new SQLException("error " + errorCode, "HY000", errorCode));
    }

    private void assumeMariaDb() {
        assumeTrue(isMariaDb(), "wsrep_sync_wait is a MariaDB setting");
    }

    private boolean isMariaDb() {
        return String.valueOf(jdbc.queryForObject("SELECT VERSION()", String.class))
                .contains("MariaDB");
    }
}
