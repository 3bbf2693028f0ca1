package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.contract.LockWorker;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** R9: expiry is decided by the database clock alone. */
@LockTest
class LeaseClockTest {

    @Test
    void leaseIsCountedInDatabaseTime(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("clock", "lease");
        Duration lease = Duration.ofMillis(7_250);
        LeaseDao dao = LockFixture.dao(dataSource);
        try (LockManager manager = LockFixture.manager(dataSource).build()) {
            LocalDateTime before = dao.databaseTime();
            LockHandle handle = manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, lease)
                    .orElseThrow();
            LocalDateTime after = dao.databaseTime();
            LockRow row = LeaseTestSupport.row(dao, key);
            assertThat(Duration.between(row.acquiredAt(), row.expiresAt())).isEqualTo(lease);
            assertThat(row.acquiredAt()).isBetween(before, after);
            handle.unlock();
        }
    }

    @Tag("cross-jvm")
    @Test
    void applicationTimeZoneFourteenHoursAwayChangesNothing(TestDatabase database) throws Exception {
        // The child JVM runs at UTC+14; had the engine used the application's local clock for acquired_at/expire_at,
        // the row would be 14 hours off the database's UTC clock, and the lease 14 hours long or already over.
        LockKey key = new LockKey("clock", "zone");
        LeaseDao dao = LockFixture.dao(database.dataSource());
        try (LockManager other = LockFixture.manager(database.dataSource()).build();
                ChildJvm child = LockWorker.start(
                        database,
                        List.of("-Duser.timezone=Pacific/Kiritimati"),
                        "hold-fixed",
                        LockMode.LEASE.name(),
                        key.name(),
                        key.key(),
                        "60000")) {
            child.await("ACQUIRED", Duration.ofSeconds(60));
            LocalDateTime now = dao.databaseTime();
            LockRow row = LeaseTestSupport.row(dao, key);
            assertThat(Duration.between(row.acquiredAt(), row.expiresAt())).isEqualTo(Duration.ofMinutes(1));
            assertThat(Duration.between(row.acquiredAt(), now).abs()).isLessThan(Duration.ofSeconds(30));
            assertThat(row.held()).isTrue();
            assertThat(other.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null))
                    .isEmpty();
        }
    }

    @Test
    void sessionWhoseDatabaseClockIsAheadTakesOverLeases(TestDatabase database) throws Exception {
        // Documented behaviour: the database clock is trusted. A session whose clock runs an hour ahead (SET
        // @@timestamp is per session, so every connection of this pool gets it at connect) sees every running lease
        // as ended and may take it over; the fencing token still rises, and the previous holder learns of the loss.
        LockKey key = new LockKey("clock", "jump");
        DataSource normal = database.dataSource();
        try (HikariDataSource ahead = LeaseTestSupport.dataSource(
                        database,
                        "",
                        config -> config.setConnectionInitSql("SET @@timestamp = UNIX_TIMESTAMP() + 3600"));
                LockManager holder = LockFixture.manager(normal).build();
                LockManager skewed = LockFixture.manager(ahead).build()) {
            LeaseDao normalDao = LockFixture.dao(normal);
            LeaseDao aheadDao = LockFixture.dao(ahead);
            assertThat(Duration.between(normalDao.databaseTime(), aheadDao.databaseTime()))
                    .as("the skewed session's clock")
                    .isBetween(Duration.ofMinutes(59), Duration.ofMinutes(61));

            LockHandle held =
                    holder.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null).orElseThrow();
            assertThat(LeaseTestSupport.row(normalDao, key).held()).isTrue();
            LockHandle taken = skewed.tryAcquire(key, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow(() -> new AssertionError("a session an hour ahead should see the lease as ended"));
            assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(LeaseTestSupport.row(normalDao, key).owner()).isEqualTo(skewed.instanceId());
            assertThatThrownBy(held::unlock).isInstanceOf(LockLostException.class);
            assertThat(LeaseTestSupport.row(normalDao, key).owner())
                    .as("the stale unlock did not free the new holder's lock")
                    .isEqualTo(skewed.instanceId());
            taken.unlock();
        }
    }
}
