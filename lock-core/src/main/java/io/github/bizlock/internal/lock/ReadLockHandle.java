package io.github.bizlock.internal.lock;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;

/** One read acquisition: the key's {@link ReadShare} and this thread's hold of the shared read grant. */
final class ReadLockHandle implements LockHandle {

    private final ReadShareReleases releases;
    final ReadShare share;
    final Hold hold;
    volatile boolean unlocked;

    /** Whether the fencing token was read for this handle; guarded by the grant's token lock. */
    boolean tokenRead;

    ReadLockHandle(ReadShareReleases releases, ReadShare share, Hold hold) {
        this.releases = releases;
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

    /** The last write lock's token, as the grant brought it or the engine reads it on the first call. */
    @Override
    public long fencingToken() {
        HeldGrant held = hold.heldGrant;
        held.tokenLock.lock();
        try {
            long token = hold.token();
            if (token != 0 || tokenRead) {
                return token;
            }
            if (unlocked) {
                throw new IllegalStateException("Read lock " + share.id.key() + " was unlocked before its"
                        + " fencing token was asked for; ask while holding the lock");
            }
            if (!held.isValid()) {
                throw releases.lostException(hold);
            }
            token = held.tokensOnDemand()
                    ? held.engine().issueTokens(held.grant(), 1)
                    : held.grant().fencingToken();
            hold.token(token);
            tokenRead = true;
            return token;
        } finally {
            held.tokenLock.unlock();
        }
    }

    @Override
    public boolean isHeld() {
        return !unlocked && hold.heldGrant.isValid();
    }

    @Override
    public void unlock() {
        releases.unlock(this);
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
