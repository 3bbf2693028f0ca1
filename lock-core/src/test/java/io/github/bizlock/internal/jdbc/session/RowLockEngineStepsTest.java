package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.LockDaos;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The ROW engine's own steps where the shared engine tests ({@link RowLockEngineTest}) cannot reach them: a try that
 * must not wait, a new row committed before it is locked, a missing row that another transaction keeps from being created,
 * a session that died or is not the connection it was. Each engine's sessions come from a {@link SessionConnections},
 * so a test can find them on the server and see whether the canceller had to open its kill connection.
 */
class RowLockEngineStepsTest extends SessionEngineFixture<SessionLockEngine> {

    private static final Duration CEILING = Duration.ofSeconds(5);

    @Override
    protected SessionLockEngine engine(LockDaos daos, DataSource sessions, String owner) {
        return LockFixture.row(daos, sessions, 2, owner);
    }

    @Test
    void aTryForAHeldRowAnswersAtOnceWithoutAWaitToEnd() throws Exception {
        Grant held = a.acquire(key, LEASE, 0, in5s());

        // A try is FOR UPDATE NOWAIT: the server answers at once. A try sent as a wait would block on the held row
        // until the canceller ended it with KILL QUERY, from a connection of its own opened on first use.
        for (int i = 0; i < 5; i++) {
            assertThat(b.acquire(key, LEASE, 0, System.nanoTime() - 1)).isNull();
        }

        assertThat(bSessions.opened())
                .as("b's session only, no kill connection")
                .isEqualTo(1);
        a.release(held);
    }

