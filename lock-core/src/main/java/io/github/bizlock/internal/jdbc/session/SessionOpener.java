package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * Opens the {@link SessionPool}'s connections on threads of its own, so that a database that accepts a connection and
 * then says nothing cannot hold the borrower past its deadline.
 */
final class SessionOpener {

    private final DataSource dataSource;
    private final Session.Setup setup;

    private final ExecutorService threads = Executors.newCachedThreadPool(task -> {
        // No inherited thread-locals: the first caller's would stay with a thread that serves every later one.
        Thread thread = new Thread(null, task, "bizlock-session-open", 0, false);
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param dataSource the dedicated data source
     * @param setup prepares each new connection
     */
    SessionOpener(DataSource dataSource, Session.Setup setup) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.setup = setup;
    }

    /**
     * Starts opening a session.
     *
     * @throws java.util.concurrent.RejectedExecutionException if {@link #shutdown()} ran
     */
    CompletableFuture<Session> start() {
        return CompletableFuture.supplyAsync(this::open, threads);
    }

    private Session open() {
        Connection connection = null;
        try {
            connection = dataSource.getConnection();
            // The driver's connect timeout ends at the handshake: the statements that follow must not wait for ever
            // on a network that went silent after it.
            Session.readTimeout(connection, SessionPool.STATEMENT_TIMEOUT.toMillis());
            setup.prepare(connection);
            try (Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery(SessionSql.CONNECTION_ID_AND_CLIENT)) {
                row.next();
                return new Session(connection, row.getLong(1), row.getString(2));
            }
        } catch (SQLException ex) {
            if (connection != null) {
                SessionPool.closeQuietly(connection);
            }
            throw new DataAccessResourceFailureException(
                    "bizlock could not open a session connection for a ROW/NAMED lock: " + ex.getMessage(), ex);
        }
    }

    /** Takes no more opens; those under way go on. */
    void shutdown() {
        threads.shutdown();
    }
}
