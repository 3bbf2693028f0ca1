package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 30 item 5: an acquisition that timed out may still commit on the server (it waited behind a row lock, a
 * semi-synchronous commit, a Galera stall). Its row then names this instance for the whole lease, with nobody holding
 * it. Such a key is in doubt, and the instance frees it in the background while it holds no grant of it.
 */
@LockTest
class LeaseInDoubtTest {

    private static final Duration HOUR = Duration.ofHours(1);

    @Test
    void anAcquisitionThatTimedOutButCommittedLaterIsFreedInTheBackground(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("in-doubt", "1");
        try (LockManager timedOut = LockFixture.manager(dataSource).build();
                LockManager next = LockFixture.manager(LockFixture.daos(dataSource), InstanceId.generate())
                        .build()) {
            timedOut.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock(); // the row exists

            long millis = timeOutBehindARowLock(dataSource, timedOut, key);
            // The statement's deadline is the wait and 1 s of slack; it is cut off by its read timeout there.
            assertThat(millis).as("the acquisition ended at its deadline").isLessThan(3000);

            Optional<LockHandle> other = next.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(2), null);
            assertThat(other)
                    .as("the row the timed-out acquisition committed is freed: another owner gets the key")
                    .isPresent();
            other.get().unlock();
        }
    }

    @Test
    void anInDoubtKeyThisInstanceAcquiresAgainIsTakenBackWithANewTokenAndNotFreedWhileHeld(DataSource dataSource)
            throws Exception {
        LockKey key = new LockKey("in-doubt", "2");
        java.util.List<io.github.bizlock.LockLostEvent> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (LockManager timedOut = LockFixture.manager(dataSource).build()) {
            timedOut.addListener(lost::add);
            timedOut.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            timeOutBehindARowLock(dataSource, timedOut, key);
            long committedToken =
                    LeaseTestSupport.row(LockFixture.dao(dataSource), key).fencingToken();

            try (LockHandle again = timedOut.tryAcquire(key, LockMode.LEASE, Duration.ofSeconds(5), null)
                    .orElseThrow()) {
                assertThat(again.fencingToken()).isGreaterThanOrEqualTo(committedToken);
                // Several background passes run meanwhile (one every 250 ms): none may free a key held here.
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4 * InDoubtKeys.PASS_MILLIS);
                while (System.nanoTime() - until < 0) {
                    var row = LeaseTestSupport.row(LockFixture.dao(dataSource), key);
                    assertThat(row.owner()).isEqualTo(timedOut.instanceId());
                    assertThat(row.held()).isTrue();
                    Thread.sleep(50);
                }
                assertThat(again.isHeld()).isTrue();
            }
            assertThat(lost)
                    .as("no loss: the grant was never freed under its holder")
                    .isEmpty();
        }
    }

    /**
     * An acquisition with a 1 h lease times out behind a row lock, then commits when the lock is let go.
     *
     * @return how long the acquisition took, in milliseconds
     */
    private static long timeOutBehindARowLock(DataSource dataSource, LockManager manager, LockKey key)
            throws Exception {
        try (Connection blocker = dataSource.getConnection()) {
            blocker.setAutoCommit(false);
            try (PreparedStatement lockRow =
                    blocker.prepareStatement("SELECT * FROM biz_lock WHERE biz_type = ? AND biz_id = ? FOR UPDATE")) {
                lockRow.setBytes(1, LeaseTestSupport.bytes(key.name()));
                lockRow.setBytes(2, LeaseTestSupport.bytes(key.key()));
                lockRow.executeQuery().close();
            }
            long started = System.nanoTime();
            Throwable failed =
                    catchThrowable(() -> assertThat(manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, HOUR))
                            .isEmpty());
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("in-doubt acquisition ended after %d ms: %s%n", millis, failed);
            blocker.commit(); // the timed-out UPDATE, still waiting on the server, now commits
            return millis;
        }
    }
}
