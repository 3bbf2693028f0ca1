package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * LEASE expiry between nodes whose clocks differ. A lease ends when {@code expire_at <= UTC_TIMESTAMP(6)} on the node
 * that runs the acquiring statement, and {@code expire_at} was computed by the clock of the node the holder wrote
 * through: a contender on a node whose clock is δ ahead takes the lock δ early, one δ behind δ late. The bound that
 * follows: a fixed lease of L gives its holder L - δ; a watchdog lease L, renewed every L/3, is never taken over while
 * δ is below 2L/3 minus the renewal's delay.
 *
 * <p>The skewed node is modelled by sessions: every connection of the contender sets {@code @@timestamp} to the server's
 * real time ({@code SYSDATE(6)}, which {@code @@timestamp} does not move) plus δ each time it is borrowed, and bizlock
 * borrows one per statement, so all its statements see a clock δ off, as they would on a node whose system clock is.
 * On a Galera cluster ({@code BIZLOCK_TEST_DB=galera}) the holder writes through node 1 and the contender through node
 * 2, so the row it judges is node 1's, replicated; elsewhere both use the one server.
 */
@LockTest
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeaseClockSkewTest {

    private static final Duration LEASE = Duration.ofSeconds(8);
    private static final Duration SKEW = Duration.ofSeconds(3);
    /** Polling, connecting and a busy machine's scheduling: how late after the bound a takeover may come. */
    private static final Duration LATENESS = Duration.ofMillis(2_500);

    @Test
    void aNodeWhoseClockIsAheadTakesAFixedLeaseOverThatMuchEarlyAndNoEarlier(TestDatabase database) throws Exception {
        Duration takeover = takeoverAfter(database, new LockKey("skew", "ahead"), SKEW);
        System.out.printf(
                "bizlock clock skew: lease %d ms, contender %d ms ahead took over after %d ms%n",
                LEASE.toMillis(), SKEW.toMillis(), takeover.toMillis());
        assertThat(takeover)
                .isGreaterThanOrEqualTo(LEASE.minus(SKEW))
                .isLessThan(LEASE.minus(SKEW).plus(LATENESS));
    }

    @Test
    void aNodeWhoseClockIsBehindTakesAFixedLeaseOverThatMuchLate(TestDatabase database) throws Exception {
        Duration takeover = takeoverAfter(database, new LockKey("skew", "behind"), SKEW.negated());
        System.out.printf(
                "bizlock clock skew: lease %d ms, contender %d ms behind took over after %d ms%n",
                LEASE.toMillis(), SKEW.toMillis(), takeover.toMillis());
        assertThat(takeover)
                .isGreaterThanOrEqualTo(LEASE.plus(SKEW))
                .isLessThan(LEASE.plus(SKEW).plus(LATENESS));
    }

    @Test
    void aWatchdogLeaseIsNeverTakenOverByANodeAheadByLessThanTwoThirdsOfIt(TestDatabase database) throws Exception {
        // Renewed every 2 s, each renewal ends the lease 6 s after it by the holder's node: a node 2 s ahead sees it
        // end 4 s after the renewal, 2 s after the next one is due.
        Optional<Duration> taken =
                watchdogTakeover(database, new LockKey("skew", "watchdog-2s"), Duration.ofSeconds(2));
        assertThat(taken)
                .as("a node 2 s ahead took over a watchdog lease of 6 s")
                .isEmpty();
    }

    @Test
    void aWatchdogLeaseIsTakenOverByANodeAheadByMoreThanTwoThirdsOfIt(TestDatabase database) throws Exception {
        // The bound is real: a node 5 s ahead sees each renewal's lease end 1 s after it, before the next one.
        Optional<Duration> taken =
                watchdogTakeover(database, new LockKey("skew", "watchdog-5s"), Duration.ofSeconds(5));
        System.out.printf(
                "bizlock clock skew: watchdog lease 6000 ms, contender 5000 ms ahead took over after %s ms%n",
                taken.map(Duration::toMillis).orElse(-1L));
        assertThat(taken)
                .as("a node 5 s ahead takes over a watchdog lease of 6 s")
                .isPresent();
    }

    /**
     * Holds a lock with a watchdog lease of 6 s (renewed every 2 s) through node 1, and tries it for 8 s from a node
     * whose clock is {@code skew} ahead.
     *
     * @return when the contender got the lock, from the holder's acquisition; empty if it never did
     */
    private static Optional<Duration> watchdogTakeover(TestDatabase database, LockKey key, Duration skew)
            throws Exception {
        Duration watchdogLease = Duration.ofSeconds(6);
        try (SkewedClock skewed = new SkewedClock(database, skew);
                LockManager holder = LockFixture.manager(database.dataSource())
                        .watchdogLease(watchdogLease)
                        .build();
                LockManager contender = LockFixture.manager(skewed).build()) {
            long started = System.nanoTime();
            LockHandle held =
                    holder.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            long until = started + watchdogLease.plusSeconds(2).toNanos();
            while (System.nanoTime() < until) {
                Optional<LockHandle> taken = contender.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null);
                if (taken.isPresent()) {
                    Duration after = Duration.ofNanos(System.nanoTime() - started);
                    assertThat(taken.get().fencingToken()).isGreaterThan(held.fencingToken());
                    taken.get().unlock();
                    return Optional.of(after);
                }
                Thread.sleep(20);
            }
            assertThat(held.isHeld()).isTrue();
            held.unlock();
            return Optional.empty();
        }
    }

    /**
     * Takes a fixed lease on node 1, then tries from a node whose clock is {@code skew} ahead until it gets the lock.
     *
     * @return the real time from just before the holder's acquisition to the contender's
     */
    private static Duration takeoverAfter(TestDatabase database, LockKey key, Duration skew) throws Exception {
        try (SkewedClock skewed = new SkewedClock(database, skew);
                LockManager holder = LockFixture.manager(database.dataSource()).build();
                LockManager contender = LockFixture.manager(skewed).build()) {
            long started = System.nanoTime();
            LockHandle held =
                    holder.tryAcquire(key, LockMode.LEASE, Duration.ZERO, LEASE).orElseThrow();
            long deadline =
                    started + LEASE.plus(SKEW).plus(LATENESS).plusSeconds(5).toNanos();
            while (System.nanoTime() < deadline) {
                Optional<LockHandle> taken = contender.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null);
                if (taken.isPresent()) {
                    Duration after = Duration.ofNanos(System.nanoTime() - started);
                    assertThat(taken.get().fencingToken()).isGreaterThan(held.fencingToken());
                    taken.get().unlock();
                    return after;
                }
                Thread.sleep(20);
            }
            throw new AssertionError("a node " + skew + " off never took over a lease of " + LEASE);
        }
    }

    /**
     * A small pool on node 2 (the one server elsewhere) whose connections' clock is {@code skew} off the server's real
     * one: set again at every borrow, since {@code @@timestamp} stands still once set.
     */
    private static final class SkewedClock extends DelegatingDataSource implements AutoCloseable {

        private final HikariDataSource pool;
        private final String shift;

        SkewedClock(TestDatabase database, Duration skew) {
            List<String> nodes = database.nodeJdbcUrls();
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(nodes.get(Math.min(1, nodes.size() - 1)));
            config.setUsername(database.username());
            config.setPassword(database.password());
            config.setMaximumPoolSize(4);
            config.setMinimumIdle(0);
            this.pool = new HikariDataSource(config);
            this.shift = "SET @@timestamp = UNIX_TIMESTAMP(SYSDATE(6)) + " + skew.toMillis() / 1000.0;
            setTargetDataSource(pool);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            try (Statement statement = connection.createStatement()) {
                statement.execute(shift);
            } catch (SQLException ex) {
                connection.close();
                throw ex;
            }
            return connection;
        }

        @Override
        public void close() {
            pool.close();
        }
    }
}
