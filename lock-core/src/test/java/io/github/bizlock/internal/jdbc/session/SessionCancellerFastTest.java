package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The {@code KILL QUERY} watcher's bookkeeping, each case in milliseconds: a watch closed in time kills nothing, a kill
 * of a session that is gone counts as done, and a kill connection that failed is opened again and closed with the
 * canceller. {@link SessionCancellerTest} has the races with the server.
 */
@ExtendWith(TestDatabaseExtension.class)
class SessionCancellerFastTest {

    private CountingDataSource kills;
    private SessionCanceller canceller;
    private Connection connection;

    @BeforeEach
    void open(TestDatabase database) throws SQLException {
        DataSource plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        kills = new CountingDataSource(plain);
        canceller = new SessionCanceller(kills);
        connection = plain.getConnection();
    }

    @AfterEach
    void close() throws SQLException {
        canceller.close();
        connection.close();
    }

    @Test
    void aStatementThatReturnsBeforeItsDeadlineIsNotKilled() throws Exception {
        try (Statement statement = connection.createStatement()) {
            SessionCanceller.Watch watch = canceller.watch(session(statement), in5s());
            try (ResultSet row = statement.executeQuery("SELECT 1")) {
                assertThat(row.next()).isTrue();
            }
            watch.close();

            assertThat(watch.ending()).isNull();
            assertThat(kills.opened.get()).isZero();
        }
    }

    @Test
    void aStatementPastItsDeadlineIsKilledAndTheKillConnectionClosesWithTheCanceller() throws Exception {
        try (Statement statement = connection.createStatement()) {
            SessionCanceller.Watch watch =
                    canceller.watch(session(statement), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
            long started = System.nanoTime();
            try (ResultSet row = statement.executeQuery("SELECT SLEEP(5)")) {
                // MariaDB ends a killed SLEEP with 1 instead of 0.
                row.next();
            } catch (SQLException killed) {
                assertThat(killed.getErrorCode()).isEqualTo(SessionSupport.ER_QUERY_INTERRUPTED);
            }
            watch.close();

            // Ceiling far below the 5 s sleep: the statement was ended, not waited out.
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                    .isLessThan(4000);
            assertThat(watch.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
            assertThat(kills.opened.get()).isEqualTo(1);
            assertThat(kills.last.getAutoCommit()).isTrue();
            canceller.close();
            assertThat(kills.last.isClosed()).isTrue();
        }
    }

    @Test
    void aKillOfASessionThatIsGoneCountsAsDone() throws Exception {
        SessionCanceller.Watch watch = canceller.watch(new Session(connection, Integer.MAX_VALUE), System.nanoTime());

        Await.until("the kill was sent", Duration.ofSeconds(10), () -> watch.ending() != null);
        watch.close();

        assertThat(watch.ending()).isEqualTo(SessionCanceller.Ending.DEADLINE);
        assertThat(kills.opened.get()).isEqualTo(1);
    }

    @Test
    void aKillConnectionThatFailedIsClosedAndOpenedAgain() throws Exception {
        kills.failNext = true;
        try (Statement statement = connection.createStatement()) {
            SessionCanceller.Watch watch = canceller.watch(session(statement), System.nanoTime());

            Await.until("the kill was sent again", Duration.ofSeconds(10), () -> watch.ending() != null);
            watch.close();

            assertThat(kills.opened.get()).isEqualTo(2);
            assertThat(kills.first.isClosed()).isTrue();
            assertThat(kills.last.isClosed()).isFalse();
        }
    }

    private static Session session(Statement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery(SessionSql.CONNECTION_ID)) {
            row.next();
            return new Session(statement.getConnection(), row.getLong(1));
        }
    }

    private static long in5s() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    }

    /** Counts the kill connections opened; the next can be handed out broken. */
    private static final class CountingDataSource extends DelegatingDataSource {

        final AtomicInteger opened = new AtomicInteger();
        volatile Connection first;
        volatile Connection last;
        volatile boolean failNext;

        CountingDataSource(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            opened.incrementAndGet();
            if (first == null) {
                first = connection;
            }
            last = connection;
            if (failNext) {
                failNext = false;
                // Handed out closed: its first use fails, as on a connection the network dropped.
                connection.close();
            }
            return connection;
        }
    }
}
