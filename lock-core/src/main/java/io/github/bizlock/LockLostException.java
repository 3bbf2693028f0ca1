package io.github.bizlock;

/**
 * Thrown by {@link LockHandle#unlock()} when the lease ended or was taken over while the lock was held: another
 * process may have held the lock at the same time. The local hold is released all the same.
 */
public class LockLostException extends IllegalMonitorStateException {

    private static final long serialVersionUID = 1L;

    private final transient LockLostEvent event;

    public LockLostException(LockLostEvent event) {
        super("Lock " + event.name() + "/" + event.key() + " (" + event.mode() + ", fencing token "
                + event.fencingToken() + ") was lost before unlock: " + event.reason()
                + ". Work done under it may have overlapped with another holder; check fencing tokens in guarded"
                + " writes, or use a longer lease / the watchdog");
        this.event = event;
    }

    public LockLostEvent event() {
        return event;
    }
}
