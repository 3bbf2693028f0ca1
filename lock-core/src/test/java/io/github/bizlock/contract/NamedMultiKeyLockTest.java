package io.github.bizlock.contract;

import io.github.bizlock.LockMode;

/** The multi-key lock in NAMED mode. */
class NamedMultiKeyLockTest extends AbstractMultiKeyLockTest {

    @Override
    protected LockMode mode() {
        return LockMode.NAMED;
    }
}
