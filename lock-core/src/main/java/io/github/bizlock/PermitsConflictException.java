package io.github.bizlock;

import java.util.Objects;

/**
 * A lock name was asked for with another number of permits than it is bound to: as a semaphore of N permits when it is
 * bound to another N, or to plain locks; or as a plain lock when it names a semaphore. Every name is bound, for the
 * whole cluster, by its first use: processes that gave one semaphore different numbers of permits would each let in
 * as many holders as they think there are, and a plain lock of a semaphore's name would not count against its
 * permits. Nothing is acquired; the locks and permits of the name held as it is bound are not affected.
 *
 * <p>Not a {@link LockAcquisitionException}: waiting and retrying do not help, the call has to change.
 */
public class PermitsConflictException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final int boundPermits;
    private final int requestedPermits;

    /**
     * @param boundPermits the permits the name is bound to, 0 for a name of plain locks
     * @param requestedPermits the permits the refused call asked for, 0 for a plain lock
     * @param changeStatements the SQL that binds the name to the requested permits, run with every instance stopped
     */
    public PermitsConflictException(String lockName, int boundPermits, int requestedPermits, String changeStatements) {
        super("Lock name '" + lockName + "' is bound to " + describe(boundPermits) + ", but this call asked for "
                + describe(requestedPermits) + ". Processes that disagree on a name's permits would let more holders"
                + " in than either allows, so bizlock binds each name to what its first use asked for, for every"
                + " instance. Use '" + lockName + "' " + (boundPermits == 0 ? "for " : "as ") + describe(boundPermits)
                + " everywhere"
                + (boundPermits > 0 ? " (LockTemplate.acquirePermit(name, key, " + boundPermits + ", ...))" : "")
                + ", or another name; or, to bind it to " + describe(requestedPermits)
                + ", stop every instance that uses"
                + " it, run these statements, and start the instances again with the new number:\n"
                + Objects.requireNonNull(changeStatements, "changeStatements"));
        this.lockName = lockName;
        this.boundPermits = boundPermits;
        this.requestedPermits = requestedPermits;
    }

    private static String describe(int permits) {
        return permits == 0 ? "plain locks" : "a semaphore of " + permits + (permits == 1 ? " permit" : " permits");
    }

    /** The lock name. */
    public String lockName() {
        return lockName;
    }

    /** The permits the name is bound to; 0 when it names plain locks. */
    public int boundPermits() {
        return boundPermits;
    }

    /** The permits the refused call asked for; 0 for a plain lock. */
    public int requestedPermits() {
        return requestedPermits;
    }
}
