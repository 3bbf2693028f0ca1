package io.github.bizlock.internal.jdbc.lease;

import io.github.bizlock.LockMode;
import io.github.bizlock.contract.AbstractLockContractTest;

/** The lock contract for LEASE mode. */
class LeaseLockContractTest extends AbstractLockContractTest {

    @Override
    protected LockMode mode() {
        return LockMode.LEASE;
    }
}
