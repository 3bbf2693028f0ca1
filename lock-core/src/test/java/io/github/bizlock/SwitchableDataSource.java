package io.github.bizlock;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A data source that tests cut off from its database on demand, as an unreachable database looks to a connection
 * pool: {@link #block()} makes {@code getConnection} wait, like a pool that cannot open a connection, until
 * {@link #restore()} or its connection timeout (30 s, Hikari's default), then fail; {@link #fail()} makes it fail at
 * once, like a pool that was closed. Connections handed out before stay usable.
 */
public final class SwitchableDataSource extends DelegatingDataSource {

    /** Hikari's default {@code connectionTimeout}, which an application's pool usually keeps. */
    public static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(30);

    private enum State {
        REACHABLE,
        BLOCKED,
        FAILING
    }

    private volatile State state = State.REACHABLE;
    private final AtomicInteger refused = new AtomicInteger();

    public SwitchableDataSource(DataSource target) {
        super(target);
    }

    /** {@code getConnection} waits until {@link #restore()}, for at most {@link #CONNECTION_TIMEOUT}, then fails. */
    public void block() {
        state = State.BLOCKED;
    }

    /** {@code getConnection} fails at once. */
    public void fail() {
        state = State.FAILING;
    }

    /** The database answers again. */
    public void restore() {
        state = State.REACHABLE;
    }

    /** How many {@code getConnection} calls failed because the database was cut off. */
    public int refused() {
        return refused.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        awaitReachable();
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        awaitReachable();
        return super.getConnection(username, password);
    }

    private void awaitReachable() throws SQLException {
        long deadline = System.nanoTime() + CONNECTION_TIMEOUT.toNanos();
        while (state == State.BLOCKED && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new SQLTransientConnectionException("Interrupted while waiting for a connection (test)", ex);
            }
        }
        if (state != State.REACHABLE) {
            refused.incrementAndGet();
            throw new SQLTransientConnectionException(
                    "The database is unreachable (test): connection is not available, request timed out after "
                            + (state == State.BLOCKED ? CONNECTION_TIMEOUT.toMillis() : 0) + "ms");
        }
    }
}