    @Test
    void aNewRowIsCommittedBeforeItIsLocked() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, System.nanoTime() - 1);

        // Created in a transaction of its own: the row is there for everyone while the lock is held, and stays there
        // if the holder's session dies and its transaction rolls back.
        assertThat(rows()).isEqualTo(1);
        a.release(grant);
    }

    @Test
    void aTryForARowAnotherTransactionKeepsFromBeingCreatedEndsAfterItsGrace() throws Exception {
        try (Connection blocker = plain.getConnection()) {
            openSession(a);
            lockGap(blocker);
            try {
                CompletableFuture<Grant> trying =
                        CompletableFuture.supplyAsync(() -> acquire(a, System.nanoTime() - 1), ThreadPerTask.EXECUTOR);

                // The gap stays locked: the try answers "not acquired" once its creation's grace (1 s) is over,
                // instead of creating the row again, with a new grace, for as long as the blocker holds on.
                assertThat(trying.get(CEILING.toMillis(), TimeUnit.MILLISECONDS))
                        .isNull();
            } finally {
                blocker.rollback();
            }
        }
    }

    @Test
    void aRowWhoseCreationTimesOutIsTriedAgain() throws Exception {
        // innodb_lock_wait_timeout = 0 (MariaDB) fails the INSERT at once with the server's lock wait timeout.
        assumeTrue(daos.dialect().product().equals("MariaDB"));
        DataSource noWait = new DriverManagerDataSource(
                database.jdbcUrl() + "&sessionVariables=innodb_lock_wait_timeout=0",
                database.username(),
                database.password());
        SessionLockEngine engine = LockFixture.row(daos, noWait, 1, "c");
        try (Connection blocker = plain.getConnection()) {
            openSession(engine);
            lockGap(blocker);
            CompletableFuture<Grant> trying =
                    CompletableFuture.supplyAsync(() -> acquire(engine, in5s()), ThreadPerTask.EXECUTOR);
            Await.until(
                    "an INSERT of the row was sent while it could not succeed",
                    CEILING,
                    () -> trying.isDone() || insertRunning());

            blocker.commit();

            Grant grant = trying.get(10, TimeUnit.SECONDS);
            assertThat(grant).isNotNull();
            engine.release(grant);
        } finally {
            engine.close();
        }
    }

    @Test
    void aWaitTheMySqlWaySetsTheSessionsLockWaitTimeoutWhenItChangesOnly() throws Exception {
        // MySQL's row lock waits for the session's innodb_lock_wait_timeout, set before the statement; MariaDB
        // understands the same statements, so the engine's MySQL path runs here whatever the server.
        LockDaos mySql = LockDaos.of(
                database.dataSource(),
                new DataSourceTransactionManager(database.dataSource()),
                io.github.bizlock.internal.jdbc.dialect.RowSqlTest.mySqlDialect());
        SessionLockEngine engine = LockFixture.row(mySql, bSessions, 1, "m");
        try {
            // Without time left the engine would try with NOWAIT, which fails on MariaDB with another code than on
            // MySQL: the session is opened first, so that the waits below start well before their deadlines.
            openSession(engine);
            Grant held = a.acquire(key, LEASE, 0, in5s());

            assertThat(engine.acquire(key, LEASE, 0, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200)))
                    .isNull();
            Connection session = bSessions.connection(0);
            assertThat(queryLong(session, "SELECT @@SESSION.innodb_lock_wait_timeout"))
                    .as("the whole seconds that cover the wait")
                    .isEqualTo(1);

            // Changed behind the engine's back: a wait of the same seconds does not send the setting again.
            try (Statement statement = session.createStatement()) {
                statement.execute("SET SESSION innodb_lock_wait_timeout = 7");
            }
            assertThat(engine.acquire(key, LEASE, 0, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200)))
                    .isNull();
            assertThat(queryLong(session, "SELECT @@SESSION.innodb_lock_wait_timeout"))
                    .isEqualTo(7);
            a.release(held);
        } finally {
            engine.close();
        }
    }

    @Test
    void aSessionThatAnswersAsAnotherConnectionIsNotTrustedWithTheRow() throws Exception {
        aSessions.answerConnectionIdAsAnother();

        assertThatThrownBy(() -> a.acquire(key, LEASE, 0, in5s()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("reconnected");

        // The session was closed, and the server rolled back its transaction, freeing the row.
        assertThat(a.heldSessions()).isZero();
        Grant next = b.acquire(key, LEASE, 0, in5s());
        assertThat(next).isNotNull();
        b.release(next);
    }

    @Test
    void aHeldSessionThatNowAnswersAsAnotherConnectionLosesItsLockAndGetsNoTokens() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, in5s());

        aSessions.answerConnectionIdAsAnother();

        Map<Grant, Loss> gone = a.renew(List.of(grant));
        assertThat(gone).containsKey(grant);
        assertThat(gone.get(grant).cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThatThrownBy(() -> a.issueTokens(grant, 1))
                .isInstanceOf(DataAccessException.class)
                .hasMessageContaining("changed while fencing tokens were issued");
        a.release(grant);
    }

    @Test
    void tokensForALockWhoseSessionDiedAreRefused() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, in5s());

        try (Connection other = plain.getConnection();
                Statement statement = other.createStatement()) {
            statement.execute("KILL " + connectionId(aSessions.connection(0)));
        }

        // The tokens come from another connection; only the session's answer afterwards shows it held the row all
        // along. Dead, it freed the row, and a next holder may have drawn a lower token.
        assertThatThrownBy(() -> a.issueTokens(grant, 1)).isInstanceOf(DataAccessException.class);
        a.release(grant);
    }

    /**
     * Opens the engine's session with a lock on another key and gives it back to the pool: opening a connection to a
     * busy shared server can take longer than a try's grace, and the tests here are about what follows.
     */
    private void openSession(SessionLockEngine engine) throws InterruptedException {
        Grant warmUp = engine.acquire(new LockKey(key.name(), key.key() + "-warm-up"), LEASE, 0, in5s());
        assertThat(engine.release(warmUp)).isNull();
    }

    /**
     * Takes a gap lock where the key's missing row would go, as a REPEATABLE READ locking read of it does. The
     * connection is opened before the engine's session, so that the session is still fresh when the test goes on.
     */
    private void lockGap(Connection blocker) throws SQLException {
        blocker.setAutoCommit(false);
        blocker.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (PreparedStatement statement = blocker.prepareStatement(
                "SELECT biz_id FROM biz_lock_row WHERE biz_type = ? AND biz_id = ? FOR UPDATE")) {
            statement.setBytes(1, key.name().getBytes(StandardCharsets.UTF_8));
            statement.setBytes(2, key.key().getBytes(StandardCharsets.UTF_8));
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).as("the row is missing").isFalse();
            }
        }
    }

    private Grant acquire(SessionLockEngine engine, long deadlineNanos) {
        try {
            return engine.acquire(key, LEASE, 0, deadlineNanos);
        } catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Whether the engine's INSERT of a missing row runs on this test's database, as the process list shows it: its
     * connection cannot be asked while its statement runs.
     */
    private boolean insertRunning() {
        Long running = new JdbcTemplate(plain)
                .queryForObject(
                        "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                                + " WHERE DB = DATABASE() AND INFO LIKE 'INSERT IGNORE INTO biz_lock_row%'",
                        Long.class);
        return running > 0;
    }

    private long rows() {
        return new JdbcTemplate(plain)
                .queryForObject(
                        "SELECT COUNT(*) FROM biz_lock_row WHERE biz_id = ?",
                        Long.class,
                        key.key().getBytes(StandardCharsets.UTF_8));
    }

    private static long connectionId(Connection connection) throws SQLException {
        return queryLong(connection, "SELECT CONNECTION_ID()");
    }

    @Test
    void onAMultiWriterClusterTheRefusalNamesTheModeAndItsLockStatement() {
        assertRefusedOnAMultiWriterCluster(LockMode.ROW, "SELECT ... FOR UPDATE");
    }
}
