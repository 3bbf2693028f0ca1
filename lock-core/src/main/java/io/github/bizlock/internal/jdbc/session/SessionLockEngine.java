package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.InterruptStatus;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.internal.jdbc.TokenIssuer;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The ROW and NAMED engines: a lock held on a {@link Session} borrowed from a {@link SessionPool} from acquire to
 * release. The mode's {@link SessionSteps} say how a session takes, checks and releases a lock; the engine hands the
 * rest to one class per duty: {@link SessionAcquirer} (the acquire loop), {@link SessionHeartbeat},
 * {@link SessionReleases}, and the {@link SessionCanceller} that ends waits on time.
 */
public final class SessionLockEngine implements LockEngine, AutoCloseable {

    /** The setting named when sessions run out. */
    private static final String MAX_SESSIONS_PROPERTY = "bizlock.session.max-connections";

    /** How often a held session is checked unless its lease asks for more often: a killed session is noticed by then. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);

    private final SessionSteps steps;
    private final Dialect dialect;
    private final Duration heartbeat;
    private final SessionPool sessions;
    private final SessionCanceller canceller;
    private final SessionAcquirer acquirer;
    private final SessionHeartbeat heartbeats;
    private final SessionReleases releases;

    /**
     * @param dialect the server's, for whether the mode is exact on its deployment
     * @param sessionDataSource a dedicated data source for held connections, not the application's pool
     * @param maxSessions how many locks of this mode this process may hold at once
     * @param owner this process's instance id
     * @param heartbeat how often a held session is checked, at most (a third of the watchdog's lease if that is
     *     shorter)
     * @param steps the mode's statements
     */
    SessionLockEngine(
            Dialect dialect,
            DataSource sessionDataSource,
            int maxSessions,
            String owner,
            Duration heartbeat,
            SessionSteps steps) {
        if (heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("bizlock.session.heartbeat must be positive, was " + heartbeat);
        }
        this.steps = steps;
        this.dialect = dialect;
        this.heartbeat = heartbeat;
        this.sessions = new SessionPool(sessionDataSource, maxSessions, MAX_SESSIONS_PROPERTY, steps::prepare);
        this.canceller = new SessionCanceller(sessionDataSource);
        this.acquirer = new SessionAcquirer(sessions, steps, new WatchedStatements(canceller), owner);
        this.heartbeats = new SessionHeartbeat(steps);
        this.releases = new SessionReleases(sessions, steps);
    }

    /**
     * The ROW engine: {@code SELECT ... FOR UPDATE} in a transaction kept open on the session ({@link RowSteps}).
     *
     * @param dialect the server's: its ROW statements, and whether ROW is exact on its deployment
     * @param tokens issues fencing tokens through the lock data source
     * @param sessionDataSource a dedicated data source for held connections, not the application's pool
     * @param maxSessions how many ROW locks this process may hold at once
     * @param owner this process's instance id
     * @param heartbeat how often a held session is checked, at most
     */
    public static SessionLockEngine row(
            Dialect dialect,
            TokenIssuer tokens,
            DataSource sessionDataSource,
            int maxSessions,
            String owner,
            Duration heartbeat) {
        return new SessionLockEngine(
                dialect, sessionDataSource, maxSessions, owner, heartbeat, new RowSteps(dialect, tokens));
    }

    /**
     * The engine of ROW read locks: {@code SELECT ... FOR SHARE} ({@code LOCK IN SHARE MODE} on MariaDB) on the row
     * the ROW engine locks {@code FOR UPDATE}, in a transaction kept open on a session of its own; parameters as for
     * {@link #row(Dialect, TokenIssuer, DataSource, int, String, Duration)}. Its grants' fencing token is the last one
     * issued to a write lock of the key.
     */
    public static SessionLockEngine rowReader(
            Dialect dialect,
            TokenIssuer tokens,
            DataSource sessionDataSource,
            int maxSessions,
            String owner,
            Duration heartbeat) {
        return new SessionLockEngine(
                dialect, sessionDataSource, maxSessions, owner, heartbeat, RowSteps.reading(dialect, tokens));
    }

    /** The ROW engine with the {@linkplain #DEFAULT_HEARTBEAT default heartbeat}. */
    public static SessionLockEngine row(
            Dialect dialect, TokenIssuer tokens, DataSource sessionDataSource, int maxSessions, String owner) {
        return row(dialect, tokens, sessionDataSource, maxSessions, owner, DEFAULT_HEARTBEAT);
    }

    /**
     * The NAMED engine: {@code GET_LOCK} on the session ({@link NamedSteps}). Reads the lock tables' schema once, on
     * the lock DataSource, for the lock names.
     *
     * @param dialect the server's, for whether NAMED is exact on its deployment
     * @param tokens issues fencing tokens through the lock data source
     * @param schema the lock tables' schema and table name, which scope the lock names on the server
     * @param sessionDataSource a dedicated data source for held connections, not the application's pool
     * @param maxSessions how many NAMED locks this process may hold at once
     * @param owner this process's instance id
     * @param heartbeat how often a held session is checked, at most
     * @param secret what the lock names are keyed by, the same for every instance of the application; {@code null}
     *     for none
     */
    public static SessionLockEngine named(
            Dialect dialect,
            TokenIssuer tokens,
            LockSchema schema,
            DataSource sessionDataSource,
            int maxSessions,
            String owner,
            Duration heartbeat,
            @Nullable String secret) {
        NamedSteps steps = new NamedSteps(NamedLockNames.of(schema, secret), tokens);
        return new SessionLockEngine(dialect, sessionDataSource, maxSessions, owner, heartbeat, steps);
    }

