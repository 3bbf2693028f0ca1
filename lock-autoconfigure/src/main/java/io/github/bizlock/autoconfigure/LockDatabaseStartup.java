package io.github.bizlock.autoconfigure;

import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.Objects;
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
 * fails until the database answers, saying why; nothing runs without its lock. Any other failure (credentials the
 * server refuses, tables missing, a migration the server refuses, a server too old) is a mistake a new attempt would
 * not mend: it fails the start.
 */
final class LockDatabaseStartup implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(LockDatabaseStartup.class);

    /** How long after a failed attempt callers get its failure instead of connecting again. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    /**
     * How long a caller waits for a new attempt after a failed one: what a database that answers needs (as {@link
     * io.github.bizlock.internal.engine.LockEngine#DEADLINE_SLACK}).
     */
    static final Duration NEW_ATTEMPT_WAIT = Duration.ofSeconds(1);

    private final ListableBeanFactory beanFactory;
    private final boolean failFast;
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
     * The lock manager, with the lock beans created on the first call that finds the database answering. The start's
     * attempt runs on the caller's thread; a new one after it failed runs on a thread of its own ({@code
     * bizlock-start}), which the caller waits for at most {@link #NEW_ATTEMPT_WAIT}: a database that takes connections
     * and says nothing would otherwise hold the first lock for the driver's connect timeout. An attempt the caller
     * stopped waiting for goes on, and the lock manager it creates serves the next lock.
     *
     * @throws RuntimeException why they could not be created; the last attempt's failure, without a new one, for
     *     {@link #RETRY_AFTER} after it and while a new attempt is under way
     */
    LockManager manager() {
        LockManager created = manager;
        if (created != null) {
            return created;
        }
        return lastFailure == null ? createHere() : createInBackground();
    }

    /** The start's attempt (or a call before it), on the caller's thread. */
    private LockManager createHere() {
        // A lock, not synchronized: creating the beans waits on the database, which would pin a virtual thread.
        if (!creating.tryLock()) {
            // Another caller is trying the database, which may take the pool's connection timeout while it does not
            // answer: the others fail at once with the last attempt's failure rather than wait behind it.
            RuntimeException failure = lastFailure;
            if (failure != null) {
                throw failure;
            }
            creating.lock();
        }
        try {
            LockManager created = manager;
            if (created != null) {
                return created;
            }
            if (lastFailure == null) {
                return create();
            }
        } finally {
            creating.unlock();
        }
        return createInBackground(); // the start failed while this caller waited for it
    }

    /** A new attempt after a failed one, on a thread of its own; the caller waits for it a bounded time. */
    private LockManager createInBackground() {
        CompletableFuture<LockManager> current;
        RuntimeException failure;
        creating.lock();
        try {
            LockManager created = manager;
            if (created != null) {
                return created;
            }
            failure = Objects.requireNonNull(lastFailure);
            if (attempt != null || System.nanoTime() - lastFailureNanos < RETRY_AFTER.toNanos()) {
                throw failure;
            }
            current = new CompletableFuture<>();
            attempt = current;
            Thread thread = new Thread(() -> attempt(current), "bizlock-start");
            thread.setDaemon(true);
            thread.start();
        } finally {
            creating.unlock();
        }
        try {
            return current.get(NEW_ATTEMPT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) ex.getCause();
        } catch (TimeoutException ex) {
            return stillCreating(failure);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return stillCreating(failure);
        }
    }

    /** The lock manager if the attempt the caller stopped waiting for has just created it, else the last failure. */
    private LockManager stillCreating(RuntimeException before) {
        LockManager created = manager;
        if (created != null) {
            return created;
        }
        RuntimeException latest = lastFailure;
        throw latest != null ? latest : before;
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
