package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * One acquisition of a LEASE lock, on the thread that passed the key's gate: the key's wake lock first, where there is
 * a wake-up ({@link WakeLocks}), queued for while another process holds it; then the row, tried again with
 * {@link Backoff} while it stays held (by a holder without a wake lock, or one that crashed: the row tells when its
 * lease ends). Without a wake-up, only the row, as before.
 */
final class LeaseAcquisition {

    private static final long SLACK_NANOS = LockEngine.DEADLINE_SLACK.toNanos();
    private static final Duration MIN_RECHECK = Duration.ofMillis(50);

    /** The shortest write intent: how long a writer that stopped waiting for readers keeps new readers out at most. */
    private static final Duration MIN_WRITE_INTENT = Duration.ofSeconds(1);

    private final LeaseDao dao;
    private final String owner;
    private final Backoff backoff;
    private final @Nullable WakeLocks wakes;
    private final InDoubtKeys inDoubt;
    private final LockKey key;
    private final Duration lease;
    private final int tokens;
    private final long deadlineNanos;

    private InDoubtKeys.@Nullable Doubt doubt;
    private boolean reclaimOwn;
    private WakeLocks.@Nullable Hold wake;
    private long takenOver;
    private long takenOverSent;
    private boolean intentMarked;

    LeaseAcquisition(
            LeaseDao dao,
            String owner,
            Backoff backoff,
            @Nullable WakeLocks wakes,
            InDoubtKeys inDoubt,
            LockKey key,
            Duration lease,
            int tokens,
            long deadlineNanos) {
        this.dao = dao;
        this.owner = owner;
        this.backoff = backoff;
        this.wakes = wakes;
        this.inDoubt = inDoubt;
        this.key = key;
        this.lease = lease;
        this.tokens = tokens;
        this.deadlineNanos = deadlineNanos;
    }

    /** The grant, or {@code null} at the deadline. */
    @Nullable
    LeaseGrant run() throws InterruptedException {
        // A key in doubt may have a row naming this owner that no grant knows: the attempts take it back, with a new
        // token, and no background pass frees the key meanwhile.
        doubt = inDoubt.lockIfInDoubt(key, deadlineNanos);
        if (doubt == InDoubtKeys.BUSY) {
            return null;
        }
        reclaimOwn = doubt != null;
        LeaseGrant grant = null;
        try {
            grant = attempts();
            return grant;
        } finally {
            if (grant == null && wake != null && wakes != null) {
                wakes.release(wake);
            }
            if (doubt != null) {
                doubt.lock.unlock();
            }
        }
    }

