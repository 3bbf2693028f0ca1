package io.github.bizlock.contract;

import io.github.bizlock.LockMode;

/** The multi-key lock in ROW mode. */
class RowMultiKeyLockTest extends AbstractMultiKeyLockTest {

    @Override
    protected LockMode mode() {
        return LockMode.ROW;
    }
}
