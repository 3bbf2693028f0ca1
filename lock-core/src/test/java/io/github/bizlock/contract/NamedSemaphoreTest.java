package io.github.bizlock.contract;

import io.github.bizlock.LockMode;

/** The semaphore in NAMED mode. */
class NamedSemaphoreTest extends AbstractSemaphoreTest {

    @Override
    protected LockMode mode() {
        return LockMode.NAMED;
    }
}
