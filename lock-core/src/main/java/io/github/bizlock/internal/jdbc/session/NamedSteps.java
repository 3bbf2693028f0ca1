package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.TokenIssuer;
import io.github.bizlock.internal.jdbc.dialect.NamedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NAMED mode: {@code GET_LOCK} / {@code RELEASE_LOCK} on a session held from acquire to release.
 *
 * <p>Acquire is one round trip on the held connection: {@code GET_LOCK} (the server queues waiters and wakes one when
 * the lock frees). A fencing token costs one more, on the same connection in autocommit, when the holder asks for it.
 * Release is one: {@code RELEASE_LOCK}.
 * The server frees the lock when the session ends, so a crashed holder's lock frees as soon as the server notices its
 * connection closed. The watchdog's renewal is a heartbeat, {@code IS_USED_LOCK(name) = CONNECTION_ID()}, that reports
 * a lock lost when its session is gone. The locks' names on the server are {@link NamedLockNames}.
 *
 * <p>Waits are whole seconds on the server ({@code GET_LOCK(name, ceil(remaining))}); the session canceller ends them
 * with {@code KILL QUERY} at the exact deadline or on interrupt. MySQL reports the killed wait as error 1317, MariaDB as
 * a NULL result; any other NULL result is an error, not "busy".
 */
final class NamedSteps implements SessionSteps {

    private static final Logger log = LoggerFactory.getLogger(NamedSteps.class);

    private final NamedLockNames names;
    private final TokenIssuer tokenIssuer;

    NamedSteps(NamedLockNames names, TokenIssuer tokenIssuer) {
        this.names = names;
        this.tokenIssuer = tokenIssuer;
    }

    @Override
    public LockMode mode() {
        return LockMode.NAMED;
    }

    @Override
    public String lockStatement() {
        return "GET_LOCK";
    }

    /** Autocommit: tokens issued on the session commit on their own. */
    @Override
    public void prepare(Connection connection) throws SQLException {
        connection.setAutoCommit(true);
    }

    /** The name passed to {@code GET_LOCK} for a lock. */
    String serverLockName(LockKey key) {
        return names.of(key);
    }

    @Override
    public Outcome lock(Session session, LockKey key, long deadlineNanos, WatchedStatements watched)
            throws SQLException {
        long remainingNanos = deadlineNanos - System.nanoTime();
        long seconds = remainingNanos <= 0 ? 0 : SessionSupport.ceilSeconds(remainingNanos);
        PreparedStatement statement = session.prepare(NamedSql.GET_LOCK);
        statement.setString(1, serverLockName(key));
        statement.setLong(2, seconds);
        if (seconds == 0) {
            return result(session, statement, null);
        }
        Outcome outcome =
                watched.run(session, deadlineNanos, remainingNanos, watch -> result(session, statement, watch));
        if (outcome == Outcome.DEADLINE || outcome == Outcome.INTERRUPTED) {
            releaseAll(session);
        }
        return outcome;
    }

    private static Outcome result(Session session, PreparedStatement statement, SessionCanceller.@Nullable Watch watch)
            throws SQLException {
        try (ResultSet row = statement.executeQuery()) {
            row.next();
            long got = row.getLong(1);
            boolean nullResult = row.wasNull();
            if (watch != null) {
                watch.close();
            }
            session.requireSameConnection(row.getLong(2));
            if (nullResult) {
                SessionCanceller.Ending ending = watch != null ? watch.ending() : null;
                if (ending != null) {
                    // MariaDB: a GET_LOCK ended by KILL QUERY returns NULL.
                    return Outcome.endedBy(ending);
                }
                throw new IllegalStateException("GET_LOCK returned NULL on " + session
                        + ": the server failed to take the lock (out of memory, or the statement was killed by"
                        + " someone else)");
            }
            return got == 1 ? Outcome.ACQUIRED : Outcome.BUSY;
        }
    }

    /**
     * Tokens commit on their own on the held connection, in autocommit. The connection answering proves the lock is
     * still held: the server frees a named lock only with {@code RELEASE_LOCK} or the session's end.
     */
    @Override
    public long issueTokens(Session session, Grant grant, int count) throws SQLException {
        return session.whileHeldBy(
                grant, () -> tokenIssuer.issueOn(session.connection(), grant.key(), LockMode.NAMED, count));
    }

    /** {@code IS_USED_LOCK(name) = CONNECTION_ID()}: false once the session no longer holds the lock. */
    @Override
    public boolean stillHolds(Session session, Grant grant) throws SQLException {
        return isOne(session, NamedSql.HOLDS_LOCK, grant.key());
    }

    /** {@code RELEASE_LOCK}: anything but 1 leaves the session in doubt, and it is discarded. */
    @Override
    public boolean unlock(Session session, Grant grant) throws SQLException {
        return isOne(session, NamedSql.RELEASE_LOCK, grant.key());
    }

    /**
     * Frees every named lock of a session whose wait was ended by a kill: the kill may have ended {@code GET_LOCK} just
     * after it was granted, and the session must neither wait again nor go back to the pool holding the lock (it would
     * hold it, unknown to anyone, until it is closed). If this fails, the session is closed instead.
     */
    private static void releaseAll(Session session) throws SQLException {
        try (ResultSet row = session.prepare(NamedSql.RELEASE_ALL_LOCKS).executeQuery()) {
            if (row.next() && row.getInt(1) > 0) {
                log.debug("{}: a GET_LOCK ended by its deadline or an interrupt had been granted; released", session);
            }
        }
    }

    /** Runs a query on the lock's server name and tells whether it answered 1. */
    private boolean isOne(Session session, String sql, LockKey key) throws SQLException {
        PreparedStatement statement = session.prepare(sql);
        statement.setString(1, serverLockName(key));
        try (ResultSet row = statement.executeQuery()) {
            return row.next() && row.getInt(1) == 1;
        }
    }
}
