package io.github.bizlock.jdbc.named;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockMode;
import io.github.bizlock.core.Grant;
import io.github.bizlock.core.LockEngine;
import io.github.bizlock.core.LockKey;
import io.github.bizlock.jdbc.BizLockDao;
import io.github.bizlock.jdbc.dialect.Dialect;
import io.github.bizlock.jdbc.session.Session;
import io.github.bizlock.jdbc.session.SessionPool;
import io.github.bizlock.jdbc.session.SessionSupport;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * NAMED mode: {@code GET_LOCK} / {@code RELEASE_LOCK} on a session held from acquire to release.
 *
 * <p>Acquire is two round trips on the held connection: {@code GET_LOCK} (the server queues waiters and wakes one when
 * the lock frees), then the fencing token, committed on its own in autocommit. Release is one: {@code RELEASE_LOCK}.
 * The server frees the lock when the session ends, so a crashed holder's lock frees as soon as the server notices its
 * connection closed. The watchdog's renewal is a heartbeat, {@code IS_USED_LOCK(name) = CONNECTION_ID()}, that reports
 * a lock lost when its session is gone.
 *
 * <p>Lock names are the lowercase hex SHA-256 of table, name and key joined by NUL: 64 characters, which MySQL (at most
 * 64, case-insensitive) and MariaDB (case-sensitive) treat alike, so {@code Order} and {@code order} stay distinct
 * locks on both. The table name keeps applications that use different lock tables on one server apart.
 *
 * <p>Waits are whole seconds on the server ({@code GET_LOCK(name, ceil(remaining))}); the session pool ends them with
 * {@code KILL QUERY} at the exact deadline or on interrupt. MySQL reports the killed wait as error 1317, MariaDB as a
 * NULL result; any other NULL result is an error, not "busy".
 */
public final class NamedLockEngine implements LockEngine, AutoCloseable {

    /** The setting named when sessions run out. */
    public static final String MAX_SESSIONS_PROPERTY = "bizlock.session.max-connections";

    private final BizLockDao dao;
    private final Dialect dialect;
    private final String table;
    private final String owner;
    private final SessionPool sessions;

    /**
     * @param dao the lock tables' DAO, for the dialect and table name
     * @param sessionDataSource a dedicated data source for held connections, not the application's pool
     * @param maxSessions how many NAMED locks this process may hold at once
     * @param owner this process's instance id
     */
    public NamedLockEngine(BizLockDao dao, DataSource sessionDataSource, int maxSessions, String owner) {
        this.dao = dao;
        this.dialect = dao.dialect();
        this.table = dao.table();
        this.owner = owner;
        this.sessions = new SessionPool(
                sessionDataSource,
                dialect,
                maxSessions,
                MAX_SESSIONS_PROPERTY,
                connection -> connection.setAutoCommit(true));
    }

    @Override
    public LockMode mode() {
        return LockMode.NAMED;
    }

    @Override
    public boolean heldBySession() {
        return true;
    }

    /** The session pool, for metrics and tests. */
    public SessionPool sessions() {
        return sessions;
    }

    /** The name passed to {@code GET_LOCK} for a lock. */
    public String serverLockName(LockKey key) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            byte[] hash =
                    sha256.digest((table + '\0' + key.name() + '\0' + key.key()).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }

