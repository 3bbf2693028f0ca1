package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** R3: the watchdog keeps a short lease alive for as long as the holder runs, and only then. */
@ExtendWith(TestDatabaseExtension.class)
class LeaseRenewalTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final LockKey KEY = new LockKey("renewal", "1");

    @Test
    void watchdogKeepsATwoSecondLeaseForTenSeconds(DataSource dataSource) throws Exception {
        LockFixture.createSchema(dataSource);
        BizLockDao dao = LockFixture.dao(dataSource);
        try (LockManager holder =
                        LockFixture.manager(dataSource).watchdogLease(LEASE).build();
                LockManager other = LockFixture.manager(dataSource).build()) {
            LockHandle handle =
                    holder.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            LockRow acquired = LeaseTestSupport.row(dao, KEY);
            assertThat(Duration.between(acquired.acquiredAt(), acquired.expiresAt()))
                    .isEqualTo(LEASE);
            assertThat(holder.renewedCount()).isEqualTo(1);

            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            int attempts = 0;
            while (System.nanoTime() < end) {
                assertThat(other.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null))
                        .as("attempt %d by another manager", attempts)
                        .isEmpty();
                assertThat(handle.isHeld()).isTrue();
                LockRow row = LeaseTestSupport.row(dao, KEY);
                assertThat(row.held()).isTrue();
                assertThat(row.owner()).isEqualTo(holder.instanceId());
                assertThat(row.fencingToken()).isEqualTo(handle.fencingToken());
                // The lease really is short: it never reaches further than one lease ahead of the database clock.
                assertThat(Duration.between(dao.databaseTime(), row.expiresAt()))
                        .isLessThanOrEqualTo(LEASE);
                attempts++;
                Thread.sleep(200);
            }
            LockRow renewed = LeaseTestSupport.row(dao, KEY);
            assertThat(renewed.acquiredAt()).isEqualTo(acquired.acquiredAt());
            assertThat(Duration.between(acquired.expiresAt(), renewed.expiresAt()))
                    .as("renewed past the first lease by about the hold time")
                    .isGreaterThan(Duration.ofSeconds(7));

            handle.unlock();
            assertThat(holder.renewedCount()).isZero();
            long released = System.nanoTime();
            Optional<LockHandle> next = other.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null);
            assertThat(next).as("free at once after the release").isPresent();
            assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(1));
            assertThat(next.get().fencingToken()).isGreaterThan(handle.fencingToken());
            next.get().unlock();
        }
    }
}
