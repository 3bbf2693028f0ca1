package io.github.bizlock.jdbc.named;

import io.github.bizlock.LockMode;
import io.github.bizlock.contract.AbstractLockContractTest;
import io.github.bizlock.contract.ContractManagers;
import io.github.bizlock.core.InstanceId;
import io.github.bizlock.core.LockManager;
import javax.sql.DataSource;

/** The lock contract for NAMED mode. */
class NamedLockContractTest extends AbstractLockContractTest {

    @Override
    protected LockMode mode() {
        return LockMode.NAMED;
    }

    @Override
    protected LockManager newManager(DataSource dataSource) {
        return ContractManagers.builder(LockMode.NAMED, dataSource, InstanceId.generate())
                .build();
    }

    /** 8,000 acquisitions: the server queues waiters, so a smaller run already changes hands thousands of times. */
    @Override
    protected int fuzzIterationsPerThread() {
        return 250;
    }
}
