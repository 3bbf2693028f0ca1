package io.github.bizlock.autoconfigure;

import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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

    private final ListableBeanFactory beanFactory;
    private final boolean failFast;
    private final ReentrantLock creating = new ReentrantLock();
    private volatile @Nullable LockManager manager;
    private volatile @Nullable RuntimeException lastFailure;
    private long lastFailureNanos;

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
     * with time left before {@code deadlineNanos} ({@link System#nanoTime()}) waits for another caller's attempt, and
     * tries again every {@link #WAITING_RETRY_EVERY} until its deadline while the database does not answer: a lock that
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
            RuntimeException failure;
            if (!enter(deadlineNanos)) {
                // Another caller's attempt outlasted this caller's wait: it gets the failure that attempt follows.
                failure = lastFailure;
                if (failure != null) {
                    throw failure;
                }
                creating.lock(); // the first attempt, at start-up, has no failure yet to give
            }
            long nextTry;
            try {
                created = manager;
                if (created != null) {
                    return created;
                }
                failure = lastFailure;
                long now = System.nanoTime();
                if (failure == null || now - retryAt(deadlineNanos, now) >= 0) {
                    try {
                        return create();
                    } catch (RuntimeException ex) {
                        failure = ex;
                    }
                }
                nextTry = lastFailureNanos + WAITING_RETRY_EVERY.toNanos();
            } finally {
                creating.unlock();
            }
            // Only a database that does not answer may answer later: a set-up mistake fails every lock at once.
            if (unreachable(failure) == null || nextTry - deadlineNanos > 0 || !sleepUntil(nextTry)) {
                throw failure;
            }
        }
    }

    /** When a caller with the given deadline may try again after the last failure. */
    private long retryAt(long deadlineNanos, long now) {
        Duration after = deadlineNanos - now > 0 ? WAITING_RETRY_EVERY : RETRY_AFTER;
        return lastFailureNanos + after.toNanos();
    }

    /**
     * Takes the right to try, waiting for another caller's attempt until {@code deadlineNanos} at most: an attempt
     * may take the pool's connection timeout while the database does not answer, and callers that cannot wait fail
     * with the last failure rather than wait behind it.
     */
    private boolean enter(long deadlineNanos) {
        if (creating.tryLock()) {
            return true;
        }
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        try {
            return creating.tryLock(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Creates the lock beans, holding {@link #creating}; a failure is kept for the callers after. */
    private LockManager create() {
        LockManager created;
        try {
            created = beanFactory.getBean(LockManager.class);
            beanFactory.getBeanProvider(Housekeeper.class).ifAvailable(housekeeper -> {});
        } catch (RuntimeException ex) {
            lastFailure = ex;
            lastFailureNanos = System.nanoTime();
            throw ex;
        }
        lastFailure = null;
        manager = created;
        return created;
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

    /** The DAO, with the lock beans created as by {@link #manager()}. */
    BizLockDao dao() {
        manager();
        return beanFactory.getBean(BizLockDao.class);
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
