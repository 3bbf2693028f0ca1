package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockMode;
import io.github.bizlock.contract.AbstractLockContractTest;

/** The lock contract for ROW mode. */
class RowLockContractTest extends AbstractLockContractTest {

    @Override
    protected LockMode mode() {
        return LockMode.ROW;
    }

    /** 8,000 acquisitions: the server queues waiters, so a smaller run already changes hands thousands of times. */
    @Override
    protected int fuzzIterationsPerThread() {
        return 250;
    }
}
