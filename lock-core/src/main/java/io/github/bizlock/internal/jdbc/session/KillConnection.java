package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.SessionSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The {@link SessionCanceller}'s own connection, which sends {@code KILL QUERY}: opened on demand, closed after a kill
 * that failed (the next kill opens it again), and closed with the canceller.
 */
final class KillConnection {

    private final DataSource dataSource;
    /** A lock, not a monitor: kills run statements under it (a virtual thread would pin its carrier in a monitor). */
    private final ReentrantLock lock = new ReentrantLock();

    private @Nullable Connection control;
    private boolean closed;

    KillConnection(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * The connection, opened if there is none. Call it under no watch's guard: opening may wait for the driver's connect
     * timeout, which is why it runs outside this class's lock too (closing the canceller does not wait for it).
     *
     * @throws SQLException if it could not be opened, or the canceller was closed meanwhile
     */
    Connection open() throws SQLException {
        lock.lock();
        try {
            if (control != null) {
                return control;
            }
        } finally {
            lock.unlock();
        }
        Connection opened = dataSource.getConnection();
        try {
            opened.setAutoCommit(true);
            // A kill that gets no answer must not hold up the watch, and the thread closing it, for long.
            opened.setNetworkTimeout(Runnable::run, (int) LockEngine.RELEASE_TIMEOUT.toMillis());
        } catch (SQLException ex) {
            SessionPool.closeQuietly(opened);
            throw ex;
        }
        lock.lock();
        try {
            if (closed) {
                SessionPool.closeQuietly(opened);
                throw new SQLException("The bizlock session canceller is closed");
            }
            if (control == null) {
                control = opened;
            } else {
                SessionPool.closeQuietly(opened); // another kill opened one meanwhile
            }
            return control;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the statement of the session, through {@code connection} from {@link #open}, if that connection's server
     * runs it: a kill connection opened again after a failover or a restart reaches a server where the session's id
     * may name another connection, of the same account, perhaps another instance's. The session's wait then ends at
     * its read timeout.
     */
    void killQuery(Connection connection, Session session) throws SQLException {
        lock.lock();
        try (Statement statement = connection.createStatement()) {
            if (!runs(connection, session)) {
                return;
            }
            statement.execute(SessionSql.killQuery(session.connectionId()));
        } catch (SQLException ex) {
            if (ex.getErrorCode() == ServerErrors.ER_NO_SUCH_THREAD) {
                return; // the session ended anyway
            }
            if (control == connection) {
                SessionPool.closeQuietly(connection);
                control = null;
            }
            throw ex;
        } finally {
            lock.unlock();
        }
    }

    private static boolean runs(Connection connection, Session session) throws SQLException {
        String client = session.client();
        if (client == null) {
            return true; // not known: the id alone
        }
        try (PreparedStatement check = connection.prepareStatement(SessionSql.RUNS_SESSION)) {
            check.setLong(1, session.connectionId());
            check.setString(2, client);
            try (ResultSet row = check.executeQuery()) {
                return row.next() && row.getLong(1) > 0;
            }
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            if (control != null) {
                SessionPool.closeQuietly(control);
                control = null;
            }
        } finally {
            lock.unlock();
        }
    }
}
