package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * R13: a holder whose lease ran out while it was paused (simulated by ending the lease in the table, which is what a
 * pause longer than the lease leaves behind) is taken over with a higher token, learns that it lost the lock, and
 * cannot disturb the new holder.
 */
@LockTest
class LeaseStaleHolderTest {

    @Test
    void watchdogNoticesTheTakeoverAndTheStaleUnlockLeavesTheNewHolderAlone(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("stale", "watchdog");
        LeaseDao dao = LockFixture.dao(dataSource);
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockManager stale = LockFixture.manager(dataSource)
                        .watchdogLease(Duration.ofSeconds(2))
                        .build();
                LockManager next = LockFixture.manager(dataSource).build()) {
            stale.addListener(lost::add);
            LockHandle old =
                    stale.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();

            // The watchdog may renew between the two statements; then the lease is ended again.
            Optional<LockHandle> taken = Optional.empty();
            for (int i = 0; i < 20 && taken.isEmpty(); i++) {
                assertThat(LeaseTestSupport.expire(dataSource, key)).isEqualTo(1);
                taken = next.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null);
            }
            assertThat(taken).as("taken over once the lease ended").isPresent();
            LockHandle current = taken.get();
            assertThat(current.fencingToken()).isGreaterThan(old.fencingToken());

            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while ((old.isHeld() || lost.isEmpty()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(old.isHeld()).as("the stale handle knows").isFalse();
            assertThat(stale.renewedCount()).isZero();
            assertThat(lost).singleElement().satisfies(event -> {
                assertThat(event.name()).isEqualTo(key.name());
                assertThat(event.key()).isEqualTo(key.key());
                assertThat(event.fencingToken()).isEqualTo(old.fencingToken());
                assertThat(event.owner()).isEqualTo(stale.instanceId());
                assertThat(event.mode()).isEqualTo(LockMode.LEASE);
                assertThat(event.cause()).isEqualTo(LossCause.TAKEN_OVER);
                assertThat(event.reason()).contains("taken over").contains(next.instanceId());
            });

            assertThatThrownBy(old::unlock)
                    .isInstanceOf(LockLostException.class)
                    .satisfies(ex -> assertThat(((LockLostException) ex).event().fencingToken())
                            .isEqualTo(old.fencingToken()));
            assertThat(lost).as("reported once").hasSize(1);
            assertThat(stale.heldCount()).isZero();
            assertThat(stale.activeThreadCount()).isZero();

            LockRow row = LeaseTestSupport.row(dao, key);
            assertThat(row.held()).isTrue();
            assertThat(row.owner()).isEqualTo(next.instanceId());
            assertThat(row.fencingToken()).isEqualTo(current.fencingToken());
            assertThat(current.isHeld()).isTrue();
            current.unlock();
            assertThat(LeaseTestSupport.row(dao, key).held()).isFalse();
        }
    }

    @Test
    void fixedLeaseHolderLearnsAtUnlock(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("stale", "fixed");
        LeaseDao dao = LockFixture.dao(dataSource);
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        try (LockManager stale = LockFixture.manager(dataSource).build();
                LockManager next = LockFixture.manager(dataSource).build()) {
            stale.addListener(lost::add);
            LockHandle old = stale.tryAcquire(key, LockMode.LEASE, Duration.ZERO, Duration.ofHours(1))
                    .orElseThrow();
            assertThat(stale.renewedCount()).as("a fixed lease is not renewed").isZero();
            assertThat(LeaseTestSupport.expire(dataSource, key)).isEqualTo(1);
            LockHandle current =
                    next.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            assertThat(current.fencingToken()).isGreaterThan(old.fencingToken());

            assertThatThrownBy(old::unlock)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("no longer holds it for this owner")
                    .hasMessageContaining(next.instanceId())
                    .satisfies(ex ->
                            assertThat(((LockLostException) ex).event().cause()).isEqualTo(LossCause.TAKEN_OVER));
            // Listeners are told on a thread of their own, soon after unlock threw.
            Await.until("the listener is told", Duration.ofSeconds(5), () -> !lost.isEmpty());
            assertThat(lost).singleElement().satisfies(event -> {
                assertThat(event.fencingToken()).isEqualTo(old.fencingToken());
                assertThat(event.cause()).isEqualTo(LossCause.TAKEN_OVER);
            });
            assertThat(old.isHeld()).isFalse();

            LockRow row = LeaseTestSupport.row(dao, key);
            assertThat(row.held()).isTrue();
            assertThat(row.owner()).isEqualTo(next.instanceId());
            assertThat(row.fencingToken()).isEqualTo(current.fencingToken());
            current.unlock();
        }
    }
}
