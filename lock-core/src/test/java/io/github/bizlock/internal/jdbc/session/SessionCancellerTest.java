package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** R5, deadlines hold: the {@code KILL QUERY} watcher ends a watched statement whenever its kill arrives. */
@ExtendWith(TestDatabaseExtension.class)
class SessionCancellerTest {

    @Test
    void aKillThatReachedTheSessionBeforeItsStatementIsSentAgain(TestDatabase database) throws Exception {
        DataSource plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        SessionCanceller canceller = new SessionCanceller(plain);
        try (Connection connection = plain.getConnection();
                Statement statement = connection.createStatement()) {
            SessionCanceller.Watch watch =
                    canceller.watch(new Session(connection, connectionId(statement)), System.nanoTime());
            // The deadline has passed: the kill goes out while the session is idle, and the server drops it.
            Await.until("the first kill was sent", Duration.ofSeconds(5), () -> watch.ending() != null);

            long started = System.nanoTime();
            endedWithin5s(statement, watch);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf(
                    "%s: statement after a dropped kill ended after %d ms%n",
                    database.server().product(), millis);
            // Ceiling, not a measurement: the watch kills again 100 ms after a kill that did not end the statement;
            // before, the statement ran its whole 5 s (for a lock wait without a deadline, a year).
            assertThat(millis).isLessThan(2000);
            assertThat(watch.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
        } finally {
            canceller.close();
        }
    }

    @Test
    void aWatchWakesACancellerThatWentIdle(TestDatabase database) throws Exception {
        DataSource plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        SessionCanceller canceller = new SessionCanceller(plain);
        try (Connection connection = plain.getConnection();
                Statement statement = connection.createStatement()) {
            Thread thread = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("bizlock-session-canceller") && !before.contains(t))
                    .findFirst()
                    .orElseThrow();
            // After about a second without watches the canceller parks until a watch wakes it.
            Await.until("the canceller parks", Duration.ofSeconds(30), () -> thread.getState() == Thread.State.WAITING);

            long started = System.nanoTime();
            SessionCanceller.Watch watch = canceller.watch(
                    new Session(connection, connectionId(statement)), started + TimeUnit.MILLISECONDS.toNanos(300));
            endedWithin5s(statement, watch);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // Ceiling: a canceller left asleep never kills, and the statement runs its whole 5 s.
            assertThat(millis).isLessThan(4000);
            assertThat(watch.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
        } finally {
            canceller.close();
        }
    }

    @Test
    void anInterruptEndsAWatchedStatementLongBeforeItsDeadline(TestDatabase database) throws Exception {
        DataSource plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        SessionCanceller canceller = new SessionCanceller(plain);
        ScheduledExecutorService interrupter = Executors.newSingleThreadScheduledExecutor();
        try (Connection connection = plain.getConnection();
                Statement statement = connection.createStatement()) {
            long started = System.nanoTime();
            SessionCanceller.Watch watch = canceller.watch(
                    new Session(connection, connectionId(statement)), started + TimeUnit.MINUTES.toNanos(1));
            Thread waiter = Thread.currentThread();
            interrupter.schedule(waiter::interrupt, 200, TimeUnit.MILLISECONDS);
            endedWithin5s(statement, watch);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(millis).isLessThan(4000);
            assertThat(watch.ending()).isEqualTo(SessionCanceller.Ending.INTERRUPT);
        } finally {
            interrupter.shutdownNow();
            Thread.interrupted(); // the interrupt was for the statement, not for the test
            canceller.close();
        }
    }

    @Test
    void aKillConnectionThatCannotBeOpenedHoldsUpNoWatchAndIsOpenedOnceTheDatabaseAnswers(TestDatabase database)
            throws Exception {
        DataSource plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        CountDownLatch answers = new CountDownLatch(1);
        DataSource silent = silentUntil(answers, plain);
        SessionCanceller canceller = new SessionCanceller(silent);
        try (Connection connection = plain.getConnection();
                Statement statement = connection.createStatement()) {
            Session session = new Session(connection, connectionId(statement));
            long started = System.nanoTime();
            SessionCanceller.Watch watch = canceller.watch(session, started + TimeUnit.MILLISECONDS.toNanos(200));
            try {
                // The kill cannot go out: the statement ends on its own, as a wait ends at its read timeout.
                statement.execute("SELECT SLEEP(1)");
            } finally {
                watch.close();
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // Ceiling, not a measurement: closing the watch waited for the kill connection's connect (here 20 s).
            assertThat(millis).as("the watched statement and its watch's close").isLessThan(10_000);
            assertThat(watch.ending()).isNull();

            answers.countDown();
            SessionCanceller.Watch next = canceller.watch(session, System.nanoTime());
            endedWithin5s(statement, next);
            assertThat(next.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
        } finally {
            answers.countDown();
            canceller.close();
        }
    }

    @Test
    void closingTheCancellerDoesNotWaitForAKillConnectionBeingOpened(TestDatabase database) throws Exception {
        DataSource plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        CountDownLatch answers = new CountDownLatch(1);
        OpenedConnections silent = new OpenedConnections(silentUntil(answers, plain));
        SessionCanceller canceller = new SessionCanceller(silent);
        try (Connection connection = plain.getConnection();
                Statement statement = connection.createStatement()) {
            canceller.watch(new Session(connection, connectionId(statement)), System.nanoTime());
            Await.until(
                    "the canceller opens its kill connection",
                    Duration.ofSeconds(10),
                    () -> Thread.getAllStackTraces().entrySet().stream()
                            .anyMatch(e -> e.getKey().getName().equals("bizlock-session-canceller")
                                    && Arrays.stream(e.getValue())
                                            .anyMatch(f -> f.getMethodName().equals("silentConnect"))));

            long started = System.nanoTime();
            canceller.close();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

            // Ceiling: closing waited for the connect (here up to 20 s), as an engine's shutdown would.
            assertThat(millis).as("closing the canceller").isLessThan(5_000);
            answers.countDown();
            Await.until("the connection opened late", Duration.ofSeconds(10), () -> silent.last != null);
            Await.until("and was closed", Duration.ofSeconds(10), () -> isClosed(silent.last));
        } finally {
            answers.countDown();
            canceller.close();
        }
    }

    /**
     * {@code plain}, behind a database that takes new connections but does not answer them until {@code answers}, as
     * a silent host does until the driver's connect timeout (MariaDB's 30 s; none by default with Connector/J); after
     * 20 s the connect fails.
     */
    private static DataSource silentUntil(CountDownLatch answers, DataSource plain) {
        return new DelegatingDataSource(plain) {
            @Override
            public Connection getConnection() throws SQLException {
                silentConnect(answers);
                return super.getConnection();
            }
        };
    }

    private static void silentConnect(CountDownLatch answers) throws SQLException {
        try {
            if (!answers.await(20, TimeUnit.SECONDS)) {
                throw new SQLException("connect timed out (test)", "08001");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted (test)", "08001", ex);
        }
    }

    private static boolean isClosed(Connection connection) {
        try {
            return connection.isClosed();
        } catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static long connectionId(Statement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery(SessionSql.CONNECTION_ID)) {
            row.next();
            return row.getLong(1);
        }
    }

    /** Runs a 5 s statement under the watch; a kill ends it early (a killed SLEEP returns 1, or fails with 1317). */
    private static void endedWithin5s(Statement statement, SessionCanceller.Watch watch) throws SQLException {
        try {
            statement.execute("SELECT SLEEP(5)");
        } catch (SQLException ex) {
            assertThat(ex.getErrorCode()).isEqualTo(ServerErrors.ER_QUERY_INTERRUPTED);
        } finally {
            watch.close();
        }
    }
}
