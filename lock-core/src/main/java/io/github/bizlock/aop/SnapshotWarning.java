package io.github.bizlock.aop;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Warns, once per method (or refuses, when asked), when a lock is taken inside a transaction that was open before the call and may keep a
 * snapshot: REPEATABLE READ, named or as the server's default (InnoDB's). If that transaction read anything before the
 * lock, InnoDB fixed its snapshot then, and plain reads under the lock do not see what the previous holder committed.
 * Whether it has read cannot be seen from here, so this warns of the risk rather than of a stale read; a transaction at
 * READ COMMITTED (a snapshot per statement) or SERIALIZABLE (plain reads lock and read the latest rows) is safe.
 */
final class SnapshotWarning {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final Set<Method> warned = ConcurrentHashMap.newKeySet();
    private volatile boolean refuse;

    /** Whether to refuse such a call, before its lock is taken, instead of warning. */
    void refuse(boolean refuse) {
        this.refuse = refuse;
    }

    /**
     * Called before the lock is taken: a transaction active now was begun by the caller, not by the method.
     *
     * @throws IllegalStateException if such calls are refused and this is one
     */
    void beforeLock(LockedMethod locked) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return;
        }
        String isolation = snapshotIsolation(TransactionSynchronizationManager.getCurrentTransactionIsolationLevel());
        if (isolation == null) {
            return;
        }
        String risk = locked.description() + " takes its lock inside a transaction that was open before the call ("
                + isolation + "). If that transaction read anything before the lock, InnoDB fixed its snapshot at"
                + " that read: plain SELECTs under the lock do not see what the previous holder committed, and a"
                + " read-modify-write can lose its update. Take the lock before the transaction begins (put"
                + " @DistributedLock on the method that begins it, or call this method outside it), read with"
                + " SELECT ... FOR UPDATE, or run the transaction at READ COMMITTED"
                + " (@Transactional(isolation = Isolation.READ_COMMITTED))";
        if (refuse) {
            throw new IllegalStateException(risk + ". Refused, not locked, because"
                    + " bizlock.refuse-in-snapshot-transaction=true (DistributedLockAdvisor"
                    + ".setRefuseInSnapshotTransaction(true)).");
        }
        if (warned.add(locked.method())) {
            log.warn(
                    "{}. Logged once per method; bizlock.refuse-in-snapshot-transaction=true refuses such calls.",
                    risk);
        }
    }

    /** The isolation, described, if it keeps a snapshot across statements; {@code null} if not. */
    private static @Nullable String snapshotIsolation(@Nullable Integer level) {
        if (level == null || level == TransactionDefinition.ISOLATION_DEFAULT) {
            return "isolation: the database's default, REPEATABLE READ on InnoDB unless the server sets another";
        }
        if (level == TransactionDefinition.ISOLATION_REPEATABLE_READ) {
            return "isolation: REPEATABLE READ";
        }
        return null;
    }
}
