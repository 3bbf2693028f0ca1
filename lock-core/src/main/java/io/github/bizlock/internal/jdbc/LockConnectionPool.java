package io.github.bizlock.internal.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.AbstractDataSource;

/**
 * A small pool of bizlock's own for LEASE writes, renewals, releases and fencing tokens, over a DataSource of plain
 * connections to the lock database: for applications whose pool bizlock cannot copy (no HikariCP), so that callers
 * holding every connection of the application's pool cannot delay lock writes or the watchdog.
 *
 * <p>Deliberately simple: at most {@code maxSize} connections, the most recently returned reused first; one idle for
 * longer than {@link #VALIDATE_AFTER} is checked ({@link Connection#isValid}) before it is lent, one closed by its
 * driver (after a read timeout or a network failure) is dropped when returned, one older than {@link #MAX_LIFETIME}
 * is replaced (a failover that moves the database's address reaches new connections only). A caller waits for a free
 * connection at most {@link #CONNECTION_TIMEOUT}, and less when interrupted, as bizlock's deadlines do.
 */
public final class LockConnectionPool extends AbstractDataSource implements AutoCloseable {

    /** How long an idle connection is trusted without a check, as HikariCP's bypass window. */
    static final Duration VALIDATE_AFTER = Duration.ofMillis(500);

    /** Oldest a connection gets before it is replaced, as HikariCP's default. */
    static final Duration MAX_LIFETIME = Duration.ofMinutes(30);

    /** Longest wait for a free connection, as HikariCP's default. */
    static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(30);

    private static final int VALID_CHECK_SECONDS = 2;

    private record Idle(Connection connection, long openedNanos, long returnedNanos) {}

    private final DataSource plain;
    private final int maxSize;
    private final long validateAfterNanos;
    private final Semaphore free;
    private final Deque<Idle> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    /**
     * @param plain opens a new connection to the lock database per call (no pool of its own)
     * @param maxSize most connections open at once
     */
    public LockConnectionPool(DataSource plain, int maxSize) {
        this(plain, maxSize, VALIDATE_AFTER);
    }

    LockConnectionPool(DataSource plain, int maxSize, Duration validateAfter) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("A lock connection pool needs at least 1 connection, was " + maxSize);
        }
        this.plain = plain;
        this.maxSize = maxSize;
        this.validateAfterNanos = validateAfter.toNanos();
        this.free = new Semaphore(maxSize, true);
    }

    @Override
    public Connection getConnection() throws SQLException {
        try {
            if (!free.tryAcquire(CONNECTION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new SQLTransientConnectionException(this + ": all " + maxSize + " connections stayed busy for "
                        + CONNECTION_TIMEOUT.toSeconds() + " s");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new SQLTransientConnectionException(this + ": interrupted while waiting for a connection", ex);
        }
        boolean lent = false;
        try {
            Connection connection = lend();
            lent = true;
            return connection;
        } finally {
            if (!lent) {
                free.release();
            }
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLException("bizlock's lock connections are opened with the lock DataSource's credentials");
    }

    private Connection lend() throws SQLException {
        if (closed) {
            throw new SQLException(this + " is closed");
        }
        for (Idle candidate = idle.pollFirst(); candidate != null; candidate = idle.pollFirst()) {
            long now = System.nanoTime();
            boolean fresh = now - candidate.returnedNanos() < validateAfterNanos;
            if (now - candidate.openedNanos() < MAX_LIFETIME.toNanos() && (fresh || isValid(candidate.connection()))) {
                return handle(candidate.connection(), candidate.openedNanos());
            }
            closeQuietly(candidate.connection());
        }
        return handle(plain.getConnection(), System.nanoTime());
    }

    /** Gives a connection back: kept for the next caller unless it is broken, too old, or the pool closed. */
    private void giveBack(Connection connection, long openedNanos) {
        try {
            if (closed || connection.isClosed() || System.nanoTime() - openedNanos >= MAX_LIFETIME.toNanos()) {
                closeQuietly(connection);
                return;
            }
            if (!connection.getAutoCommit()) {
                // Nothing of a caller's unfinished transaction may reach the next caller.
                connection.rollback();
                connection.setAutoCommit(true);
            }
            idle.addFirst(new Idle(connection, openedNanos, System.nanoTime()));
            if (closed) {
                closeIdle(); // closed while this one was being given back
            }
        } catch (SQLException | RuntimeException ex) {
            closeQuietly(connection);
        } finally {
            free.release();
        }
    }

    private static boolean isValid(Connection connection) {
        try {
            return connection.isValid(VALID_CHECK_SECONDS);
        } catch (SQLException ex) {
            return false;
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException ex) {
            // A connection that fails to close is gone either way.
        }
    }

    /** The connection as lent: {@code close()} gives it back, once; nothing else runs on it after that. */
    private Connection handle(Connection connection, long openedNanos) {
        InvocationHandler lent = new InvocationHandler() {
            private boolean returned;

            @Override
            public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
                switch (method.getName()) {
                    case "close" -> {
                        if (!returned) {
                            returned = true;
                            giveBack(connection, openedNanos);
                        }
                        return null;
                    }
                    case "isClosed" -> {
                        return returned || connection.isClosed();
                    }
                    case "toString" -> {
                        return "bizlock lock connection " + connection;
                    }
                    case "equals" -> {
                        return args != null && proxy == args[0];
                    }
                    case "hashCode" -> {
                        return System.identityHashCode(proxy);
                    }
                    default -> {
                        if (returned) {
                            throw new SQLException("This bizlock lock connection was closed (given back to its pool)");
                        }
                    }
                }
                try {
                    return method.invoke(connection, args);
                } catch (InvocationTargetException ex) {
                    throw ex.getCause();
                }
            }
        };
        return (Connection) Proxy.newProxyInstance(
                LockConnectionPool.class.getClassLoader(), new Class<?>[] {Connection.class}, lent);
    }

    /** Closes the idle connections; those lent out are closed when they are given back. */
    @Override
    public void close() {
        closed = true;
        closeIdle();
    }

    private void closeIdle() {
        for (Idle candidate = idle.pollFirst(); candidate != null; candidate = idle.pollFirst()) {
            closeQuietly(candidate.connection());
        }
    }

    @Override
    public String toString() {
        return "bizlock lock connection pool (" + maxSize + ") of " + plain;
    }
}
