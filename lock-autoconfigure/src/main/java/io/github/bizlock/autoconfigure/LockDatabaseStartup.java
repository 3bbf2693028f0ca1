package io.github.bizlock.autoconfigure;

import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Creates bizlock's beans that need the lock database (the DAO, which asks the server what it is; the tables' migration
 * or check; the engines, the lock manager and housekeeping; all declared lazy): at start-up, or, when the database
 * does not answer then, at the first lock after it does.
 *
 * <p>A start with the database down goes on with a warning unless {@code bizlock.fail-fast} is set, and every lock
 * fails until the database answers, saying why, at once or when its wait time ends; nothing runs without its lock. Any
 * other failure (credentials the server refuses, tables missing, a migration the server refuses, a server too old) is
 * a mistake a new attempt would not mend: it fails the start.
 *
 * <p>The start's attempt runs on the starting thread. A new one after it failed runs on a thread of its own
 * ({@code bizlock-start}), one at a time: a database that takes connections and says nothing would otherwise hold a lock
 * for the driver's connect timeout. A caller waits for it until its own deadline, and at least {@link
 * #NEW_ATTEMPT_WAIT}; an attempt the caller stopped waiting for goes on, and the lock manager it creates serves the next
 * lock. While the database does not answer, a caller with time left tries again every {@link #WAITING_RETRY_EVERY}.
 */
final class LockDatabaseStartup implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(LockDatabaseStartup.class);

    /**
     * How long after a failed attempt callers that cannot wait get its failure instead of connecting again, so that a
     * burst of locks while the database is down does not connect once each.
     */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    /**
     * How often callers with time left in their wait try again: the first lock after the database answers should not
     * wait long for the next try, and tries are one at a time, so trying often costs the database one connection
     * attempt per interval.
     */
    static final Duration WAITING_RETRY_EVERY = Duration.ofMillis(200);

    /**
     * How long a caller that cannot wait waits for a new attempt after a failed one: what a database that answers needs
     * (as {@link io.github.bizlock.internal.engine.LockEngine#DEADLINE_SLACK}).
     */
    static final Duration NEW_ATTEMPT_WAIT = Duration.ofSeconds(1);

    private final ListableBeanFactory beanFactory;
    private final boolean failFast;
    /** Guards {@link #attempt} and the start's attempt; never held while waiting for the database after the start. */
    private final ReentrantLock creating = new ReentrantLock();

    private volatile @Nullable LockManager manager;
    private volatile @Nullable RuntimeException lastFailure;
    private volatile long lastFailureNanos;
    /** The new attempt under way on a thread of its own, if any; guarded by {@link #creating}. */
    private @Nullable CompletableFuture<LockManager> attempt;

    LockDatabaseStartup(ListableBeanFactory beanFactory, boolean failFast) {
        this.beanFactory = beanFactory;
        this.failFast = failFast;
    }

    @Override
    public void afterSingletonsInstantiated() {
        try {
            manager();
        } catch (RuntimeException ex) {
            LockDatabaseUnreachableException unreachable = unreachable(ex);
            if (failFast || unreachable == null || unreachable.credentialsRefused()) {
                throw ex;
            }
            log.warn(
                    "{}. The application starts without it: every lock fails until it answers ({})."
                            + " Set bizlock.fail-fast=true to fail the start instead.",
                    unreachable.getMessage(),
                    LockDatabaseUnreachableException.WHAT_TO_CHECK);
        }
    }

    /**
     * The lock manager for a caller that cannot wait: {@link #manager(long)} with a deadline of now.
     *
     * @throws RuntimeException why the lock beans could not be created; the last attempt's failure, without a new one,
     *     for {@link #RETRY_AFTER} after it
     */
    LockManager manager() {
        return manager(System.nanoTime());
    }

    /**
     * The lock manager, with the lock beans created on the first call that finds the database answering. A caller
     * with time left before {@code deadlineNanos} ({@link System#nanoTime()}) waits for an attempt under way, and has
     * one made every {@link #WAITING_RETRY_EVERY} until its deadline while the database does not answer: a lock that
     * waits gets its lock when the database answers within its wait time, not the failure of an attempt made before.
     *
     * @throws RuntimeException why the lock beans could not be created by the deadline: the last attempt's failure
     */
    LockManager manager(long deadlineNanos) {
        while (true) {
            LockManager created = manager;
            if (created != null) {
                return created;
            }
            if (lastFailure == null) {
                LockManager first;
                try {
                    first = createHere();
                } catch (RuntimeException ex) {
                    giveUpOrPause(ex, lastFailureNanos + WAITING_RETRY_EVERY.toNanos(), deadlineNanos);
                    continue;
                }
                if (first != null) {
                    return first;
                }
                continue; // the start's attempt failed while this caller waited for it
            }
            CompletableFuture<LockManager> current;
            RuntimeException failure;
            long nextTry;
            creating.lock();
            try {
                created = manager;
                if (created != null) {
                    return created;
                }
                failure = lastFailure;
                current = attempt;
                long now = System.nanoTime();
                long retryAt =
                        lastFailureNanos + (deadlineNanos - now > 0 ? WAITING_RETRY_EVERY : RETRY_AFTER).toNanos();
                if (current == null && now - retryAt >= 0) {
                    current = startAttempt();
                } else if (current != null && deadlineNanos - now <= 0) {
                    throw failure; // another caller's attempt is under way: one that cannot wait does not wait for it
                }
                nextTry = retryAt;
            } finally {
                creating.unlock();
            }
            if (current != null) {
                try {
                    return await(current, deadlineNanos);
                } catch (RuntimeException ex) {
                    failure = ex;
                    nextTry = lastFailureNanos + WAITING_RETRY_EVERY.toNanos();
                }
            }
            RuntimeException latest = lastFailure;
            giveUpOrPause(latest != null ? latest : failure, nextTry, deadlineNanos);
        }
    }

    /**
     * Throws the failure unless the caller may try again at {@code nextTry}, before its deadline, and sleeps until
     * then: only a database that does not answer may answer later, and a set-up mistake fails every lock at once.
     */
    private static void giveUpOrPause(RuntimeException failure, long nextTry, long deadlineNanos) {
        // An interrupted caller stops at once: it would otherwise spin on an attempt it can no longer wait for.
        if (unreachable(failure) == null
                || nextTry - deadlineNanos > 0
                || Thread.currentThread().isInterrupted()
                || !sleepUntil(nextTry)) {
            throw failure;
        }
    }

    /**
     * The start's attempt (or one of a call before it), on the caller's thread; callers that come meanwhile wait for it,
     * having no failure yet to give. {@code null} if it had been made and failed by the time this caller got to it.
     */
    private @Nullable LockManager createHere() {
        // A lock, not synchronized: creating the beans waits on the database, which would pin a virtual thread.
        creating.lock();
        try {
            LockManager created = manager;
            if (created != null) {
                return created;
            }
            return lastFailure == null ? create() : null;
        } finally {
            creating.unlock();
        }
    }

    /** Starts a new attempt on a thread of its own; the caller holds {@link #creating}. */
    private CompletableFuture<LockManager> startAttempt() {
        CompletableFuture<LockManager> current = new CompletableFuture<>();
        attempt = current;
        Thread thread = new Thread(() -> attempt(current), "bizlock-start");
        thread.setDaemon(true);
        thread.start();
        return current;
    }

    /** Waits for an attempt until the deadline, and at least {@link #NEW_ATTEMPT_WAIT}. */
    private LockManager await(CompletableFuture<LockManager> current, long deadlineNanos) {
        long waitNanos = Math.max(deadlineNanos - System.nanoTime(), NEW_ATTEMPT_WAIT.toNanos());
        try {
            return current.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) ex.getCause();
        } catch (TimeoutException ex) {
            return stillCreating();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return stillCreating();
        }
    }

    /** The lock manager if the attempt the caller stopped waiting for has just created it, else the last failure. */
    private LockManager stillCreating() {
        LockManager created = manager;
        if (created != null) {
            return created;
        }
        RuntimeException latest = lastFailure;
        if (latest == null) {
            throw new IllegalStateException("bizlock's lock set-up did not finish in time");
        }
        throw latest;
    }

    private void attempt(CompletableFuture<LockManager> current) {
        try {
            current.complete(create());
        } catch (RuntimeException ex) {
            current.completeExceptionally(ex);
        } catch (Error ex) {
            current.completeExceptionally(ex);
            throw ex;
        } finally {
            creating.lock();
            try {
                attempt = null;
            } finally {
                creating.unlock();
            }
        }
    }

    /** Creates the lock beans, recording the failure or the lock manager. */
    private LockManager create() {
        try {
            LockManager created = beanFactory.getBean(LockManager.class);
            beanFactory.getBeanProvider(Housekeeper.class).ifAvailable(housekeeper -> {});
            manager = created;
            lastFailure = null;
            return created;
        } catch (RuntimeException ex) {
            lastFailureNanos = System.nanoTime();
            lastFailure = ex;
            throw ex;
        }
    }

    /** Sleeps until {@code nanos} ({@link System#nanoTime()}); {@code false} if interrupted, the interrupt kept. */
    private static boolean sleepUntil(long nanos) {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The lock manager if the lock beans have been created, else {@code null}; never connects. */
    @Nullable
    LockManager createdManager() {
        return manager;
    }

    /** The LEASE table's DAO, with the lock beans created as by {@link #manager()}. */
    LeaseDao dao() {
        manager();
        return beanFactory.getBean(LeaseDao.class);
    }

    /** The lock tables' DAOs, with the lock beans created as by {@link #manager()}. */
    LockDaos daos() {
        manager();
        return beanFactory.getBean(LockDaos.class);
    }

    /**
     * What a lock that could not be created because of the given failure should say: for an unreachable database,
     * where it is and what to check; otherwise the words of the failure bizlock reported (not the bean's wrapping).
     */
    static String whyNotReady(RuntimeException failure) {
        LockDatabaseUnreachableException unreachable = unreachable(failure);
        if (unreachable != null) {
            return unreachable.getMessage() + ". Check " + LockDatabaseUnreachableException.WHAT_TO_CHECK
                    + ". Locks fail, holding nothing, until it answers.";
        }
        Throwable cause = failure;
        while (cause instanceof BeansException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return "bizlock could not set up its locks: " + cause.getMessage();
    }

    private static @Nullable LockDatabaseUnreachableException unreachable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LockDatabaseUnreachableException unreachable) {
                return unreachable;
            }
        }
        return null;
    }
}
