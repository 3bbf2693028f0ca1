package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 30 item 11: a kill connection opened again after a failover or a restart reaches a server where a session's
 * connection id may name another connection of the same account, perhaps another instance's waiting statement. A
 * kill reaches a statement only on the server that runs the session: the same id from the same client address.
 */
@ExtendWith(TestDatabaseExtension.class)
class KillConnectionTest {

    private static final int ER_QUERY_INTERRUPTED = 1317;

    @Test
    void aKillEndsTheSessionsStatementOnlyWhereItsIdAndClientAddressMatch(DataSource dataSource) throws Exception {
        KillConnection kills = new KillConnection(dataSource);
        try (Connection waiting = dataSource.getConnection()) {
            Session session = session(waiting);
            assertThat(session.client())
                    .as("the client address the server lists")
                    .isNotBlank();
            Session sameIdElsewhere = new Session(waiting, session.connectionId(), "192.0.2.1:40000");

            CompletableFuture<String> first = sleep(waiting, 2);
            awaitRunning(dataSource, session.connectionId());
            kills.killQuery(kills.open(), sameIdElsewhere);
            assertThat(first.get(30, TimeUnit.SECONDS))
                    .as("the id named another server's connection, which was left alone")
                    .isEqualTo(COMPLETED);

            CompletableFuture<String> second = sleep(waiting, 30);
            awaitRunning(dataSource, session.connectionId());
            kills.killQuery(kills.open(), session);
            assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(KILLED);
        } finally {
            kills.close();
        }
    }

    private static Session session(Connection connection) throws Exception {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(SessionSql.CONNECTION_ID_AND_CLIENT)) {
            row.next();
            return new Session(connection, row.getLong(1), row.getString(2));
        }
    }

    private static final String COMPLETED = "SLEEP ran to its end";
    private static final String KILLED = "SLEEP was killed";

    /** Runs {@code SLEEP}: MySQL answers 1 when it is killed, MariaDB fails the statement as interrupted. */
    private static CompletableFuture<String> sleep(Connection connection, int seconds) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try (Statement statement = connection.createStatement();
                            ResultSet row = statement.executeQuery("SELECT SLEEP(" + seconds + ")")) {
                        row.next();
                        return row.getLong(1) == 0 ? COMPLETED : KILLED;
                    } catch (SQLException ex) {
                        if (ex.getErrorCode() == ER_QUERY_INTERRUPTED) {
                            return KILLED;
                        }
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
    }

    /** Until the server lists the connection as running its SLEEP. */
    private static void awaitRunning(DataSource dataSource, long connectionId) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (Connection observer = dataSource.getConnection();
                Statement statement = observer.createStatement()) {
            while (System.nanoTime() - deadline < 0) {
                try (ResultSet row =
                        statement.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = "
                                + connectionId + " AND INFO LIKE 'SELECT SLEEP%'")) {
                    row.next();
                    if (row.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(10);
            }
        }
        throw new AssertionError("connection " + connectionId + " never ran its SLEEP");
    }
}
