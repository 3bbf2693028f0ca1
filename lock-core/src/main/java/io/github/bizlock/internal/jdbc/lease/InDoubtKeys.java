package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

/**
 * The keys whose acquisition may have committed without an answer (its connection failed, or its read timed out at the
 * deadline, while the statement waited on the server behind a row lock, a semi-synchronous commit or a cluster stall):
 * such a statement can still commit later, and its row then names this owner for the whole lease with nobody holding
 * it. Until {@link #WINDOW} after the last such attempt, a background pass frees a row of an in-doubt key that names
 * this owner, every {@link #PASS_MILLIS} ms, while this engine holds no grant of the key.
 *
 * <p>Exact because of the per-key lock: an acquisition of an in-doubt key runs under it, and the grants it gets are
 * recorded under it; the pass frees only under it and only while none is recorded. A row naming this owner then comes
 * from an attempt that got no grant (owner ids are unique per lock service), or from a grant this process is giving
 * back anyway.
 */
final class InDoubtKeys implements AutoCloseable {

    /** How long after its last uncertain attempt a key stays in doubt: past InnoDB's 50 s lock wait, with room. */
    static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(2);

    static final long PASS_MILLIS = 250;

    private static final Logger log = LoggerFactory.getLogger(LeaseLockEngine.class);

    private final LeaseDao dao;
    private final String owner;
    private final Map<LockKey, Doubt> doubts = new ConcurrentHashMap<>();
    private final ReentrantLock starting = new ReentrantLock();
    private volatile ScheduledExecutorService passes;

    InDoubtKeys(LeaseDao dao, String owner) {
        this.dao = dao;
        this.owner = owner;
    }

    /** One in-doubt key: its lock, the tokens of the grants this engine got for it since, and when doubt ends. */
    static final class Doubt {
        final ReentrantLock lock = new ReentrantLock();
        /**
         * Added to under {@link #lock} (by the acquisition), read under it (by the pass); removed without it, so that a
         * release never waits behind an acquisition of the key: a removal racing the pass only lets it free a row that
         * was just released.
         */
        final Set<Long> grants = ConcurrentHashMap.newKeySet();

        volatile long untilNanos;
    }

    /** What {@link #lockIfInDoubt} returns when a pass kept the key's lock until the deadline; not locked. */
    static final Doubt BUSY = new Doubt();

    /**
     * The doubt of a key, locked by the caller; {@code null} if the key is not in doubt, {@link #BUSY} if a pass over
     * the key (one bounded statement) still ran at the deadline.
     */
    Doubt lockIfInDoubt(LockKey key, long deadlineNanos) throws InterruptedException {
        while (true) {
            Doubt doubt = doubts.get(key);
            if (doubt == null) {
                return null;
            }
            if (!doubt.lock.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return BUSY;
            }
            if (doubts.get(key) == doubt) {
                return doubt;
            }
            doubt.lock.unlock(); // ended by a pass meanwhile
        }
    }

    /**
     * Puts the key in doubt for {@link #WINDOW_NANOS} from now, or extends its doubt, and returns it locked by the
     * caller (already locked if {@code held} is the key's doubt).
     */
    Doubt doubt(LockKey key, Doubt held) {
        Doubt doubt = held;
        if (doubt == null) {
            doubt = doubts.computeIfAbsent(key, k -> new Doubt());
            doubt.lock.lock();
            if (doubts.get(key) != doubt) { // ended by a pass between the two lines
                doubt.lock.unlock();
                return doubt(key, null);
            }
        }
        doubt.untilNanos = System.nanoTime() + WINDOW_NANOS;
        startPasses();
        return doubt;
    }

    /** The grant of a token of an in-doubt key was given back: the pass may free the key's row again. */
    void released(LockKey key, long fencingToken) {
        Doubt doubt = doubts.get(key);
        if (doubt != null) {
            doubt.grants.remove(fencingToken);
        }
    }

    private void startPasses() {
        if (passes != null) {
            return;
        }
        starting.lock();
        try {
            if (passes == null) {
                ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
                    Thread thread = new Thread(runnable, "bizlock-lease-in-doubt");
                    thread.setDaemon(true);
                    return thread;
                });
                executor.scheduleWithFixedDelay(this::pass, PASS_MILLIS, PASS_MILLIS, TimeUnit.MILLISECONDS);
                passes = executor;
            }
        } finally {
            starting.unlock();
        }
    }

    /** Frees the in-doubt keys' rows that name this owner while no grant of them is held here; ends old doubts. */
    void pass() {
        long now = System.nanoTime();
        for (Map.Entry<LockKey, Doubt> entry : doubts.entrySet()) {
            Doubt doubt = entry.getValue();
            if (!doubt.lock.tryLock()) {
                continue; // an acquisition of the key runs: it reclaims such a row itself
            }
            try {
                if (!doubt.grants.isEmpty()) {
                    continue;
                }
                if (dao.releaseStale(entry.getKey(), owner)) {
                    log.warn(
                            "bizlock freed lock {}: an acquisition of it that had failed (its connection broke, or it"
                                    + " timed out) committed on the server after all, and nobody here held it",
                            entry.getKey());
                }
                if (now - doubt.untilNanos >= 0) {
                    doubts.remove(entry.getKey(), doubt);
                }
            } catch (DataAccessException | IllegalStateException ex) {
                log.debug("bizlock could not free in-doubt lock {} yet: {}", entry.getKey(), ex.toString());
            } catch (RuntimeException ex) {
                log.warn("bizlock could not free in-doubt lock {} yet", entry.getKey(), ex);
            } finally {
                doubt.lock.unlock();
            }
        }
    }

    @Override
    public void close() {
        ScheduledExecutorService executor = passes;
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
