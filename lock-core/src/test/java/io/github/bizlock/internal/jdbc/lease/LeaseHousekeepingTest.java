package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** R11 and R13: old rows are purged, held ones never, and tokens keep rising across a purge. */
@LockTest
class LeaseHousekeepingTest {

    private static LockHandle acquire(LockManager manager, LockKey key, Duration lease) throws InterruptedException {
        return manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, lease).orElseThrow();
    }

    private static void age(JdbcTemplate jdbc, LockKey key, String column) {
        assertThat(jdbc.update(
                        "UPDATE biz_lock SET " + column + " = UTC_TIMESTAMP(6) - INTERVAL 2 HOUR"
                                + " WHERE biz_type = ? AND biz_id = ?",
                        LeaseTestSupport.bytes(key.name()),
                        LeaseTestSupport.bytes(key.key())))
                .isEqualTo(1);
    }

    @Test
    void purgesOnlyRowsFreeForLongerThanTheRetentionAndTokensSurviveThePurge(DataSource dataSource) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        LockDaos daos = LockFixture.daos(dataSource);
        LeaseDao dao = daos.leases();
        LockKey freeOld = new LockKey("hk", "free-old");
        LockKey freeRecent = new LockKey("hk", "free-recent");
        LockKey heldOld = new LockKey("hk", "held-old");
        LockKey expiredOld = new LockKey("hk", "expired-old");
        try (LockManager manager = LockFixture.manager(dataSource).build();
                LockManager crashed = LockFixture.manager(dataSource).build()) {
            long freeOldToken;
            try (LockHandle handle = acquire(manager, freeOld, Duration.ofMinutes(1))) {
                freeOldToken = handle.fencingToken();
            }
            // Raise the key's token well above the others, so the purge must carry it over in the floor.
            for (int i = 0; i < 5; i++) {
                try (LockHandle handle = acquire(manager, freeOld, Duration.ofMinutes(1))) {
                    freeOldToken = handle.fencingToken();
                }
            }
            acquire(manager, freeRecent, Duration.ofMinutes(1)).unlock();
            LockHandle held = acquire(manager, heldOld, Duration.ofHours(1));
            LockHandle abandoned = acquire(crashed, expiredOld, Duration.ofHours(1));
            age(jdbc, freeOld, "modified_at");
            age(jdbc, heldOld, "modified_at");
            age(jdbc, expiredOld, "modified_at");
            age(jdbc, expiredOld, "expire_at");

            Housekeeper hourly = new Housekeeper(daos.housekeeping(), manager, Duration.ofHours(1), 100);
            assertThat(hourly.runOnce()).as("free-old and expired-old").isEqualTo(2);
            assertThat(dao.find(freeOld)).isEmpty();
            assertThat(dao.find(expiredOld)).isEmpty();
            assertThat(dao.find(freeRecent))
                    .as("free for less than the retention")
                    .isPresent();
            assertThat(dao.find(heldOld))
                    .as("held, however old its last change")
                    .hasValueSatisfying(row -> assertThat(row.held()).isTrue());
            assertThat(held.isHeld()).isTrue();
            assertThat(jdbc.queryForObject("SELECT floor_token FROM biz_lock_token_floor", Long.class))
                    .isGreaterThanOrEqualTo(freeOldToken);

            Housekeeper eager = new Housekeeper(daos.housekeeping(), manager, Duration.ZERO, 100);
            assertThat(eager.runOnce())
                    .as("free-recent, and the housekeeping lock's own row")
                    .isGreaterThanOrEqualTo(1);
            assertThat(dao.find(freeRecent)).isEmpty();
            assertThat(dao.find(heldOld)).isPresent();

            try (LockHandle again = acquire(manager, freeOld, Duration.ofMinutes(1))) {
                assertThat(again.fencingToken())
                        .as("a purged key created again continues above its old tokens")
                        .isGreaterThan(freeOldToken);
            }
            // The abandoned holder's row is gone: its late unlock reports the loss and creates nothing.
            assertThatThrownBy(abandoned::unlock).isInstanceOf(LockLostException.class);
            assertThat(dao.find(expiredOld)).isEmpty();
            held.unlock();
        }
    }

    @Test
    void onlyOneHousekeeperRunsAtATime(DataSource dataSource) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        LockDaos daos = LockFixture.daos(dataSource);
        LeaseDao dao = daos.leases();
        try (LockManager first = LockFixture.manager(dataSource).build();
                LockManager second = LockFixture.manager(dataSource).build()) {
            LockKey key = new LockKey("hk-one", "1");
            acquire(first, key, Duration.ofMinutes(1)).unlock();
            age(jdbc, key, "modified_at");

            Housekeeper blocked = new Housekeeper(daos.housekeeping(), first, Duration.ofHours(1), 100);
            try (LockHandle running = acquire(second, Housekeeper.LOCK, Duration.ofMinutes(1))) {
                assertThat(blocked.runOnce())
                        .as("another instance is housekeeping")
                        .isZero();
                assertThat(dao.find(key)).isPresent();
            }
            assertThat(blocked.runOnce()).isEqualTo(1);
            assertThat(dao.find(key)).isEmpty();

            // Both at once, in batches of one row: the first to take the lock deletes everything, in 30 rounds; the
            // other finds the lock taken (or nothing left) and deletes nothing. Without the lock they would share it.
            for (int i = 0; i < 30; i++) {
                LockKey many = new LockKey("hk-many", String.valueOf(i));
                acquire(first, many, Duration.ofMinutes(1)).unlock();
                age(jdbc, many, "modified_at");
            }
            Housekeeper a = new Housekeeper(daos.housekeeping(), first, Duration.ofHours(1), 1);
            Housekeeper b = new Housekeeper(LockFixture.housekeeping(dataSource), second, Duration.ofHours(1), 1);
            CountDownLatch start = new CountDownLatch(1);
            CompletableFuture<Integer> runA =
                    CompletableFuture.supplyAsync(() -> run(start, a), ThreadPerTask.EXECUTOR);
            CompletableFuture<Integer> runB =
                    CompletableFuture.supplyAsync(() -> run(start, b), ThreadPerTask.EXECUTOR);
            start.countDown();
            assertThat(List.of(runA.get(30, TimeUnit.SECONDS), runB.get(30, TimeUnit.SECONDS)))
                    .containsExactlyInAnyOrder(0, 30);
            assertThat(jdbc.queryForObject(
                            "SELECT COUNT(*) FROM biz_lock WHERE biz_type = ?",
                            Integer.class,
                            LeaseTestSupport.bytes("hk-many")))
                    .isZero();
        }
    }

    private static int run(CountDownLatch start, Housekeeper housekeeper) {
        try {
            start.await();
            return housekeeper.runOnce();
        } catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
