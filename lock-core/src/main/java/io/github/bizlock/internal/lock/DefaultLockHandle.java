package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;

/** One acquisition: the gate it holds and the hold it shares with the other handles of the same (reentrant) hold. */
final class DefaultLockHandle implements LockHandle {

    private final Holds holds;
    private final FencingTokens fencingTokens;
    final Gate gate;
    final Hold hold;
    volatile boolean unlocked;

    DefaultLockHandle(Holds holds, FencingTokens fencingTokens, Gate gate, Hold hold) {
        this.holds = holds;
        this.fencingTokens = fencingTokens;
        this.gate = gate;
        this.hold = hold;
    }

    @Override
    public String name() {
        return gate.id.key().name();
    }

    @Override
    public String key() {
        return gate.id.key().key();
    }

    @Override
    public LockMode mode() {
        return gate.id.mode();
    }

    @Override
    public long fencingToken() {
        return fencingTokens.fencingToken(this);
    }

    @Override
    public boolean isHeld() {
        return !unlocked && hold.heldGrant.hold() == hold && hold.heldGrant.isValid();
    }

    @Override
    public void unlock() {
        holds.unlock(this);
    }

    @Override
    public void close() {
        unlock();
    }

    @Override
    public String toString() {
        long token = hold.token();
        return "LockHandle[" + mode() + " " + gate.id.key() + ", " + (token != 0 ? "token " + token : "no token yet")
                + ", " + (isHeld() ? "held" : "not held") + "]";
    }
}
