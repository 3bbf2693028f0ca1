package io.github.bizlock.contract;

import io.github.bizlock.LockMode;

/** The semaphore in ROW mode. */
class RowSemaphoreTest extends AbstractSemaphoreTest {

    @Override
    protected LockMode mode() {
        return LockMode.ROW;
    }
}
