package io.github.bizlock;

/**
 * What happens to the work running under a lock when the lock is lost while held (its lease ended or was taken over,
 * or its session died). Whatever the policy, the loss is logged, counted and published as a {@link LockLostEvent}.
 */
public enum LockLostPolicy {

    /** Only report the loss; the work runs on, and {@link LockHandle#unlock()} throws {@link LockLostException}. */
    LOG,

    /**
     * Also interrupt the thread that holds the lock, so blocking calls in the work (I/O on interruptible channels,
     * {@code Thread.sleep}, {@code BlockingQueue.take}) end early with an {@link InterruptedException}.
     */
    INTERRUPT,

    /**
     * Also roll back the transaction the locked {@code @DistributedLock} method runs in: its commit fails with
     * {@link LockLostException} and the transaction rolls back. Applies to the transaction that is active when the
     * lock is taken and to transactions begun while it is held (through a transaction manager that Spring Boot
     * configures, which registers bizlock's listener); work outside a transaction behaves as with {@link #LOG}.
     */
    ROLLBACK_ONLY
}
