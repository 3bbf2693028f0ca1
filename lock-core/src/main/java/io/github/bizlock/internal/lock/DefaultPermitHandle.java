package io.github.bizlock.internal.lock;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.internal.engine.LockKey;

/** A permit {@link Permits} took: the handle of its slot's lock, which does the work. */
final class DefaultPermitHandle implements PermitHandle {

    private final LockKey semaphore;
    private final int permits;
    private final int slot;
    private final LockHandle slotLock;

    DefaultPermitHandle(LockKey semaphore, int permits, int slot, LockHandle slotLock) {
        this.semaphore = semaphore;
        this.permits = permits;
        this.slot = slot;
        this.slotLock = slotLock;
    }

    @Override
    public String name() {
        return semaphore.name();
    }

    @Override
    public String key() {
        return semaphore.key();
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public int slot() {
        return slot;
    }

    @Override
    public LockMode mode() {
        return slotLock.mode();
    }

    @Override
    public long fencingToken() {
        return slotLock.fencingToken();
    }

    @Override
    public boolean isHeld() {
        return slotLock.isHeld();
    }

    @Override
    public void unlock() {
        slotLock.unlock();
    }

    @Override
    public void close() {
        unlock();
    }

    @Override
    public String toString() {
        return "PermitHandle[" + mode() + " " + semaphore + ", slot " + slot + " of " + permits
                + (isHeld() ? "" : ", not held") + "]";
    }
}
