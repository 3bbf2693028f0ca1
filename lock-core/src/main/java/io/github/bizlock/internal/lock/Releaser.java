package io.github.bizlock.internal.lock;

import io.github.bizlock.LockReleaseException;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives grants back to the database without holding up the unlocking thread past a bound, whatever the database does.
 * An engine that {@linkplain LockEngine#boundsRelease() bounds its releases} itself (its statements have deadlines, or
 * its sessions' connections time out) releases on the unlocking thread: a hand-off to another thread would cost each
 * lock two thread switches, and a few release threads would cap how many locks are released at once. Any other
 * release runs on one of at most {@link #THREADS} threads ({@code bizlock-release}), in the order asked for; the
 * unlocking thread waits for it at most {@link #WAIT}. Such a release that fails (the database did not answer) is tried
 * again in the background with backoff, {@link #ATTEMPTS} times in all, without a thread waiting out the pauses. That is
 * safe however late it comes: a release frees the lock only if this grant still holds it (for LEASE, if the row still
 * names this owner and token), never a later holder's.
 */
final class Releaser implements AutoCloseable {

    /** How long an unlocking thread waits for the database before it is told the release goes on without it. */
    static final Duration WAIT = LockEngine.RELEASE_TIMEOUT;

    /** Attempts at one release, the first included: about 23 s of pauses in all. */
    static final int ATTEMPTS = 8;

    /**
     * Releases running at once. Fewer than the 4 connections of the lock pool: releases that wait on connections to a
     * host that died (each until its engine's deadline) leave connections to renewals and acquisitions, and a burst of
     * unlocks then queues instead of starting a thread, and taking a connection, each.
     */
    static final int THREADS = 2;

    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(10);

    // Under the manager's category: users configure logging for the class they use, not for its parts.
    private static final Logger log = LoggerFactory.getLogger(LockManager.class);

    private volatile boolean closed;
    private final ScheduledThreadPoolExecutor threads = threads();

    /** Releases waiting for their next attempt, logged as given up if the releaser closes before it. */
    private final Set<HeldGrant> retrying = ConcurrentHashMap.newKeySet();

    private static ScheduledThreadPoolExecutor threads() {
        ScheduledThreadPoolExecutor threads =
                new ScheduledThreadPoolExecutor(THREADS, DaemonThreads.named("bizlock-release"));
        threads.setKeepAliveTime(60, TimeUnit.SECONDS);
        threads.allowCoreThreadTimeOut(true); // no thread while nothing is released
        threads.setRemoveOnCancelPolicy(true);
        return threads;
    }

    /**
     * Releases a grant its holder still counts on, waiting for the database at most {@link #WAIT}.
     *
     * @return {@code null} if the grant held the lock and released it, or why it no longer held it
     * @throws LockReleaseException if the database did not answer in time or the release failed; it is retried in
     *     the background
     */
    @Nullable
    Loss release(HeldGrant held) {
        if (held.engine().boundsRelease()) {
            try {
                return held.engine().release(held.grant());
            } catch (RuntimeException ex) {
                boolean retried = held.engine().retriesFailedRelease() && !closed;
                if (retried) {
                    warnRetrying(held, 1, ex);
                    retryLater(held, 2, FIRST_PAUSE_NANOS);
                }
                throw failed(held, "the release failed: " + ex.getMessage(), ex, retried);
            }
        }
        CompletableFuture<@Nullable Loss> firstAttempt = new CompletableFuture<>();
        start(held, firstAttempt);
        long deadline = System.nanoTime() + WAIT.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return firstAttempt.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException ex) {
                    interrupted = true; // the release runs elsewhere, so an interrupt cannot cut it short: wait on
                } catch (ExecutionException ex) {
                    throw failed(held, "the release failed: " + ex.getCause(), ex.getCause(), true);
                } catch (TimeoutException ex) {
                    throw failed(held, "the database did not answer within " + WAIT.toMillis() + " ms", null, true);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Releases a grant nobody waits for, such as one already known lost, in the background. */
    void releaseInBackground(HeldGrant held) {
        start(held, null);
    }

    /**
     * Stops retrying, after the releases under way and the retries due had up to {@link #WAIT} to finish: releases
     * still pending then are given up (and logged); their locks free when their leases or sessions end.
     */
    @Override
    public void close() {
        closed = true;
        threads.shutdown();
        try {
            if (!threads.awaitTermination(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                threads.shutdownNow(); // drops the retries not due yet
            }
        } catch (InterruptedException ex) {
            threads.shutdownNow();
            Thread.currentThread().interrupt();
        }
        for (HeldGrant held : retrying) {
            stopped(held);
        }
        retrying.clear();
    }

    private void start(HeldGrant held, @Nullable CompletableFuture<@Nullable Loss> firstAttempt) {
        try {
            threads.execute(() -> attempt(held, firstAttempt, 1, FIRST_PAUSE_NANOS));
        } catch (RejectedExecutionException ex) {
            // The manager is closed: one attempt on this thread, as a release always was.
            try {
                Loss loss = held.engine().release(held.grant());
                if (firstAttempt != null) {
                    firstAttempt.complete(loss);
                }
            } catch (RuntimeException failure) {
                if (firstAttempt != null) {
                    firstAttempt.completeExceptionally(failure);
                } else {
                    // Nobody waits for this release (its lock is known lost): the unlock that asked for it answers
                    // with the loss, not with this failure.
                    giveUp(held, 1, failure);
                }
            }
        }
    }

    /** One attempt at a release; if it fails, the next is scheduled after {@code pauseNanos}. */
    private void attempt(
            HeldGrant held, @Nullable CompletableFuture<@Nullable Loss> firstAttempt, int attempt, long pauseNanos) {
        retrying.remove(held);
        Grant grant = held.grant();
        try {
            Loss loss = held.engine().release(grant);
            if (firstAttempt != null) {
                firstAttempt.complete(loss);
            }
            if (attempt > 1) {
                log.info(
                        "bizlock released lock {} ({}) in the background at attempt {}{}",
                        grant.key(),
                        held.engine().mode(),
                        attempt,
                        loss == null ? "" : "; it was no longer held: " + loss.reason());
            }
            return;
        } catch (RuntimeException ex) {
            if (firstAttempt != null) {
                firstAttempt.completeExceptionally(ex);
            }
            if (attempt == ATTEMPTS || closed || !held.engine().retriesFailedRelease()) {
                giveUp(held, attempt, ex);
                return;
            }
            warnRetrying(held, attempt, ex);
        }
        retryLater(held, attempt + 1, pauseNanos);
    }

    private static void warnRetrying(HeldGrant held, int attempt, RuntimeException failure) {
        log.warn(
                "bizlock could not release lock {} ({}), attempt {} of {}; retrying in the background: {}",
                held.grant().key(),
                held.engine().mode(),
                attempt,
                ATTEMPTS,
                failure.toString());
    }

    /** Schedules attempt {@code attempt} of a release after {@code pauseNanos}, on the release threads. */
    private void retryLater(HeldGrant held, int attempt, long pauseNanos) {
        retrying.add(held);
        try {
            threads.schedule(
                    () -> attempt(held, null, attempt, Math.min(pauseNanos * 2, MAX_PAUSE_NANOS)),
                    pauseNanos,
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException ex) {
            retrying.remove(held);
            stopped(held);
        }
    }

    private static void stopped(HeldGrant held) {
        log.warn(
                "bizlock is closed; it stopped releasing lock {} ({}), which frees when its lease or session ends",
                held.grant().key(),
                held.engine().mode());
    }

    private void giveUp(HeldGrant held, int attempts, RuntimeException failure) {
        log.warn(
                "bizlock gave up releasing lock {} ({}) after {} attempt(s){}; it frees when its lease or session ends",
                held.grant().key(),
                held.engine().mode(),
                attempts,
                closed ? ", as it is closed" : "",
                failure);
    }

    /**
     * @param retried whether the release goes on in the background; if not, the engine let go of what held the lock,
     *     and {@code why} says when it frees
     */
    private static LockReleaseException failed(HeldGrant held, String why, @Nullable Throwable cause, boolean retried) {
        LockKey key = held.grant().key();
        return new LockReleaseException(
                key.name(),
                key.key(),
                "Lock " + key.name() + "/" + key.key() + " (" + held.engine().mode() + ") could not be released: " + why
                        + ". It was held until this unlock, and this thread no longer holds it"
                        + (retried
                                ? "; the release is retried in the background, and the lock frees when it succeeds, at"
                                        + " the latest when its lease ends (LEASE) or the server drops its session"
                                        + " (ROW, NAMED)"
                                : ""),
                cause);
    }
}
