package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import io.github.bizlock.internal.jdbc.dialect.WakeSql;
import io.github.bizlock.internal.jdbc.session.WakeLocks.State;
import io.github.bizlock.internal.jdbc.session.WakeLocks.Wake;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One queued wait for a wake lock ({@link WakeLocks#await}), seen from the waiter's thread: the {@code GET_LOCK} runs
 * on a thread of its own, so that this one can re-check the row every so often without leaving the queue, and end the
 * wait (through the session canceller) when the re-check took the row, when it is interrupted, or at the deadline.
 */
final class WakeWait {
    private final WakeLocks wakes;
    private final WakeSessions sessions;
    private final Session session;
    private final String name;
    private final SessionCanceller.Watch watch;
    private final CompletableFuture<Long> wait;
    private final long deadlineNanos;
    private final long recheckNanos;
    /** When to stop waiting for the statement to end, once it is being ended; {@code Long.MAX_VALUE} before. */
    private long endBy = Long.MAX_VALUE;

    private boolean tookOver;
    private boolean interrupted;

    WakeWait(
            WakeLocks wakes,
            WakeSessions sessions,
            Session session,
            String name,
            SessionCanceller.Watch watch,
            CompletableFuture<Long> wait,
            long deadlineNanos,
            long recheckNanos) {
        this.wakes = wakes;
        this.sessions = sessions;
        this.session = session;
        this.name = name;
        this.watch = watch;
        this.wait = wait;
        this.deadlineNanos = deadlineNanos;
        this.recheckNanos = recheckNanos;
    }

    Wake await(WakeLocks.TakeOver takeOver) throws InterruptedException {
        Long got = null;
        Throwable failure = null;
        while (true) {
            long now = System.nanoTime();
            if (endBy == Long.MAX_VALUE && now - deadlineNanos >= 0) {
                endBy = deadlineNanos + WakeLocks.SLACK_NANOS; // the canceller ends it at the deadline
            }
            long slice = endBy == Long.MAX_VALUE ? Math.min(recheckNanos, deadlineNanos - now) : endBy - now;
            if (endBy != Long.MAX_VALUE && slice <= 0) {
                // The server did not end it in time (a lost kill, an unreachable server): left to end on its own,
                // its session closed then, which frees whatever it was granted.
                watch.close();
                wait.whenComplete((result, ex) -> sessions.discard(session, null));
                return ended();
            }
            try {
                got = wait.get(Math.max(1, slice), TimeUnit.NANOSECONDS);
                break;
            } catch (TimeoutException ex) {
                recheck(takeOver);
            } catch (InterruptedException ex) {
                interrupted = true;
                endNow();
            } catch (ExecutionException ex) {
                failure = ex.getCause();
                break;
            }
        }
        watch.close();
        return finish(got, failure);
    }

    /** While still queued and before the deadline: the row's re-check, and the end of the wait if it took it. */
    private void recheck(WakeLocks.TakeOver takeOver) {
        if (endBy != Long.MAX_VALUE || deadlineNanos - System.nanoTime() <= 0) {
            return;
        }
        try {
            tookOver = takeOver.now();
        } catch (RuntimeException ex) {
            // The wait is ended and its session closed when it ends: it may have been granted meanwhile.
            endNow();
            watch.close();
            wait.whenComplete((result, failure) -> sessions.discard(session, null));
            throw ex;
        }
        if (tookOver) {
            endNow();
        }
    }

    private void endNow() {
        watch.endNow();
        endBy = Math.min(endBy, System.nanoTime() + WakeLocks.SLACK_NANOS);
    }

    private Wake finish(@Nullable Long got, @Nullable Throwable failure) throws InterruptedException {
        if (failure != null) {
            SessionCanceller.Ending ending = watch.ending();
            if (ending == null || ServerErrors.errorCode(failure) != ServerErrors.ER_QUERY_INTERRUPTED) {
                wakes.failed(session, failure);
                return ended();
            }
            got = -1L; // MySQL: the kill ended the wait with error 1317
        }
        try {
            session.readTimeout(LockEngine.DEADLINE_SLACK.toMillis());
        } catch (SQLException ex) {
            wakes.failed(session, ex);
            return ended();
        }
        if (got != null && got == 1) {
            WakeLocks.Hold hold = new WakeLocks.Hold(session, name);
            sessions.doneWaiting(session, name, hold);
            if (interrupted) {
                wakes.release(hold);
                throw new InterruptedException();
            }
            return new Wake(tookOver ? State.TAKEN_OVER : State.HELD, hold);
        }
        // Not granted, or ended by a kill, which may have come just after the grant: the session holds nothing
        // else, so it lets go of all.
        try {
            session.prepare(WakeSql.RELEASE_ALL).executeQuery().close();
            sessions.doneWaiting(session, null, null);
        } catch (SQLException ex) {
            wakes.failed(session, ex);
        }
        return ended();
    }

    /**
     * The outcome of a wait that ended without the wake lock: before the deadline (a failure, or a NULL nobody
     * asked for), the caller polls the row.
     */
    private Wake ended() throws InterruptedException {
        if (interrupted) {
            throw new InterruptedException();
        }
        if (tookOver) {
            return new Wake(State.TAKEN_OVER, null);
        }
        return deadlineNanos - System.nanoTime() <= 0 ? Wake.DEADLINE : Wake.UNAVAILABLE;
    }
}
