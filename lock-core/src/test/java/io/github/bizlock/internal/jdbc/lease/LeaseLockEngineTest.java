package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.CountingDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** The LEASE engine on its own, below the lock manager: attempts, batch release, and what a lost grant is told. */
@LockTest
class LeaseLockEngineTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void theRowOfAGrantNamesTheEngineOwner(DataSource dataSource) throws Exception {
        String owner = InstanceId.generate();
        LeaseDao dao = LockFixture.dao(dataSource);
        LeaseLockEngine engine = new LeaseLockEngine(dao, owner, Backoff.DEFAULT);
        LockKey key = new LockKey("engine", "owner");

        Grant grant = acquireNow(engine, key);

        assertThat(engine.owner()).isEqualTo(owner);
        assertThat(grant.owner()).isEqualTo(owner);
        assertThat(LeaseTestSupport.row(dao, key).owner()).isEqualTo(engine.owner());
        assertThat(engine.release(grant)).isNull();
    }

    @Test
    void aWaiterRetriesWithGrowingPausesRatherThanJumpingToTheLongest(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("engine", "backoff");
        LeaseLockEngine holder =
                new LeaseLockEngine(LockFixture.dao(dataSource), InstanceId.generate(), Backoff.DEFAULT);
        Grant held = acquireNow(holder, key);
        AtomicInteger writes = new AtomicInteger();
        DataSource counted = CountingDataSource.counting(dataSource, CountingDataSource.LOCK_WRITES, writes);
        // Pauses of at most 1, 2, 4, ... 512 ms: ten attempts or so within the second's wait. A backoff that went
        // straight to its longest pause (1 s) would make two or three.
        LeaseLockEngine waiter =
                new LeaseLockEngine(LockFixture.dao(counted), InstanceId.generate(), new Backoff(ms(1), ms(1_000)));

        assertThat(waiter.acquire(key, LEASE, 1, System.nanoTime())).isNull();
        int perAttempt = writes.getAndSet(0);
        assertThat(waiter.acquire(key, LEASE, 1, System.nanoTime() + ms(1_000).toNanos()))
                .isNull();

        assertThat(perAttempt).isPositive();
        // And it pauses at all: without the pauses the same second would hold thousands of attempts.
        assertThat(writes.get() / perAttempt).as("attempts within a 1 s wait").isBetween(6, 40);
        assertThat(holder.release(held)).isNull();
    }

    @Test
    void aWriteTheDatabaseRefusesFailsAtOnceInsteadOfBeingRetriedUntilTheDeadline(TestDatabase database)
            throws Exception {
        // A read-only connection refuses the lock's write for good; only a failed connection is worth a retry.
        try (HikariDataSource readOnly =
                LeaseTestSupport.dataSource(database, "", config -> config.setReadOnly(true))) {
            AtomicInteger writes = new AtomicInteger();
            DataSource counted = CountingDataSource.counting(readOnly, CountingDataSource.LOCK_WRITES, writes);
            LeaseLockEngine engine =
                    new LeaseLockEngine(LockFixture.dao(counted), InstanceId.generate(), Backoff.DEFAULT);
            LockKey key = new LockKey("engine", "read-only");

            assertThatThrownBy(() -> engine.acquire(key, LEASE, 1, System.nanoTime()))
                    .isInstanceOf(DataAccessException.class);
            int oneAttempt = writes.getAndSet(0);
            assertThatThrownBy(() -> engine.acquire(
                            key, LEASE, 1, System.nanoTime() + ms(3_000).toNanos()))
                    .isInstanceOf(DataAccessException.class);

            assertThat(oneAttempt).isPositive();
            assertThat(writes.get())
                    .as("statements of the attempt with a 3 s wait")
                    .isEqualTo(oneAttempt);
        }
    }

    @Test
    void releaseAllFreesEveryGrantItIsGiven(DataSource dataSource) throws Exception {
        LeaseLockEngine holder =
                new LeaseLockEngine(LockFixture.dao(dataSource), InstanceId.generate(), Backoff.DEFAULT);
        LeaseLockEngine next = new LeaseLockEngine(LockFixture.dao(dataSource), InstanceId.generate(), Backoff.DEFAULT);
        LockKey first = new LockKey("engine", "all-1");
        LockKey second = new LockKey("engine", "all-2");
        List<Grant> grants = List.of(acquireNow(holder, first), acquireNow(holder, second));
        assertThat(next.acquire(first, LEASE, 1, System.nanoTime())).as("held").isNull();

        holder.releaseAll(grants);

        Grant nextFirst = acquireNow(next, first);
        Grant nextSecond = acquireNow(next, second);
        next.releaseAll(List.of(nextFirst, nextSecond));
    }

    @Test
    void aGrantTakenOverByALaterAcquisitionOfTheSameInstanceIsToldSo(DataSource dataSource) throws Exception {
        LeaseDao dao = LockFixture.dao(dataSource);
        LeaseLockEngine engine = new LeaseLockEngine(dao, InstanceId.generate(), Backoff.DEFAULT);
        LockKey key = new LockKey("engine", "same-owner");
        Grant stale = acquireNow(engine, key);
        assertThat(LeaseTestSupport.expire(dataSource, key)).isEqualTo(1);
        Grant current = acquireNow(engine, key);

        Loss loss = engine.release(stale);

        assertThat(loss).isNotNull();
        assertThat(loss.cause()).isEqualTo(LossCause.TAKEN_OVER);
        assertThat(loss.reason())
                .contains("a later acquisition by this instance")
                .contains("fencing token " + current.fencingToken())
                .doesNotContain("owner " + engine.owner());
        assertThat(engine.release(current)).isNull();
    }

    @Test
    void aGrantWhoseRowWasDeletedIsToldItWasRemoved(DataSource dataSource) throws Exception {
        LeaseLockEngine engine =
                new LeaseLockEngine(LockFixture.dao(dataSource), InstanceId.generate(), Backoff.DEFAULT);
        LockKey key = new LockKey("engine", "deleted");
        Grant grant = acquireNow(engine, key);
        new JdbcTemplate(dataSource)
                .update(
                        "DELETE FROM biz_lock WHERE biz_type = ? AND biz_id = ?",
                        LeaseTestSupport.bytes(key.name()),
                        LeaseTestSupport.bytes(key.key()));

        Loss loss = engine.release(grant);

        assertThat(loss).isNotNull();
        assertThat(loss.cause()).isEqualTo(LossCause.REMOVED);
        assertThat(loss.reason()).contains("its row was deleted");
    }

    @Test
    void aGrantFreedByAForceReleaseIsToldSomeoneElseFreedIt(DataSource dataSource) throws Exception {
        LeaseDao dao = LockFixture.dao(dataSource);
        LeaseLockEngine engine = new LeaseLockEngine(dao, InstanceId.generate(), Backoff.DEFAULT);
        LockKey key = new LockKey("engine", "forced");
        Grant grant = acquireNow(engine, key);
        assertThat(dao.forceRelease(key)).isTrue();

        Loss loss = engine.release(grant);

        assertThat(loss).isNotNull();
        assertThat(loss.cause()).isEqualTo(LossCause.REMOVED);
        assertThat(loss.reason()).contains("someone else freed it");
    }

    @Test
    void aLostGrantWhoseRowCannotBeReadIsReportedAsPossiblyTakenOver(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("engine", "unreadable");
        LeaseLockEngine other =
                new LeaseLockEngine(LockFixture.dao(dataSource), InstanceId.generate(), Backoff.DEFAULT);
        ConnectionBudget budget = new ConnectionBudget(dataSource);
        LeaseLockEngine engine = new LeaseLockEngine(LockFixture.dao(budget), InstanceId.generate(), Backoff.DEFAULT);
        Grant stale = acquireNow(engine, key);
        assertThat(LeaseTestSupport.expire(dataSource, key)).isEqualTo(1);
        Grant current = acquireNow(other, key);

        // The release's statement reaches the database and frees nothing; the look at the row that would say why
        // gets no connection.
        budget.allow(1);
        Loss loss = engine.release(stale);

        assertThat(loss).isNotNull();
        assertThat(loss.cause()).isEqualTo(LossCause.TAKEN_OVER);
        assertThat(loss.reason()).contains("could not be read");
        assertThat(other.release(current)).isNull();
    }

    private static Grant acquireNow(LeaseLockEngine engine, LockKey key) throws InterruptedException {
        Grant grant = engine.acquire(key, LEASE, 1, System.nanoTime());
        assertThat(grant).as("%s acquired", key).isNotNull();
        return grant;
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    /** Hands out connections freely until told how many more it may give; after those, fails like an unreachable pool. */
    private static final class ConnectionBudget extends DelegatingDataSource {

        private volatile int left = Integer.MAX_VALUE;

        ConnectionBudget(DataSource target) {
            super(target);
        }

        void allow(int connections) {
            left = connections;
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (left-- <= 0) {
                throw new SQLTransientConnectionException("no connection left for this test", "08001");
            }
            return super.getConnection();
        }
    }
}
