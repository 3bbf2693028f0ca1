package io.github.bizlock.internal.lock;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;

/** One read acquisition: the key's {@link ReadShares.Share} and this thread's hold of the shared read grant. */
final class ReadLockHandle implements LockHandle {

    private final ReadShares shares;
    final ReadShares.Share share;
    final Hold hold;
    volatile boolean unlocked;

    /** Whether the fencing token was read for this handle; guarded by the grant's token lock. */
    boolean tokenRead;

    ReadLockHandle(ReadShares shares, ReadShares.Share share, Hold hold) {
        this.shares = shares;
        this.share = share;
        this.hold = hold;
    }

    @Override
    public String name() {
        return share.id.key().name();
    }

    @Override
    public String key() {
        return share.id.key().key();
    }

    @Override
    public LockMode mode() {
        return share.id.mode();
    }

    @Override
    public LockAccess access() {
        return LockAccess.READ;
    }

    @Override
    public long fencingToken() {
        return shares.fencingToken(this);
    }

    @Override
    public boolean isHeld() {
        return !unlocked && hold.heldGrant.isValid();
    }

    @Override
    public void unlock() {
        shares.unlock(this);
    }

    @Override
    public void close() {
        unlock();
    }

    @Override
    public String toString() {
        return "LockHandle[" + mode() + " read " + share.id.key() + ", " + (isHeld() ? "held" : "not held") + "]";
    }
}
