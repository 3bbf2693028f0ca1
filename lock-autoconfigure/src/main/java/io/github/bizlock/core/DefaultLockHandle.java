package io.github.bizlock.core;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;

/** One acquisition: the gate it holds and the lease it shares with the other handles of the same hold. */
final class DefaultLockHandle implements LockHandle {

    private final LockManager manager;
    final KeyGate gate;
    final HeldLease lease;
    volatile boolean unlocked;

    DefaultLockHandle(LockManager manager, KeyGate gate, HeldLease lease) {
        this.manager = manager;
        this.gate = gate;
        this.lease = lease;
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
        return lease.grant().fencingToken();
    }

    @Override
    public boolean isHeld() {
        return !unlocked && lease.isValid();
    }

    @Override
    public void unlock() {
        manager.unlock(this);
    }

    @Override
    public void close() {
        unlock();
    }

    @Override
    public String toString() {
        return "LockHandle[" + mode() + " " + gate.id.key() + ", token " + fencingToken() + ", "
                + (isHeld() ? "held" : "not held") + "]";
    }
}