    /** The NAMED engine without a secret. */
    public static SessionLockEngine named(
            Dialect dialect,
            TokenIssuer tokens,
            LockSchema schema,
            DataSource sessionDataSource,
            int maxSessions,
            String owner,
            Duration heartbeat) {
        return named(dialect, tokens, schema, sessionDataSource, maxSessions, owner, heartbeat, null);
    }

    /** The NAMED engine without a secret, with the {@linkplain #DEFAULT_HEARTBEAT default heartbeat}. */
    public static SessionLockEngine named(
            Dialect dialect,
            TokenIssuer tokens,
            LockSchema schema,
            DataSource sessionDataSource,
            int maxSessions,
            String owner) {
        return named(dialect, tokens, schema, sessionDataSource, maxSessions, owner, DEFAULT_HEARTBEAT);
    }

    @Override
    public LockMode mode() {
        return steps.mode();
    }

    /**
     * Fails when this mode's locks would not exclude each other here: on a multi-writer cluster (Galera, multi-primary
     * Group Replication) not declared single-writer, or on a server whose settings could not be read yet.
     *
     * @throws IllegalStateException naming the server setting, LEASE as the mode to use, and the declaration
     */
    @Override
    public void requireAllowedHere() {
        // A lock of one node: refused on a multi-writer cluster unless the user declared a single writer, and while the
        // deployment is not known (read again here).
        Optional<String> refusal = dialect.currentTopology().sessionLockRefusal(mode(), steps.lockStatement());
        if (refusal.isPresent()) {
            throw new IllegalStateException(refusal.get());
        }
    }

    /** A lock held by a session lasts while the session does: it has no fixed lease, whatever was asked for. */
    @Override
    public @Nullable Duration fixedLease(@Nullable Duration requested) {
        return null;
    }

    /**
     * A held session is checked every {@code heartbeat} (or every third of the lease, if shorter): how long its holder
     * may go on after the session was killed or the server restarted does not grow with the lease.
     */
    @Override
    public Duration renewalInterval(Duration lease) {
        Duration third = lease.dividedBy(3);
        return third.compareTo(heartbeat) < 0 ? third : heartbeat;
    }

    /** Sessions held by locks (or by acquisitions under way) now, for metrics and tests. */
    public int heldSessions() {
        return sessions.heldCount();
    }

    /**
     * The name {@code GET_LOCK} takes for a NAMED lock, for tests and diagnostics.
     *
     * @throws IllegalStateException on an engine of another mode, whose locks have no such name
     */
    public String serverLockName(LockKey key) {
        if (!(steps instanceof NamedSteps named)) {
            throw new IllegalStateException(mode() + " locks are not the server's named locks");
        }
        return named.serverLockName(key);
    }

    @Override
    public @Nullable Grant acquire(LockKey key, Duration lease, int tokens, long deadlineNanos)
            throws InterruptedException {
        requireAllowedHere();
        return acquirer.acquire(key, lease, deadlineNanos);
    }

    /**
     * Heartbeat: asks each grant's session whether it still holds its lock.
     *
     * @return the grants whose session ended, no longer holds the lock, or did not answer
     */
    @Override
    public Map<Grant, Loss> renew(List<Grant> grants) {
        return heartbeats.check(grants);
    }

    @Override
    public long issueTokens(Grant grant, int count) {
        try {
            return InterruptStatus.cleared(() -> steps.issueTokens(SessionGrant.sessionOf(grant), grant, count));
        } catch (SQLException ex) {
            throw ServerErrors.translate("issuing fencing tokens for " + grant.key(), ex);
        }
    }

    /** The session's read timeout bounds a release, so it runs on the unlocking thread without a hand-off. */
    @Override
    public boolean boundsRelease() {
        return true;
    }

    /** A release that failed closed the session, and the server frees the lock with it: nothing to try again. */
    @Override
    public boolean retriesFailedRelease() {
        return false;
    }

    /**
     * Releases the lock on its session, waiting for the server at most {@link #RELEASE_TIMEOUT}.
     *
     * @throws org.springframework.dao.QueryTimeoutException if the server did not answer in time; the session is
     *     closed, and the server frees the lock when it drops the session
     */
    @Override
    public @Nullable Loss release(Grant grant) {
        return releases.release(grant);
    }

    /**
     * Closes the grants' sessions, at shutdown: the server frees their locks with them, and closing waits for no
     * answer.
     */
    @Override
    public void releaseAll(List<Grant> grants) {
        releases.releaseAll(grants);
    }

    /** Closes every session (the server frees their locks), then stops the canceller and its kill connection. */
    @Override
    public void close() {
        sessions.close();
        canceller.close();
    }
}
