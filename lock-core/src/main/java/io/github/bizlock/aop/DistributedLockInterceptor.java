package io.github.bizlock.aop;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.annotation.DistributedLock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs {@code @DistributedLock} methods holding their lock. The lock is released when the method returns or throws,
 * or, when the call runs inside a transaction that was active before it, when that transaction completes.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final Supplier<LockTemplate> lockTemplate;
    private final LockedMethodResolver methods;
    private final LockKeyEvaluator keys;
    private final SnapshotWarning snapshotWarning = new SnapshotWarning();

    DistributedLockInterceptor(
            Supplier<LockTemplate> lockTemplate, LockedMethodResolver methods, LockKeyEvaluator keys) {
        this.lockTemplate = lockTemplate;
        this.methods = methods;
        this.keys = keys;
    }

    /** Whether to refuse a call inside a transaction whose snapshot may predate the lock, instead of warning. */
    void refuseInSnapshotTransaction(boolean refuse) {
        snapshotWarning.refuse(refuse);
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : null;
        Optional<LockedMethod> found = methods.resolve(invocation.getMethod(), targetClass);
        if (found.isEmpty()) {
            return invocation.proceed();
        }
        LockedMethod locked = found.get();
        @Nullable Object[] args = invocation.getArguments();
        Object bean = Objects.requireNonNull(target, "target");
        @Nullable
        List<String> keyList = locked.locksSeveralKeys()
                ? keys.evaluateEach(locked.method(), locked.keysExpressions(), bean, args)
                : null;
        String key = keyList != null
                ? keyList.toString()
                : keys.evaluate(locked.method(), locked.keyExpressions(), bean, args, DistributedLock.DEFAULT_KEY);
        snapshotWarning.beforeLock(locked);
        LockTemplate locks = lockTemplate.get();
        boolean rollbackOnly = locks.onLost(locked.options()) == LockLostPolicy.ROLLBACK_ONLY;
        Held held;
        if (keyList != null) {
            Optional<MultiLockHandle> acquired = locks.tryAcquireAll(locked.name(), keyList, locked.options());
            if (acquired.isEmpty()) {
                return notAcquired(locked, key, target, args);
            }
            MultiLockHandle lock = acquired.get();
            held = new Held(
                    lock::unlock,
                    lock.name() + "/" + lock.keys(),
                    rollbackOnly ? RollbackOnLockLost.guard(lock, locks.instanceId()) : null);
        } else if (locked.permits() > 0) {
            Optional<PermitHandle> acquired =
                    locks.tryAcquirePermit(locked.name(), key, locked.permits(), locked.options());
            if (acquired.isEmpty()) {
                return notAcquired(locked, key, target, args);
            }
            PermitHandle permit = acquired.get();
            held = new Held(
                    permit::unlock,
                    permit.name() + "/" + permit.key() + " (permit " + permit.slot() + ")",
                    rollbackOnly ? RollbackOnLockLost.guard(permit, locks.instanceId()) : null);
        } else {
            Optional<LockHandle> acquired = locks.tryAcquire(locked.name(), key, locked.options());
            if (acquired.isEmpty()) {
                return notAcquired(locked, key, target, args);
            }
            LockHandle lock = acquired.get();
            held = new Held(
                    lock::unlock,
                    lock.name() + "/" + lock.key(),
                    rollbackOnly ? RollbackOnLockLost.guard(lock, locks.instanceId()) : null);
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable ex) {
            releaseAfterFailure(held, ex);
            throw ex;
        } finally {
            if (held.guard() != null) {
                held.guard().close();
            }
        }
        release(held);
        return result;
    }

    private @Nullable Object notAcquired(LockedMethod locked, String key, Object target, @Nullable Object[] args)
            throws Throwable {
        switch (locked.onFailure()) {
            case SKIP -> {
                log.debug(
                        "{}: lock {}/{} is held elsewhere; skipped the call", locked.description(), locked.name(), key);
                return locked.returnsOptional() ? Optional.empty() : null;
            }
            case FALLBACK -> {
                Method fallback = Objects.requireNonNull(locked.fallback());
                try {
                    return fallback.invoke(target, args);
                } catch (InvocationTargetException ex) {
                    throw ex.getTargetException();
                }
            }
            default -> {
                var wait = locked.options().waitTime();
                throw new LockAcquisitionException(
                        locked.name(),
                        key,
                        locked.description()
                                + (locked.permits() > 0
                                        ? ": no permit of semaphore " + locked.name() + "/" + key + " ("
                                                + locked.permits() + " permits) was free"
                                        : ": lock " + locked.name() + "/" + key + " is held elsewhere and was not"
                                                + " acquired")
                                + " within "
                                + (wait != null ? wait.toString() : "the default wait time (bizlock.wait-time)"),
                        null);
            }
        }
    }

    private static void release(Held held) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new ReleaseAfterCompletion(held));
        } else {
            held.release();
        }
    }

    private static void releaseAfterFailure(Held held, Throwable failure) {
        try {
            release(held);
        } catch (RuntimeException ex) {
            failure.addSuppressed(ex);
        }
    }

    /**
     * What a call holds: one lock or several taken together.
     *
     * @param unlock releases it
     * @param lock its name and key or keys, for messages
     * @param guard its {@code ROLLBACK_ONLY} guard, if the policy is that
     */
    private record Held(Runnable unlock, String lock, RollbackOnLockLost.@Nullable Guard guard) {

        void release() {
            if (guard != null) {
                guard.released();
            }
            unlock.run();
        }
    }

    /** Releases a lock once the transaction that was active around the locked call has committed or rolled back. */
    private static final class ReleaseAfterCompletion implements TransactionSynchronization {

        private final Held held;

        ReleaseAfterCompletion(Held held) {
            this.held = held;
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }

        @Override
        public void afterCompletion(int status) {
            try {
                held.release();
            } catch (LockLostException ex) {
                log.warn("{}", ex.getMessage());
            } catch (RuntimeException ex) {
                log.error("bizlock could not release lock {} after the transaction ended", held.lock(), ex);
            }
        }
    }
}
