package io.github.bizlock.contract;

import io.github.bizlock.LockMode;

/** The semaphore in LEASE mode. */
class LeaseSemaphoreTest extends AbstractSemaphoreTest {

    @Override
    protected LockMode mode() {
        return LockMode.LEASE;
    }
}
