package io.github.bizlock.internal.jdbc.named;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.session.Session;
import io.github.bizlock.internal.jdbc.session.SessionCanceller;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import io.github.bizlock.internal.jdbc.session.SessionSupport;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.sql.DataSource;
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
 * a lock lost when its session is gone.
 *
 * <p>Lock names are the lowercase hex SHA-256 of schema, table, name and key joined by NUL: 64 characters, which MySQL
 * (at most 64, case-insensitive) and MariaDB (case-sensitive) treat alike, so {@code Order} and {@code order} stay
 * distinct locks on both. Named locks belong to the server, not to a schema: the schema (read once, lower-cased, so
 * that a server that ignores case never splits one schema in two) and the table keep applications on one server apart.
 * With a secret the hash is an HMAC-SHA256 keyed by it, so that an account that knows a key (an e-mail address, an
 * order id) cannot compute its lock's name to probe it with {@code IS_USED_LOCK} or block it with {@code GET_LOCK}.
 *
 * <p>Waits are whole seconds on the server ({@code GET_LOCK(name, ceil(remaining))}); the session pool ends them with
 * {@code KILL QUERY} at the exact deadline or on interrupt. MySQL reports the killed wait as error 1317, MariaDB as a
 * NULL result; any other NULL result is an error, not "busy".
 */
public final class NamedLockEngine extends SessionLockEngine {

    private static final Logger log = LoggerFactory.getLogger(NamedLockEngine.class);

    private static final String HMAC = "HmacSHA256";

    /** {@code schema \0 table \0}, the start of every hashed lock name. */
    private final byte[] scope;

    private final @Nullable SecretKeySpec secret;

    /**
     * Without a secret.
     *
     * @param dao the lock tables' DAO, for the schema, the table name and fencing tokens
     * @param sessionDataSource a dedicated data source for held connections, not the application's pool
     * @param maxSessions how many NAMED locks this process may hold at once
     * @param owner this process's instance id
     * @param heartbeat how often a held session is checked, at most
     */
    public NamedLockEngine(
            BizLockDao dao, DataSource sessionDataSource, int maxSessions, String owner, Duration heartbeat) {
        this(dao, sessionDataSource, maxSessions, owner, heartbeat, null);
    }

    /**
     * Reads the lock tables' schema once, on the DAO's DataSource.
     *
     * @param secret what the lock names are keyed by, the same for every instance of the application; {@code null}
     *     for none
     */
    public NamedLockEngine(
            BizLockDao dao,
            DataSource sessionDataSource,
            int maxSessions,
            String owner,
            Duration heartbeat,
            @Nullable String secret) {
        super(
                LockMode.NAMED,
                dao,
                sessionDataSource,
                maxSessions,
                owner,
                heartbeat,
                connection -> connection.setAutoCommit(true),
                "GET_LOCK");
        if (secret != null && secret.isBlank()) {
            throw new IllegalArgumentException("The NAMED lock secret must not be blank; give every instance of the"
                    + " application the same random text, or none");
        }
        this.scope = (dao.schema().schemaName() + '\0' + dao.table() + '\0')
                .toLowerCase(Locale.ROOT)
                .getBytes(StandardCharsets.UTF_8);
        this.secret = secret != null ? new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), HMAC) : null;
    }

    /** With the {@linkplain #DEFAULT_HEARTBEAT default heartbeat}. */
    public NamedLockEngine(BizLockDao dao, DataSource sessionDataSource, int maxSessions, String owner) {
        this(dao, sessionDataSource, maxSessions, owner, DEFAULT_HEARTBEAT);
    }

    /** The name passed to {@code GET_LOCK} for a lock. */
    public String serverLockName(LockKey key) {
        byte[] lock = (key.name() + '\0' + key.key()).getBytes(StandardCharsets.UTF_8);
        try {
            byte[] hash;
            if (secret == null) {
                MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
                sha256.update(scope);
                hash = sha256.digest(lock);
            } else {
                Mac hmac = Mac.getInstance(HMAC);
                hmac.init(secret);
                hmac.update(scope);
                hash = hmac.doFinal(lock);
            }
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException | InvalidKeyException ex) {
            throw new IllegalStateException("SHA-256 or " + HMAC + " is missing from this JVM", ex);
        }
    }

    @Override
    protected Outcome lock(Session session, LockKey key, long deadlineNanos) throws SQLException {
        long remainingNanos = deadlineNanos - System.nanoTime();
        long seconds = remainingNanos <= 0 ? 0 : SessionSupport.ceilSeconds(remainingNanos);
        PreparedStatement statement = session.prepare(NamedSql.GET_LOCK);
        statement.setString(1, serverLockName(key));
        statement.setLong(2, seconds);
        if (seconds == 0) {
            return result(session, statement, null);
        }
        Outcome outcome = watched(session, deadlineNanos, remainingNanos, watch -> result(session, statement, watch));
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
            requireSameConnection(session, row.getLong(2));
            if (nullResult) {
                SessionCanceller.Ending ending = watch != null ? watch.ending() : null;
                if (ending != null) {
                    // MariaDB: a GET_LOCK ended by KILL QUERY returns NULL.
                    return ended(ending);
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
    protected long issueTokens(Session session, Grant grant, int count) throws SQLException {
        return onHeldSession(
                session, grant, () -> tokenIssuer.issueOn(session.connection(), grant.key(), LockMode.NAMED, count));
    }

    /** {@code IS_USED_LOCK(name) = CONNECTION_ID()}: false once the session no longer holds the lock. */
    @Override
    protected boolean stillHolds(Session session, Grant grant) throws SQLException {
        return isOne(session, NamedSql.HOLDS_LOCK, grant.key());
    }

    /** {@code RELEASE_LOCK}: anything but 1 leaves the session in doubt, and it is discarded. */
    @Override
    protected boolean unlock(Session session, Grant grant) throws SQLException {
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
