package io.github.bizlock;

/**
 * Why a held lock was lost: the {@link LockLostEvent#cause() cause} of a {@link LockLostEvent} and the {@code cause}
 * tag of the {@code bizlock.lost} meter. Whatever the cause, another holder may have run at the same time from some
 * point on; fencing tokens tell its writes from the lost holder's.
 */
public enum LossCause {

    /**
     * Its lease ended while it was held: the watchdog could not renew it in time (the database did not answer), or a
     * fixed lease time ran out. From then on another owner may take it. LEASE.
     */
    LEASE_EXPIRED,

    /** Another owner, or a later acquisition, holds it in the database: it was taken over after its lease ended. LEASE. */
    TAKEN_OVER,

    /**
     * Someone other than its holder freed or deleted it in the database: a force release through the {@code bizlocks}
     * endpoint, or a change by hand. LEASE.
     */
    REMOVED,

    /**
     * The database session that held it ended (killed, closed, reconnected, the server restarted), and the server
     * freed the lock with it. ROW and NAMED.
     */
    SESSION_ENDED,

    /**
     * Whether the database still holds it could not be checked: its session did not answer a heartbeat in time. The
     * server may still hold it for that session until it drops the session. ROW and NAMED.
     */
    UNREACHABLE,

    /**
     * The application shut down before its holder unlocked it, after the shutdown's grace period: bizlock released it
     * so that other instances need not wait for its lease or session to end. Every mode.
     */
    SHUTDOWN,

    /**
     * Its holder thread ended without unlocking it (it died of an exception or {@code Error} that skipped the unlock, a
     * virtual thread finished), so nobody could unlock it any more: bizlock released it rather than renew it for the life
     * of the process. A lock handed from one thread of this process to the next is not its holder's, and stays. Every
     * mode.
     */
    ABANDONED,

    /** Not known: the event was made by code that found the lock lost without being told why. */
    UNKNOWN
}
