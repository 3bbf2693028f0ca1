package io.github.bizlock.aop;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.PermitHandle;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@link LockLostPolicy#ROLLBACK_ONLY}: a transaction that would commit work done under a lock that has been lost
 * fails to commit with {@link LockLostException} and rolls back.
 *
 * <p>The watchdog notices a loss on its own thread, which cannot touch the holder's transaction. So the check runs
 * on the holder's thread at the last safe point, {@link TransactionSynchronization#beforeCommit}, in every transaction
 * that is open on it while the lock is held: the one active when the lock was taken (registered directly), and those
 * begun while it is held (registered by this class as a {@link TransactionExecutionListener}, which Spring Boot adds
 * to the transaction manager it configures).
 */
public final class RollbackOnLockLost implements TransactionExecutionListener {

    private static final ThreadLocal<Deque<Guard>> GUARDS = new ThreadLocal<>();

    /**
     * Guards the transaction active now, if any, and transactions begun on this thread until the returned guard is
     * closed.
     *
     * @param owner this instance's owner id, for the exception
     */
    static Guard guard(LockHandle lock, String owner) {
        return guard(() -> lock.isHeld()
                ? null
                : lostEvent(lock.name(), lock.key(), lock.mode(), issuedToken(lock::fencingToken), owner));
    }

    /** {@link #guard(LockHandle, String)} for locks taken together: the transaction fails if any of them is lost. */
    static Guard guard(MultiLockHandle locks, String owner) {
        return guard(() -> {
            for (String key : locks.keys()) {
                if (!locks.isHeld(key)) {
                    return lostEvent(
                            locks.name(), key, locks.mode(), issuedToken(() -> locks.fencingToken(key)), owner);
                }
            }
            return null;
        });
    }

    /** {@link #guard(LockHandle, String)} for a semaphore's permit: the lock lost is its slot's. */
    static Guard guard(PermitHandle permit, String owner) {
        return guard(() -> permit.isHeld()
                ? null
                : lostEvent(
                        permit.name(),
                        permit.key() + "#" + permit.slot(),
                        permit.mode(),
                        issuedToken(permit::fencingToken),
                        owner));
    }

    private static Guard guard(Supplier<@Nullable LockLostEvent> lost) {
        Guard guard = new Guard(lost);
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new RollbackIfLost(guard));
        }
        Deque<Guard> guards = GUARDS.get();
        if (guards == null) {
            guards = new ArrayDeque<>();
            GUARDS.set(guards);
        }
        guards.push(guard);
        return guard;
    }

    @Override
    public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
        Deque<Guard> guards = GUARDS.get();
        if (beginFailure != null
                || guards == null
                || guards.isEmpty()
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        for (Guard guard : guards) {
            TransactionSynchronizationManager.registerSynchronization(new RollbackIfLost(guard));
        }
    }

    /** One guarded lock, from its acquisition until the interceptor releases it. */
    static final class Guard implements AutoCloseable {

        /** The event of a lock that is no longer held, or {@code null} while all are. */
        private final Supplier<@Nullable LockLostEvent> lost;

        private volatile boolean released;

        Guard(Supplier<@Nullable LockLostEvent> lost) {
            this.lost = lost;
        }

        /** The lock is about to be released by its holder: commits after this do not concern it. */
        void released() {
            released = true;
        }

        /** Stops guarding transactions begun on this thread from now on. */
        @Override
        public void close() {
            Deque<Guard> guards = GUARDS.get();
            if (guards != null) {
                guards.remove(this);
                if (guards.isEmpty()) {
                    GUARDS.remove();
                }
            }
        }

        void check() {
            if (!released) {
                LockLostEvent event = lost.get();
                if (event != null) {
                    throw new LockLostException(event);
                }
            }
        }
    }

    private static LockLostEvent lostEvent(String name, String key, LockMode mode, long token, String owner) {
        return new LockLostEvent(
                name,
                key,
                mode,
                token,
                owner,
                Thread.currentThread().getName(),
                // The handle only tells that the lock is gone; the holder's unlock reports the real cause.
                LossCause.UNKNOWN,
                "it was lost before the transaction committed, so the transaction is rolled back"
                        + " (onLost = ROLLBACK_ONLY)",
                Instant.now());
    }

    /** The token of a lost lock for its event, or 0 if none was issued before it was lost. */
    private static long issuedToken(LongSupplier token) {
        try {
            return token.getAsLong();
        } catch (LockLostException | IllegalStateException ex) {
            return 0;
        }
    }

    /** Fails the commit of a transaction when its guarded lock has been lost. */
    private static final class RollbackIfLost implements TransactionSynchronization {

        private final Guard guard;

        RollbackIfLost(Guard guard) {
            this.guard = guard;
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }

        @Override
        public void beforeCommit(boolean readOnly) {
            guard.check();
        }
    }
}
