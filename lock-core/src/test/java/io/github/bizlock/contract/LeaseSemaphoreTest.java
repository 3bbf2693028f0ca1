package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The semaphore in LEASE mode, and the watchdog's renewal of a permit's lease. */
class LeaseSemaphoreTest extends AbstractSemaphoreTest {

    @Override
    protected LockMode mode() {
        return LockMode.LEASE;
    }

    @Test
    void aPermitHeldPastThreeLeasesStaysHeld(DataSource dataSource) throws Exception {
        try (LockManager manager = ContractManagers.builder(mode(), dataSource, InstanceId.generate())
                .watchdogLease(Duration.ofMillis(900))
                .build()) {
            LockTemplate locks = new DefaultLockTemplate(manager, mode(), Duration.ofSeconds(10), null);
            LockTemplate other = template(dataSource);
            try (PermitHandle permit = locks.acquirePermit(name, "k", 1)) {
                Thread.sleep(3 * 900 + 300);
                assertThat(permit.isHeld()).as("renewed by the watchdog").isTrue();
                Optional<PermitHandle> second = CompletableFuture.supplyAsync(
                                () -> other.tryAcquirePermit(name, "k", 1, Duration.ZERO), ThreadPerTask.EXECUTOR)
                        .join();
                assertThat(second).as("the one permit, still held").isEmpty();
            }
        }
    }
}
