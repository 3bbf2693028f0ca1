package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.CountingDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** R3: the watchdog keeps a short lease alive for as long as the holder runs, and only then. */
@LockTest
class LeaseRenewalTest {

    /**
     * Short, so the hold outlasts several leases, but not so short that a watchdog thread starved for a second by a
     * busy machine loses it: renewed every third of it, the lease survives a renewal late by up to 3.3 s.
     */
    private static final Duration LEASE = Duration.ofSeconds(5);

    private static final Duration HOLD = Duration.ofSeconds(12);
    private static final LockKey KEY = new LockKey("renewal", "1");

    @Test
    @Tag("slow")
    void watchdogKeepsAFiveSecondLeaseForTwelveSeconds(DataSource dataSource) throws Exception {
        LeaseDao dao = LockFixture.dao(dataSource);
        try (LockManager holder =
                        LockFixture.manager(dataSource).watchdogLease(LEASE).build();
                LockManager other = LockFixture.manager(dataSource).build()) {
            LockHandle handle =
                    holder.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            LockRow acquired = LeaseTestSupport.row(dao, KEY);
            assertThat(Duration.between(acquired.acquiredAt(), acquired.expiresAt()))
                    .isEqualTo(LEASE);
            assertThat(holder.renewedCount()).isEqualTo(1);

            long end = System.nanoTime() + HOLD.toNanos();
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
                    .isGreaterThan(HOLD.minus(LEASE));

            handle.unlock();
            assertThat(holder.renewedCount()).isZero();
            // A single attempt without waiting: it succeeds only if the release freed the row, not its lease's end.
            Optional<LockHandle> next = other.tryAcquire(KEY, LockMode.LEASE, Duration.ZERO, null);
            assertThat(next).as("free at once after the release").isPresent();
            assertThat(next.get().fencingToken()).isGreaterThan(handle.fencingToken());
            next.get().unlock();
        }
    }

    @Test
    void renewsUpToAHundredLocksPerStatement(DataSource dataSource) throws Exception {
        List<Integer> batches = new CopyOnWriteArrayList<>();
        String perLock = "(biz_type = ? AND biz_id = ? AND fencing_token = ?)";
        DataSource observed = CountingDataSource.observing(dataSource, sql -> {
            if (sql.strip().startsWith("UPDATE") && sql.contains("expire_at") && sql.contains(perLock)) {
                batches.add(sql.split(java.util.regex.Pattern.quote(perLock), -1).length - 1);
            }
        });
        try (LockManager holder = LockFixture.manager(LockFixture.daos(observed), InstanceId.generate())
                // Renewed every second: two rounds come soon, and a watchdog late by up to 2 s on a busy machine loses
                // nothing.
                .watchdogLease(Duration.ofSeconds(3))
                .build()) {
            for (int i = 0; i < 250; i++) {
                assertThat(holder.tryAcquire(new LockKey("batched", "k" + i), LockMode.LEASE, Duration.ZERO, null))
                        .isPresent();
            }
            batches.clear();
            Await.until(
                    "two rounds of renewals of all 250 locks",
                    Duration.ofSeconds(30),
                    () -> batches.stream().mapToInt(Integer::intValue).sum() >= 500);
            assertThat(batches)
                    .as("locks per renewal statement")
                    .allMatch(size -> size <= 100)
                    .contains(100);
            // Closing the manager leaves the rows to their leases: this test is about renewals, not releases.
        }
    }
}