    @Override
    public @Nullable Grant acquire(LockKey key, Duration lease, long deadlineNanos) throws InterruptedException {
        Session session = borrow(key);
        String name = serverLockName(key);
        boolean keep = false;
        try {
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("Interrupted while waiting for lock " + key);
                }
                long remaining = deadlineNanos - System.nanoTime();
                Outcome outcome = getLock(session, name, remaining, deadlineNanos);
                switch (outcome) {
                    case ACQUIRED -> {
                        long token = SessionSupport.issueToken(session.connection(), dialect, key, LockMode.NAMED)
                                .orElseThrow(dao::missingFloor);
                        keep = true;
                        // The session answered just now: the heartbeat lease counts from here.
                        return new Grant(key, owner, token, lease, System.nanoTime(), session);
                    }
                    case BUSY -> {
                        if (deadlineNanos - System.nanoTime() <= 0) {
                            return null;
                        }
                    }
                    case DEADLINE -> {
                        return null;
                    }
                    case INTERRUPTED -> {
                        Thread.interrupted();
                        throw new InterruptedException("Interrupted while waiting for lock " + key);
                    }
                }
            }
        } catch (SQLException ex) {
            sessions.discard(session);
            keep = true;
            throw SessionSupport.translate("GET_LOCK for " + key, ex);
        } catch (RuntimeException | Error ex) {
            // The session may hold the server lock (a failed token); closing it frees the lock.
            sessions.discard(session);
            keep = true;
            throw ex;
        } finally {
            if (!keep) {
                sessions.giveBack(session);
            }
        }
    }

    private enum Outcome {
        ACQUIRED,
        BUSY,
        DEADLINE,
        INTERRUPTED
    }

    private Outcome getLock(Session session, String name, long remainingNanos, long deadlineNanos) throws SQLException {
        long seconds = remainingNanos <= 0 ? 0 : SessionSupport.ceilSeconds(remainingNanos);
        try (PreparedStatement statement = session.connection().prepareStatement(dialect.getLock())) {
            statement.setString(1, name);
            statement.setLong(2, seconds);
            if (seconds == 0) {
                return result(session, statement, null);
            }
            SessionPool.readTimeout(session, SessionSupport.waitReadTimeoutMillis(remainingNanos));
            SessionPool.Watch watch = sessions.watch(session, deadlineNanos);
            try {
                return result(session, statement, watch);
            } catch (SQLException ex) {
                watch.close();
                SessionPool.Ending ending = watch.ending();
                if (ending != null && ex.getErrorCode() == SessionSupport.ER_QUERY_INTERRUPTED) {
                    return ending == SessionPool.Ending.DEADLINE ? Outcome.DEADLINE : Outcome.INTERRUPTED;
                }
                throw ex;
            } finally {
                watch.close();
                SessionPool.readTimeout(session, SessionPool.STATEMENT_TIMEOUT.toMillis());
            }
        }
    }

    private static Outcome result(Session session, PreparedStatement statement, SessionPool.@Nullable Watch watch)
            throws SQLException {
        try (ResultSet row = statement.executeQuery()) {
            row.next();
            long got = row.getLong(1);
            boolean nullResult = row.wasNull();
            if (watch != null) {
                watch.close();
            }
            if (row.getLong(2) != session.connectionId()) {
                throw new IllegalStateException("The bizlock session connection " + session.connectionId()
                        + " became connection " + row.getLong(2) + ": it reconnected and lost its locks; do not"
                        + " set autoReconnect on the session DataSource");
            }
            if (nullResult) {
                SessionPool.Ending ending = watch != null ? watch.ending() : null;
                if (ending != null) {
                    // MariaDB: a GET_LOCK ended by KILL QUERY returns NULL.
                    return ending == SessionPool.Ending.DEADLINE ? Outcome.DEADLINE : Outcome.INTERRUPTED;
                }
                throw new IllegalStateException("GET_LOCK returned NULL on " + session
                        + ": the server failed to take the lock (out of memory, or the statement was killed by"
                        + " someone else)");
            }
            return got == 1 ? Outcome.ACQUIRED : Outcome.BUSY;
        }
    }

    /**
     * Heartbeat: asks each grant's session whether it still holds its lock.
     *
     * @return the grants whose session is gone or no longer holds the lock
     */
    @Override
    public Set<Grant> renew(List<Grant> grants) {
        Set<Grant> gone = new HashSet<>();
        for (Grant grant : grants) {
            Session session = session(grant);
            synchronized (session) {
                if (session.isDone()) {
                    continue;
                }
                try (PreparedStatement statement = session.connection().prepareStatement(dialect.holdsLock())) {
                    statement.setString(1, serverLockName(grant.key()));
                    try (ResultSet row = statement.executeQuery()) {
                        if (!row.next() || row.getInt(1) != 1) {
                            gone.add(grant);
                        }
                    }
                } catch (SQLException ex) {
                    gone.add(grant);
                }
            }
        }
        return gone;
    }

    @Override
    public boolean release(Grant grant) {
        Session session = session(grant);
        synchronized (session) {
            session.markDone();
            try (PreparedStatement statement = session.connection().prepareStatement(dialect.releaseLock())) {
                statement.setString(1, serverLockName(grant.key()));
                try (ResultSet row = statement.executeQuery()) {
                    boolean released = row.next() && row.getInt(1) == 1;
                    if (released) {
                        sessions.giveBack(session);
                    } else {
                        sessions.discard(session);
                    }
                    return released;
                }
            } catch (SQLException ex) {
                sessions.discard(session);
                return false;
            }
        }
    }

    @Override
    public void close() {
        sessions.close();
    }

    private Session borrow(LockKey key) {
        try {
            return sessions.borrow();
        } catch (DataAccessException ex) {
            throw new LockAcquisitionException(key.name(), key.key(), ex.getMessage(), ex);
        }
    }

    private static Session session(Grant grant) {
        if (!(grant.resource() instanceof Session session)) {
            throw new IllegalArgumentException("Grant " + grant + " was not made by a session engine");
        }
        return session;
    }
}
