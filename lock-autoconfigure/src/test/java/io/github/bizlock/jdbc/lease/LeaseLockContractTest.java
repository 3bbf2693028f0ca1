package io.github.bizlock.jdbc.lease;

import io.github.bizlock.LockMode;
import io.github.bizlock.contract.AbstractLockContractTest;
import io.github.bizlock.contract.ContractManagers;
import io.github.bizlock.core.InstanceId;
import io.github.bizlock.core.LockManager;
import javax.sql.DataSource;

/** The lock contract for LEASE mode. */
class LeaseLockContractTest extends AbstractLockContractTest {

    @Override
    protected LockMode mode() {
        return LockMode.LEASE;
    }

    @Override
    protected LockManager newManager(DataSource dataSource) {
        return ContractManagers.builder(LockMode.LEASE, dataSource, InstanceId.generate())
                .build();
    }
}
