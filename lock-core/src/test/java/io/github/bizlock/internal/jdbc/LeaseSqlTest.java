package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao.HeldToken;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The LEASE statements that the engine suites reach only through rare paths: taking a lock back from this same owner
 * after a write whose answer was lost, releasing many locks in one statement, and listing the held ones.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseSqlTest {

    private static final Duration LEASE = Duration.ofMinutes(1);

    private JdbcTemplate jdbc;
    private LeaseDao dao;

    @BeforeAll
    void createSchema(DataSource dataSource) {
        jdbc = new JdbcTemplate(dataSource);
        dao = LockFixture.dao(dataSource);
    }

    @BeforeEach
    void noLeases() {
        jdbc.update("DELETE FROM biz_lock");
    }

    @Test
    void anOwnerTakesBackALockItsLostAttemptTookWithANewTokenAndNoOtherOwnerCan() {
        LockKey key = new LockKey("lease-sql", "reclaim");
        long first = acquire(key, "owner-a", false).orElseThrow();

        assertThat(acquire(key, "owner-a", false))
                .as("without reclaiming, its own row is taken")
                .isEmpty();
        assertThat(acquire(key, "owner-b", true))
                .as("another owner reclaims nothing")
                .isEmpty();
        OptionalLong again = acquire(key, "owner-a", true);

        assertThat(again).isPresent();
        assertThat(again.getAsLong()).isGreaterThan(first);
        assertThat(dao.find(key).orElseThrow().fencingToken()).isEqualTo(again.getAsLong());
    }

    @Test
    void releasingAllFreesTheLocksThisOwnerStillHoldsWithThoseTokens() {
        LockKey one = new LockKey("lease-sql", "all-1");
        LockKey two = new LockKey("lease-sql", "all-2");
        LockKey other = new LockKey("lease-sql", "all-other");
        long oneToken = acquire(one, "owner-a", false).orElseThrow();
        long twoToken = acquire(two, "owner-a", false).orElseThrow();
        long otherToken = acquire(other, "owner-b", false).orElseThrow();

        int released = dao.releaseAll(
                "owner-a",
                List.of(new HeldToken(one, oneToken), new HeldToken(two, twoToken), new HeldToken(other, otherToken)));

        assertThat(released).isEqualTo(2);
        assertThat(dao.find(one).orElseThrow().owner()).isNull();
        assertThat(dao.find(two).orElseThrow().owner()).isNull();
        assertThat(dao.find(other).orElseThrow().owner()).isEqualTo("owner-b");
    }

    @Test
    void theHeldLocksAreListedOldestFirstUpToTheLimit() {
        LockKey first = new LockKey("lease-sql", "held-1");
        LockKey second = new LockKey("lease-sql", "held-2");
        LockKey third = new LockKey("lease-sql", "held-3");
        LockKey freed = new LockKey("lease-sql", "freed");
        for (LockKey key : List.of(first, second, third)) {
            acquire(key, "owner-a", false).orElseThrow();
        }
        long freedToken = acquire(freed, "owner-a", false).orElseThrow();
        dao.release(freed, "owner-a", freedToken);
        acquiredSecondsAgo(second, 10);
        acquiredSecondsAgo(first, 5);

        assertThat(dao.findHeld(2)).extracting(LockRow::key).containsExactly("held-2", "held-1");
    }

    private void acquiredSecondsAgo(LockKey key, int seconds) {
        jdbc.update(
                "UPDATE biz_lock SET acquired_at = UTC_TIMESTAMP(6) - INTERVAL ? SECOND WHERE biz_id = ?",
                seconds,
                LockJdbc.bytes(key.key()));
    }

    private OptionalLong acquire(LockKey key, String owner, boolean reclaimOwn) {
        return dao.tryAcquire(key, owner, LEASE, 1, reclaimOwn, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
    }
}
