package io.github.bizlock;

import java.util.Objects;

/**
 * A lock was asked for in another mode than the one its name is bound to. Every lock name is bound to one
 * {@link LockMode}, for the whole cluster, by its first acquisition: locks of different modes never see each other (a
 * LEASE row, a ROW lock and a NAMED lock of one name could all be held at once), so a name used in two modes would let
 * two holders in. Nothing is acquired; the locks of the name held in its bound mode are not affected.
 *
 * <p>Not a {@link LockAcquisitionException}: waiting and retrying do not help, the call's mode has to change.
 */
public class LockModeConflictException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final LockMode boundMode;
    private final LockMode requestedMode;

    /**
     * @param changeStatements the SQL that binds the name to the requested mode, run with every instance stopped
     */
    public LockModeConflictException(
            String lockName, LockMode boundMode, LockMode requestedMode, String changeStatements) {
        super("Lock name '" + lockName + "' is bound to mode " + boundMode + ", but this call asked for "
                + requestedMode + ". Locks of different modes do not exclude each other, so using one name in two"
                + " modes would let two holders in at once; bizlock binds each name to the mode of its first use,"
                + " for every instance. Lock '" + lockName + "' in mode " + boundMode + " everywhere"
                + " (@DistributedLock(mode = ...), LockOptions.mode(...), bizlock.mode), or, to move it to "
                + requestedMode + ", stop every instance that locks it, run these statements, and start the instances"
                + " again with the new mode:\n"
                + Objects.requireNonNull(changeStatements, "changeStatements"));
        this.lockName = lockName;
        this.boundMode = boundMode;
        this.requestedMode = requestedMode;
    }

    /** The lock name ({@code @DistributedLock(name)}). */
    public String lockName() {
        return lockName;
    }

    /** The mode the name is bound to: the mode its locks are held in. */
    public LockMode boundMode() {
        return boundMode;
    }

    /** The mode the refused call asked for. */
    public LockMode requestedMode() {
        return requestedMode;
    }
}
