package io.github.bizlock.service;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * The public faces of {@link LockService} around a lock manager a test built itself (with its own engines, watchdog
 * lease or clock), for the Actuator tests that read them.
 */
public final class TestServices {

    private TestServices() {}

    /** A service around the manager; closing it closes the manager. */
    public static LockService of(LockManager manager, LockDaos dao) {
        // Never used: the manager's engines have their DAO and its connections already.
        DataSource unused = new SimpleDriverDataSource();
        return new LockService(
                manager,
                new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ZERO, null, LockLostPolicy.LOG),
                new BizLockDao(dao),
                null,
                LockWriteConnections.choose(unused, unused, null, 1));
    }

    /** The public observer as the lock manager's. */
    public static io.github.bizlock.internal.lock.LockObserver observer(LockObserver observer) {
        return new ObserverAdapter(observer);
    }
}
