package io.github.bizlock.internal.jdbc.session;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

/**
 * The sessions LEASE's wake locks live on ({@link WakeLocks}): at most a fixed number per process, taken from a
 * {@link SessionPool} when first needed and kept. A session serves one duty at a time:
 *
 * <ul>
 *   <li>quick statements (taking a free wake lock, releasing one), for every thread in turn under its guard, with many
 *       wake locks held on it at once: a process holding 10,000 LEASE locks holds their wake locks on a few sessions;
 *   <li>or one queued wait, for which it must hold no wake lock, since a session blocked in {@code GET_LOCK} cannot
 *       release the others until the wait ends. A session whose wait was granted holds that wake lock, and serves
 *       quick statements from then on.
 * </ul>
 */
final class WakeSessions {

    private static final Logger log = LoggerFactory.getLogger(WakeSessions.class);
    private static final long OPEN_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final SessionPool pool;
    private final int maxSessions;
    /** Guards the three collections below; never held during a statement. */
    private final ReentrantLock lock = new ReentrantLock();

    private final List<Session> open = new ArrayList<>();
    /** The wake locks each session holds, by name, each with the hold that took it. */
    private final Map<Session, Map<String, Object>> held = new HashMap<>();

    private final Set<Session> waiting = new HashSet<>();

    /** Until when ({@link System#nanoTime()}) no session is opened, after one failed to open. */
    private volatile long noOpenUntil = System.nanoTime();

    private volatile boolean warned;

    /**
     * @param dataSource plain connections to the lock database (the ROW/NAMED session DataSource)
     * @param maxSessions how many wake sessions the process may hold
     * @param quickReadTimeoutMillis how long a quick statement may wait for the server before its session counts as dead
     */
    WakeSessions(DataSource dataSource, int maxSessions, long quickReadTimeoutMillis) {
        this.maxSessions = maxSessions;
        this.pool = new SessionPool(dataSource, maxSessions, "the wake sessions' maximum", connection -> {
            connection.setAutoCommit(true);
            Session.readTimeout(connection, quickReadTimeoutMillis);
        });
    }

    /**
     * A session for a quick statement on wake lock {@code name}, its guard held by the caller, or {@code null} if none
     * can be had by {@code giveUpNanos}: none open and none can be opened, or all are held by other quick statements
     * until then. Never one that holds {@code name} already ({@code GET_LOCK} nests within a session) or is waiting.
     */
    @Nullable
    Session forStatement(String name, long giveUpNanos) throws InterruptedException {
        List<Session> candidates = new ArrayList<>();
        lock.lock();
        try {
            for (Session session : open) {
                if (!waiting.contains(session) && !held.get(session).containsKey(name)) {
                    if (session.guard().tryLock()) {
                        return session;
                    }
                    candidates.add(session);
                }
            }
        } finally {
            lock.unlock();
        }
        if (candidates.isEmpty()) {
            Session opened = borrow(giveUpNanos);
            if (opened == null) {
                return null;
            }
            opened.guard().lock();
            return opened;
        }
        // All busy with other quick statements, each bounded by the read timeout: queue on one, spread by name.
        Session chosen = candidates.get(Math.floorMod(name.hashCode(), candidates.size()));
        if (!chosen.guard().tryLock(Math.max(0, giveUpNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            return null;
        }
        lock.lock();
        try {
            if (open.contains(chosen) && !waiting.contains(chosen)) {
                return chosen;
            }
        } finally {
            lock.unlock();
        }
        chosen.guard().unlock(); // discarded, or taken for a wait, meanwhile
        return null;
    }

    /**
     * A session that holds no wake lock, marked waiting, or {@code null} if every session holds or waits and no more
     * may be opened (the caller then polls).
     */
    @Nullable
    Session forWait(long giveUpNanos) {
        lock.lock();
        try {
            for (Session session : open) {
                if (!waiting.contains(session)
                        && held.get(session).isEmpty()
                        && session.guard().tryLock()) {
                    try {
                        waiting.add(session);
                        return session;
                    } finally {
                        session.guard().unlock();
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        Session opened = borrow(giveUpNanos);
        if (opened != null) {
            lock.lock();
            try {
                waiting.add(opened);
            } finally {
                lock.unlock();
            }
        }
        return opened;
    }

    private @Nullable Session borrow(long giveUpNanos) {
        lock.lock();
        try {
            if (open.size() >= maxSessions) {
                return null;
            }
        } finally {
            lock.unlock();
        }
        if (System.nanoTime() - noOpenUntil < 0) {
            return null;
        }
        Session session;
        try {
            // No wait for a place: a process whose wake sessions are all in use polls instead.
            session = pool.borrow(Math.min(System.nanoTime(), giveUpNanos));
        } catch (DataAccessException | IllegalStateException ex) {
            // Fewer than the maximum are open, so the database refused or did not answer (opens given up on keep
            // their places). Acquisitions poll meanwhile, without paying for an attempt to open each.
            noOpenUntil = System.nanoTime() + OPEN_PAUSE_NANOS;
            if (!warned) {
                warned = true;
                log.warn(
                        "bizlock: no connection for waking LEASE waiters could be opened ({}); they poll the lock rows"
                                + " meanwhile, and opening is tried again every {} s",
                        ex.getMessage(),
                        TimeUnit.NANOSECONDS.toSeconds(OPEN_PAUSE_NANOS));
            }
            log.debug("bizlock: no wake session could be had; LEASE waiters of this key poll", ex);
            return null;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
        lock.lock();
        try {
            open.add(session);
            held.put(session, new HashMap<>());
        } finally {
            lock.unlock();
        }
        return session;
    }

    /** Records that a wait on the session ended; it holds {@code name} for {@code hold} if granted, else nothing. */
    void doneWaiting(Session session, @Nullable String name, @Nullable Object hold) {
        lock.lock();
        try {
            waiting.remove(session);
            if (name != null && hold != null) {
                took(session, name, hold);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Records that the session took wake lock {@code name} for {@code hold}. */
    void took(Session session, String name, Object hold) {
        lock.lock();
        try {
            Map<String, Object> names = held.get(session);
            if (names != null) {
                names.put(name, hold);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the session is open and holds wake lock {@code name} for {@code hold}: not for a later hold of the same
     * key (a release retried in the background must not free its successor's).
     */
    boolean holds(Session session, String name, Object hold) {
        lock.lock();
        try {
            Map<String, Object> names = held.get(session);
            return names != null && names.get(name) == hold;
        } finally {
            lock.unlock();
        }
    }

    /** Records that the session released wake lock {@code name}. */
    void released(Session session, String name) {
        lock.lock();
        try {
            Map<String, Object> names = held.get(session);
            if (names != null) {
                names.remove(name);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Closes a session that failed or is in doubt; the server frees every wake lock it held. */
    void discard(Session session, @Nullable SQLException why) {
        lock.lock();
        try {
            if (!open.remove(session)) {
                return;
            }
            held.remove(session);
            waiting.remove(session);
        } finally {
            lock.unlock();
        }
        if (why != null) {
            log.debug("bizlock: wake session {} failed and was closed; its wake locks are free", session, why);
        }
        pool.discard(session);
    }

    /** Sessions open now. */
    int openCount() {
        lock.lock();
        try {
            return open.size();
        } finally {
            lock.unlock();
        }
    }

    /** Closes every session; the server frees their wake locks. */
    void close() {
        pool.close();
    }
}
