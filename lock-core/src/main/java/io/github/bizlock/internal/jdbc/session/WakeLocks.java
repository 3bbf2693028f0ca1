package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.internal.jdbc.dialect.ClusterTopology;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.WakeSql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LEASE's wake-up: a named lock per key (a "wake lock", {@code GET_LOCK} on a name of its own) that the holder of the
 * key's lease row holds with it. Every acquirer takes it before the row; one that finds it held queues on the server,
 * which grants it, in arrival order, when the holder releases it after freeing the row. So a waiter of another process
 * learns of a release within a round trip, the longest waiter goes next, and the releasing process, asking again at
 * once, queues behind it instead of taking the row back.
 *
 * <p>The lease row stays the only grant: a wake lock lets nobody in, it only orders who tries the row. It never keeps a
 * takeover out that the row allows: a waiter re-checks the row every {@link #RECHECK} while it stays queued (so it keeps
 * its place), and takes a lease that ended, or a row free for longer than that, without the wake lock; a holder frozen
 * or cut off whose session still holds the wake lock is thus taken over when its lease ends, and the waiters after the
 * taker wait with re-checks a second apart until that session ends.
 *
 * <p>Where it cannot work, acquirers poll the row as before ({@link State#UNAVAILABLE}): on a multi-writer cluster
 * ({@code GET_LOCK} is local to a node), when the server refuses {@code GET_LOCK} (error 1235 under Galera on some
 * MariaDB releases; then for good), when a wake session fails, and when all {@link #MAX_SESSIONS} are in use.
 */
public final class WakeLocks implements AutoCloseable {

    /** The most connections a process holds for wake locks: shared quick statements, and one per queued wait. */
    public static final int MAX_SESSIONS = 8;

    /**
     * How often a queued waiter re-checks the row for a takeover that needs no wake lock, at most; and how long a row
     * must have been free for a waiter to take it without the wake lock.
     */
    public static final Duration RECHECK = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(WakeLocks.class);
    private static final int ER_NOT_SUPPORTED_YET = 1235;
    static final long SLACK_NANOS = LockEngine.DEADLINE_SLACK.toNanos();

    /** What a wake lock step came to. */
    public enum State {
        /** This process holds the key's wake lock: try the row. */
        HELD,
        /** Another session holds the wake lock: queue with {@link #await}. */
        BUSY,
        /** A re-check took the row without waiting for the wake lock (its lease had ended). */
        TAKEN_OVER,
        /** The deadline passed while queued. */
        DEADLINE,
        /** No wake-up here or now: poll the row. */
        UNAVAILABLE
    }

    /** A key's wake lock, held on one session. */
    public static final class Hold {
        private final Session session;
        private final String name;

        Hold(Session session, String name) {
            this.session = session;
            this.name = name;
        }

        @Override
        public String toString() {
            return "wake lock on " + session;
        }
    }

    /**
     * What a step came to, and the wake lock held, if any.
     *
     * @param state what it came to
     * @param hold the wake lock now held, or {@code null}
     */
    public record Wake(State state, @Nullable Hold hold) {
        static final Wake BUSY = new Wake(State.BUSY, null);
        static final Wake DEADLINE = new Wake(State.DEADLINE, null);
        static final Wake UNAVAILABLE = new Wake(State.UNAVAILABLE, null);
    }

    /** A queued waiter's re-check of the row, on the waiter's thread. */
    @FunctionalInterface
    public interface TakeOver {
        /** Takes the row if its lease ended or it has long been free; whether it did. */
        boolean now();
    }

    private final Dialect dialect;
    private final NamedLockNames names;
    private final WakeSessions sessions;
    private final SessionCanceller canceller;
    private final ExecutorService waits = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(null, task, "bizlock-wake-wait", 0, false);
        thread.setDaemon(true);
        return thread;
    });

    private volatile boolean refused;

    /**
     * @param dialect the lock database's, whose topology tells whether named locks reach every acquirer
     * @param schema the lock tables' schema and table, which scope the wake locks' names on the server
     * @param dataSource plain connections to the lock database (the session DataSource)
     */
    public WakeLocks(Dialect dialect, LockSchema schema, DataSource dataSource) {
        this.dialect = dialect;
        this.names = NamedLockNames.wake(schema);
        this.sessions = new WakeSessions(dataSource, MAX_SESSIONS, LockEngine.DEADLINE_SLACK.toMillis());
        this.canceller = new SessionCanceller(dataSource);
    }

    /** Whether wake locks reach every acquirer of this deployment: one server (with its replicas), and not refused. */
    private boolean usable() {
        return !refused && dialect.currentTopology().kind() == ClusterTopology.Kind.SINGLE_SERVER;
    }

    /**
     * Takes the key's wake lock if nobody holds or waits for it: {@link State#HELD}, {@link State#BUSY}, or
     * {@link State#UNAVAILABLE}. Ends by {@code giveUpNanos} ({@link System#nanoTime()}) plus a read timeout.
     */
    public Wake take(LockKey key, long giveUpNanos) throws InterruptedException {
        if (!usable()) {
            return Wake.UNAVAILABLE;
        }
        String name = names.of(key);
        Session session = sessions.forStatement(name, giveUpNanos);
        if (session == null) {
            return Wake.UNAVAILABLE;
        }
        try {
            PreparedStatement take = session.prepare(WakeSql.TAKE);
            take.setString(1, name);
            long got = result(take);
            if (got == 1) {
                Hold hold = new Hold(session, name);
                sessions.took(session, name, hold);
                return new Wake(State.HELD, hold);
            }
            if (got == 0) {
                return Wake.BUSY;
            }
            sessions.discard(session, null);
            return Wake.UNAVAILABLE;
        } catch (SQLException ex) {
            failed(session, ex);
            return Wake.UNAVAILABLE;
        } finally {
            session.guard().unlock();
        }
    }

    /**
     * Queues for the key's wake lock until it is granted ({@link State#HELD}), {@code takeOver} takes the row
     * ({@link State#TAKEN_OVER}, with the wake lock if it came meanwhile), or the deadline passes; {@link
     * State#UNAVAILABLE} if no wait session can be had or it failed. Re-checks the row with {@code takeOver} every
     * {@code recheck} (at most {@link #RECHECK}) without leaving the queue. The wait runs on a thread of its own, so that this thread can
     * re-check; the session canceller ends it on time.
     *
     * @throws InterruptedException if this thread was interrupted; no wake lock is held then, and nothing taken
     *     (a row taken over just before is the caller's to give back: {@code takeOver} reported it)
     */
    public Wake await(LockKey key, long deadlineNanos, Duration recheck, TakeOver takeOver)
            throws InterruptedException {
        long remaining = deadlineNanos - System.nanoTime();
        if (!usable()) {
            return Wake.UNAVAILABLE;
        }
        if (remaining <= 0) {
            return Wake.DEADLINE;
        }
        Session session = sessions.forWait(deadlineNanos);
        if (session == null) {
            return Wake.UNAVAILABLE;
        }
        String name = names.of(key);
        CompletableFuture<Long> wait;
        SessionCanceller.Watch watch;
        try {
            PreparedStatement statement = session.prepare(WakeSql.WAIT);
            statement.setString(1, name);
            statement.setLong(2, SessionSupport.ceilSeconds(remaining));
            session.readTimeout(SessionSupport.waitReadTimeoutMillis(remaining));
            watch = canceller.watch(session, deadlineNanos);
            wait = CompletableFuture.supplyAsync(() -> resultOrThrow(statement), waits);
        } catch (SQLException ex) {
            failed(session, ex);
            return Wake.UNAVAILABLE;
        }
        long recheckNanos = Math.min(RECHECK.toNanos(), Math.max(1, recheck.toNanos()));
        return new WakeWait(this, sessions, session, name, watch, wait, deadlineNanos, recheckNanos).await(takeOver);
    }

    /**
     * Releases a wake lock, waking the key's longest waiter; never fails (a session that fails is closed, which frees
     * its wake locks too). Waits at most {@link LockEngine#DEADLINE_SLACK} for the session, then its read timeout: a
     * wake lock left held keeps the key's waiters to their re-checks, which take the row once it has been free that
     * long.
     */
    public void release(Hold hold) {
        Session session = hold.session;
        if (!sessions.holds(session, hold.name, hold)) {
            return; // its session was closed
        }
        boolean locked;
        try {
            locked = session.guard().tryLock(SLACK_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        if (!locked) {
            log.debug(
                    "bizlock: {} stayed busy; the wake lock of a released LEASE lock is left to its waiters' re-checks",
                    session);
            return;
        }
        try {
            PreparedStatement release = session.prepare(WakeSql.RELEASE);
            release.setString(1, hold.name);
            result(release);
            sessions.released(session, hold.name);
        } catch (SQLException ex) {
            failed(session, ex);
        } finally {
            session.guard().unlock();
        }
    }

    /** Sessions open now, for tests: at most {@link #MAX_SESSIONS}. */
    int openSessions() {
        return sessions.openCount();
    }

    /** Closes a session that failed; the server's refusal of {@code GET_LOCK} turns the wake-up off for good. */
    void failed(Session session, Throwable ex) {
        if (ServerErrors.errorCode(ex) == ER_NOT_SUPPORTED_YET) {
            refused = true;
            log.warn(
                    "bizlock: the server refuses GET_LOCK ({}); LEASE waiters poll the lock's row from now on, as on a"
                            + " multi-writer cluster",
                    ex.getMessage());
        }
        sessions.discard(session, ex instanceof SQLException sql ? sql : new SQLException(ex));
    }

    /** 1, 0, or -1 for NULL. */
    private static long result(PreparedStatement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery()) {
            row.next();
            long got = row.getLong(1);
            return row.wasNull() ? -1 : got;
        }
    }

    private static long resultOrThrow(PreparedStatement statement) {
        try {
            return result(statement);
        } catch (SQLException ex) {
            throw new CompletionException(ex);
        }
    }

    /** Closes the wake sessions (the server frees their wake locks) and the canceller. */
    @Override
    public void close() {
        canceller.close();
        waits.shutdownNow();
        sessions.close();
    }
}