    private @Nullable LeaseGrant attempts() throws InterruptedException {
        boolean queue = false;
        if (wakes != null) {
            WakeLocks.Wake first = wakes.take(key, deadlineNanos + SLACK_NANOS);
            wake = first.hold();
            // Busy: another process holds the row, or its next waiter was just woken to take it. Trying a free row
            // now would take it from that waiter, so this acquirer queues behind it instead.
            queue = first.state() == WakeLocks.State.BUSY;
        }
        for (int attempt = 1; ; attempt++) {
            if (queue && wakes != null) {
                queue = false;
                WakeLocks.Wake woken = queueFor(wakes);
                wake = woken.hold();
                switch (woken.state()) {
                    case TAKEN_OVER -> {
                        return grant(takenOver, takenOverSent);
                    }
                    case DEADLINE -> {
                        // A wait too short for a re-check still takes a lease that ended: one whose holder froze with
                        // its wake lock must never keep out an acquirer the row lets in.
                        return takeOver() ? grant(takenOver, takenOverSent) : null;
                    }
                    default -> {} // woken: the row is free now; unavailable: poll it
                }
            }
            long sent = System.nanoTime();
            OptionalLong token = tryRow();
            if (token.isPresent()) {
                return grant(token.getAsLong(), sent);
            }
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                return null;
            }
            markWriteIntent();
            // The last attempt lands on the deadline rather than after it.
            TimeUnit.NANOSECONDS.sleep(Math.min(remaining, backoff.pauseNanos(attempt)));
        }
    }

    /** Queues for the wake lock; a row taken over just before an interrupt is given back. */
    private WakeLocks.Wake queueFor(WakeLocks wakes) throws InterruptedException {
        try {
            // A holder that froze is taken over when its lease ends: within a re-check, every second, or every half
            // lease for leases under two seconds (the holder's is not known; a name's locks tend to share theirs).
            Duration recheck = lease.dividedBy(2).compareTo(MIN_RECHECK) < 0 ? MIN_RECHECK : lease.dividedBy(2);
            return wakes.await(key, deadlineNanos, recheck, this::takeOver);
        } catch (InterruptedException ex) {
            if (takenOver != 0) {
                try {
                    dao.release(key, owner, takenOver);
                } catch (DataAccessException notReleased) {
                    ex.addSuppressed(notReleased); // the row frees when its lease ends
                }
            }
            throw ex;
        }
    }

    private OptionalLong tryRow() {
        try {
            return dao.tryAcquire(key, owner, lease, tokens, reclaimOwn, deadlineNanos + SLACK_NANOS);
        } catch (DataAccessException ex) {
            inDoubt(ex);
            return OptionalLong.empty();
        }
    }

    /**
     * A queued waiter's re-check: takes the row without the wake lock if its lease ended, or it has been free for
     * longer than a re-check (its releaser's wake lock is stuck on a session that no longer answers).
     */
    private boolean takeOver() {
        takenOverSent = System.nanoTime();
        try {
            OptionalLong token =
                    dao.tryTakeOver(key, owner, lease, tokens, WakeLocks.RECHECK, deadlineNanos + SLACK_NANOS);
            token.ifPresent(taken -> takenOver = taken);
            return token.isPresent();
        } catch (DataAccessException ex) {
            inDoubt(ex);
            return false;
        }
    }

    /**
     * The connection failed under the statement (its cluster node crashed, or its read timed out at the deadline): the
     * write may commit with no answer, leaving the row naming this owner with nobody holding it. The key is in doubt:
     * later attempts take such a row over, and a background pass frees it while no grant of it is held here.
     */
    private void inDoubt(DataAccessException ex) {
        if (!ServerErrors.connectionFailed(ex)) {
            throw ex;
        }
        doubt = inDoubt.doubt(key, doubt);
        if (deadlineNanos - System.nanoTime() <= 0) {
            throw ex;
        }
        // Try again on a new connection (a failover URL reaches a live node) while the wait lasts.
        reclaimOwn = true;
    }

    /**
     * Writer preference: a writer kept out by read locks marks its intent, renewed at each attempt, so that no new
     * reader comes in while it waits. It lasts three pauses at least, so it does not lapse between two attempts.
     */
    private void markWriteIntent() {
        Duration intent = backoff.max().multipliedBy(3);
        try {
            intentMarked |= dao.markWriteIntent(
                    key,
                    intent.compareTo(MIN_WRITE_INTENT) < 0 ? MIN_WRITE_INTENT : intent,
                    deadlineNanos + SLACK_NANOS);
        } catch (DataAccessException ex) {
            if (!ServerErrors.refusedForNow(ex) && !ServerErrors.connectionFailed(ex)) {
                throw ex;
            }
            // Not marked this time: the next attempt marks it, and readers meanwhile only make this wait longer.
        }
    }

    private LeaseGrant grant(long token, long sentNanos) {
        if (intentMarked) {
            try {
                dao.clearWriteIntent(key, deadlineNanos + SLACK_NANOS);
            } catch (DataAccessException ex) {
                // The intent lapses on its own within a few pauses; readers wait that much longer meanwhile.
            }
        }
        if (doubt != null) {
            doubt.grants.add(token);
        }
        return new LeaseGrant(key, owner, token, tokens, lease, sentNanos, wake);
    }
}
