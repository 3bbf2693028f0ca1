package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import io.github.bizlock.internal.jdbc.session.WakeProbe;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The LEASE engine's wake locks, below the lock manager: whatever ends a grant or an acquisition gives the key's wake
 * lock back (an acquisition that got no row, a grant found lost at renewal, the engine's close), so that the next
 * acquirer of another process takes the key at once instead of queueing behind a wake lock nobody will release.
 */
@ExtendWith(TestDatabaseExtension.class)
class LeaseEngineWakeLocksTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @Test
    void anAcquisitionThatGetsNoRowGivesTheWakeLockItTookBack(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("engine-wake", "no-row");
        // A holder without a wake-up: the row is held, the wake lock free.
        LeaseLockEngine polling =
                new LeaseLockEngine(LockFixture.dao(dataSource), InstanceId.generate(), Backoff.DEFAULT);
        Grant held = polling.acquire(key, LEASE, 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        try (LeaseLockEngine waking = waking(dataSource)) {
            assertThat(waking.acquire(key, LEASE, 1, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300)))
                    .as("the row stays held")
                    .isNull();

            assertThat(WakeProbe.holder(dataSource, key))
                    .as("the wake lock it took first, given back")
                    .isNull();
        } finally {
            polling.release(held);
        }
    }

    @Test
    void aGrantFoundLostAtRenewalGivesItsWakeLockBack(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("engine-wake", "lost");
        LockDaos daos = LockFixture.daos(dataSource);
        try (LeaseLockEngine waking = waking(dataSource)) {
            Grant grant = waking.acquire(key, LEASE, 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            assertThat(WakeProbe.holder(dataSource, key))
                    .as("held with the row")
                    .isNotNull();
            daos.leases().forceRelease(key);

            assertThat(waking.renew(List.of(grant))).containsOnlyKeys(grant);

            assertThat(WakeProbe.holder(dataSource, key))
                    .as("its waiters need not wait for a re-check")
                    .isNull();
        }
    }

    @Test
    void releasingAllGrantsAtOnceGivesTheirWakeLocksBack(DataSource dataSource) throws Exception {
        LockKey first = new LockKey("engine-wake", "all-1");
        LockKey second = new LockKey("engine-wake", "all-2");
        try (LeaseLockEngine waking = waking(dataSource)) {
            List<Grant> grants = List.of(
                    waking.acquire(first, LEASE, 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(5)),
                    waking.acquire(second, LEASE, 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));

            waking.releaseAll(grants);

            assertThat(WakeProbe.holder(dataSource, first)).isNull();
            assertThat(WakeProbe.holder(dataSource, second)).isNull();
        }
    }

    @Test
    void closingTheEngineFreesTheWakeLocksOfItsGrants(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("engine-wake", "closed");
        LeaseLockEngine waking = waking(dataSource);
        waking.acquire(key, LEASE, 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        assertThat(WakeProbe.holder(dataSource, key)).isNotNull();

        waking.close();

        assertThat(WakeProbe.holder(dataSource, key))
                .as("the wake sessions closed with the engine")
                .isNull();
    }

    @Test
    void releasesAreBoundedByTheEngineItself(DataSource dataSource) {
        // The lock manager runs a bounded release on the unlocking thread, without handing it to its releaser.
        assertThat(new LeaseLockEngine(LockFixture.dao(dataSource), InstanceId.generate(), Backoff.DEFAULT)
                        .boundsRelease())
                .isTrue();
    }

    private static LeaseLockEngine waking(DataSource dataSource) {
        LockDaos daos = LockFixture.daos(dataSource);
        String owner = InstanceId.generate();
        return new LeaseLockEngine(
                daos.leases(),
                owner,
                Backoff.DEFAULT,
                new WakeLocks(daos.dialect(), daos.schema(), SessionLocks.dedicated(dataSource)));
    }
}
