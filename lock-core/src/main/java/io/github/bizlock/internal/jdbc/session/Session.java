package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.Grant;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One connection of a {@link SessionPool}, with the server's id for it. While it holds a lock, the lock's holder
 * thread releases through it and the watchdog's heartbeat checks it, each holding {@link #guard()}: a
 * {@link ReentrantLock}, not a monitor, since statements run under it, and a virtual thread blocked in a statement
 * inside {@code synchronized} pins its carrier thread on JDK 21.
 */
final class Session {

    /** Statements kept per session: few, and the driver would otherwise parse them on every lock. */
    private static final int MAX_STATEMENTS = 16;

    private static final Executor DIRECT = Runnable::run;

    /** Prepares a newly opened session connection, e.g. turns off autocommit. */
    @FunctionalInterface
    interface Setup {
        void prepare(Connection connection) throws SQLException;
    }

    /** A step on a held session, run under its guard. */
    @FunctionalInterface
    interface Step<T> {
        T run() throws SQLException;
    }

    private final Connection connection;
    private final long connectionId;
    private final @Nullable String client;
    private final ReentrantLock guard = new ReentrantLock();
    private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(16, 0.75f, true);
    private long lockWaitSeconds = -1;
    private long silentSeconds = -1;
    private boolean done;
    private boolean unanswered;
    private @Nullable Object holder;
    long idleSinceNanos;

    Session(Connection connection, long connectionId) {
        this(connection, connectionId, null);
    }

    /**
     * @param client the session's client address as its server lists it ({@code information_schema.PROCESSLIST.HOST},
     *     e.g. {@code 10.0.0.7:51234}), or {@code null} if not known: with the connection id it tells this session
     *     from a connection of the same id on another server, after a failover, or after a restart
     */
    Session(Connection connection, long connectionId, @Nullable String client) {
        this.connection = connection;
        this.connectionId = connectionId;
        this.client = client;
    }

    /** The session's client address as its server lists it, or {@code null} if not known. */
    @Nullable
    String client() {
        return client;
    }

    Connection connection() {
        return connection;
    }

    /**
     * A prepared statement for {@code sql} on this session's connection, kept for the next use: callers set every
     * parameter and close its result sets, never the statement (closing the connection closes it).
     */
    PreparedStatement prepare(String sql) throws SQLException {
        guard.lock();
        try {
            return prepared(sql);
        } finally {
            guard.unlock();
        }
    }

    private PreparedStatement prepared(String sql) throws SQLException {
        PreparedStatement statement = statements.get(sql);
        if (statement == null || statement.isClosed()) {
            statement = connection.prepareStatement(sql);
            statements.put(sql, statement);
            if (statements.size() > MAX_STATEMENTS) {
                var eldest = statements.entrySet().iterator();
                PreparedStatement evicted = eldest.next().getValue();
                eldest.remove();
                evicted.close();
            }
        }
        return statement;
    }

    /** Held while a statement of the lock runs on the session: by its holder's thread, or by the watchdog. */
    ReentrantLock guard() {
        return guard;
    }

    /** {@code CONNECTION_ID()} when the connection was opened; a different value later means another session. */
    long connectionId() {
        return connectionId;
    }

    /** The session's {@code innodb_lock_wait_timeout} as last set through it, or -1 if never set. */
    long lockWaitSeconds() {
        return lockWaitSeconds;
    }

    void lockWaitSeconds(long seconds) {
        this.lockWaitSeconds = seconds;
    }

    /** The session's {@code wait_timeout} as last set through it, or -1 if never set. */
    long silentSeconds() {
        return silentSeconds;
    }

    void silentSeconds(long seconds) {
        this.silentSeconds = seconds;
    }

    /**
     * Whether the session still belongs to this grant: not released, and not lent to another lock since (a heartbeat
     * collected before a release must not run on the session's next lock). Guarded by {@link #guard()}.
     */
    boolean heldBy(Object grant) {
        return !done && holder == grant;
    }

    /** Runs {@code step} under the session's guard if the session still holds the grant's lock. */
    <T> T whileHeldBy(Grant grant, Step<T> step) throws SQLException {
        guard.lock();
        try {
            if (!heldBy(grant)) {
                throw new IllegalStateException("Lock " + grant.key() + " was released; no token can be issued");
            }
            return step.run();
        } finally {
            guard.unlock();
        }
    }

    /** Fails if the server reports another connection id than this session's: the connection reconnected. */
    void requireSameConnection(long reportedConnectionId) {
        if (reportedConnectionId != connectionId) {
            throw new IllegalStateException("The bizlock session connection " + connectionId + " became connection "
                    + reportedConnectionId + ": it reconnected and lost its locks; do not set autoReconnect on the"
                    + " session DataSource");
        }
    }

    /** Records the grant the session now holds a lock for. Guarded by {@link #guard()}. */
    void holdFor(Object grant) {
        this.holder = grant;
    }

    /** Whether a heartbeat got no answer in time: the driver closed the connection, the server may still hold the lock. */
    boolean unanswered() {
        return unanswered;
    }

    /** Records that a heartbeat got no answer in time. Guarded by {@link #guard()}. */
    void markUnanswered() {
        this.unanswered = true;
    }

    /** Marks the lock held on this session released. Guarded by {@link #guard()}. */
    void markDone() {
        this.done = true;
    }

    /** Sets how long the session's next reads may block, in milliseconds from now ({@code 0}: without limit). */
    void readTimeout(long millis) throws SQLException {
        readTimeout(connection, millis);
    }

    /** Sets how long a connection's next reads may block, in milliseconds from now ({@code 0}: without limit). */
    static void readTimeout(Connection connection, long millis) throws SQLException {
        connection.setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE, Math.max(0, millis)));
    }

    void reset() {
        guard.lock();
        try {
            this.done = false;
            this.unanswered = false;
            this.holder = null;
        } finally {
            guard.unlock();
        }
    }

    @Override
    public String toString() {
        return "Session[connection id " + connectionId + "]";
    }
}
