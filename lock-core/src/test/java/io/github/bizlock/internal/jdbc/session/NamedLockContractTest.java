package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LockMode;
import io.github.bizlock.contract.AbstractLockContractTest;

/** The lock contract for NAMED mode. */
class NamedLockContractTest extends AbstractLockContractTest {

    @Override
    protected LockMode mode() {
        return LockMode.NAMED;
    }

    /** 8,000 acquisitions: the server queues waiters, so a smaller run already changes hands thousands of times. */
    @Override
    protected int fuzzIterationsPerThread() {
        return 250;
    }
}
