package io.github.bizlock.autoconfigure;

import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
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
 * fails until the database answers, saying why; nothing runs without its lock. Any other failure (credentials the
 * server refuses, tables missing, a migration the server refuses, a server too old) is a mistake a new attempt would
 * not mend: it fails the start.
 */
final class LockDatabaseStartup implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(LockDatabaseStartup.class);

    /** How long after a failed attempt callers get its failure instead of connecting again. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

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
     * The lock manager, with the lock beans created on the first call that finds the database answering.
     *
     * @throws RuntimeException why they could not be created; the last attempt's failure, without a new one, for
     *     {@link #RETRY_AFTER} after it
     */
    LockManager manager() {
        LockManager created = manager;
        if (created != null) {
            return created;
        }
        // A lock, not synchronized: creating the beans waits on the database, which would pin a virtual thread.
        if (!creating.tryLock()) {
            // Another caller is trying the database again, which may take the pool's connection timeout while it does
            // not answer: the others fail at once with the last attempt's failure rather than wait behind it.
            RuntimeException failure = lastFailure;
            if (failure != null) {
                throw failure;
            }
            creating.lock();
        }
        try {
            created = manager;
            if (created != null) {
                return created;
            }
            RuntimeException failure = lastFailure;
            if (failure != null && System.nanoTime() - lastFailureNanos < RETRY_AFTER.toNanos()) {
                throw failure;
            }
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
        } finally {
            creating.unlock();
        }
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
