package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.contract.LockWorker;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * R2: a holder killed with SIGKILL keeps the lock until its lease ends in database time, and not a moment longer than
 * lease plus a small margin.
 */
@ExtendWith(TestDatabaseExtension.class)
class LeaseCrashTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    @Tag("cross-jvm")
    @Test
    void killedHolderIsTakenOverAfterItsLeaseAndNotBefore(TestDatabase database) throws Exception {
        LockFixture.createSchema(database.dataSource());
        LockKey key = new LockKey("crash", "1");
        LeaseDao dao = LockFixture.dao(database.dataSource());
        try (LockManager survivor = LockFixture.manager(database.dataSource()).build();
                ChildJvm child = LockWorker.start(
                        database,
                        List.of(),
                        "hold",
                        LockMode.LEASE.name(),
                        key.name(),
                        key.key(),
                        String.valueOf(LEASE.toMillis()))) {
            long childToken = Long.parseLong(
                    child.await("ACQUIRED", Duration.ofSeconds(60)).split(" ")[1]);
            child.kill();
            long killed = System.nanoTime();

            // The dead holder's last lease, in database time; nobody renews it any more.
            LockRow dead = LeaseTestSupport.row(dao, key);
            assertThat(dead.fencingToken()).isEqualTo(childToken);
            assertThat(survivor.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                    .as("still held right after the kill: the lease has not ended")
                    .isEmpty();

            Optional<LockHandle> taken = Optional.empty();
            while (taken.isEmpty()
                    && System.nanoTime() - killed < LEASE.plusSeconds(2).toNanos()) {
                taken = survivor.tryAcquire(key, LockMode.LEASE, Duration.ofMillis(200), null);
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - killed);
            assertThat(taken).as("taken over within lease + margin").isPresent();
            assertThat(waited).isLessThan(LEASE.plusSeconds(1));
            LockRow now = LeaseTestSupport.row(dao, key);
            assertThat(now.owner()).isEqualTo(survivor.instanceId());
            assertThat(now.acquiredAt())
                    .as("taken over only once the dead holder's lease had ended, by the database clock")
                    .isAfterOrEqualTo(dead.expiresAt());
            assertThat(taken.get().fencingToken()).isGreaterThan(childToken);
            taken.get().unlock();
        }
    }
}
