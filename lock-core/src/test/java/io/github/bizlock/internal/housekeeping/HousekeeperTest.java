package io.github.bizlock.internal.housekeeping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.CountingDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockTest;
import io.github.bizlock.SwitchableDataSource;
import io.github.bizlock.internal.jdbc.HousekeepingDao;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The housekeeper's own loop: its settings, the batches it deletes until a batch comes back short, the totals it
 * reports, that it stops once its lock is lost, and its schedule on a daemon thread. Rows are written aged by two hours
 * straight into the tables; the engines' tests show which rows a purge may delete.
 */
@LockTest
class HousekeeperTest {

    private static final Duration HOUR = Duration.ofHours(1);

    private final JdbcTemplate jdbc;
    private final DataSource dataSource;

    HousekeeperTest(DataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    /** Every test counts the rows it purges: none left over from another. */
    @BeforeEach
    void emptyTables() {
        jdbc.update("DELETE FROM biz_lock");
        jdbc.update("DELETE FROM biz_lock_token");
        jdbc.update("DELETE FROM biz_lock_row");
    }

    /** Free lease rows, last changed two hours ago. */
    private void agedLeaseRows(String name, int count) {
        for (int i = 0; i < count; i++) {
            jdbc.update("""
                    INSERT INTO biz_lock (biz_type, biz_id, owner_id, fencing_token, expire_at, created_at,
                                          acquired_at, modified_at)
                    VALUES (?, ?, NULL, ?, UTC_TIMESTAMP(6) - INTERVAL 2 HOUR, UTC_TIMESTAMP(6) - INTERVAL 2 HOUR,
                            UTC_TIMESTAMP(6) - INTERVAL 2 HOUR, UTC_TIMESTAMP(6) - INTERVAL 2 HOUR)
                    """, bytes(name), bytes(String.valueOf(i)), i + 1);
        }
    }

    /** NAMED token rows, last used two hours ago (and no ROW lock rows, so a purge call deletes at most a batch). */
    private void agedTokenRows(String name, int count) {
        for (int i = 0; i < count; i++) {
            jdbc.update("""
                    INSERT INTO biz_lock_token (biz_type, biz_id, lock_mode, last_token, modified_at)
                    VALUES (?, ?, 'NAMED', ?, UTC_TIMESTAMP(6) - INTERVAL 2 HOUR)
                    """, bytes(name), bytes(String.valueOf(i)), i + 1);
        }
    }

    private int count(String table, String name) {
        Integer rows = jdbc.queryForObject(
                "SELECT COUNT(*) FROM " + table + " WHERE biz_type = ?", Integer.class, bytes(name));
        return rows == null ? 0 : rows;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Records what housekeeping reports, and on which thread. */
    private static final class Purges implements LockObserver {

        final List<Integer> rows = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();

        @Override
        public void purged(int rows) {
            this.rows.add(rows);
            threads.add(Thread.currentThread());
        }

        int total() {
            return rows.stream().mapToInt(Integer::intValue).sum();
        }
    }

    @Test
    void refusesANegativeRetentionAndABatchSizeBelowOne() {
        HousekeepingDao dao = LockFixture.housekeeping(dataSource);
        try (LockManager manager = LockFixture.manager(dataSource).build()) {
            assertThatThrownBy(() -> new Housekeeper(dao, manager, Duration.ofSeconds(-1), 10))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("The housekeeping retention must not be negative, was PT-1S");
            assertThatThrownBy(() -> new Housekeeper(dao, manager, HOUR, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("The housekeeping batch size must be at least 1, was 0");
            // The smallest settings allowed: purge everything free, one row per statement.
            new Housekeeper(dao, manager, Duration.ZERO, 1).close();
        }
    }

    @Test
    void deletesLeaseRowsBatchAfterBatchUntilOneComesBackShortAndReportsTheTotalOnce() throws Exception {
        Purges purges = new Purges();
        try (LockManager manager =
                LockFixture.manager(dataSource).observer(purges).build()) {
            agedLeaseRows("hk-lease", 5);
            Housekeeper housekeeper = new Housekeeper(LockFixture.housekeeping(dataSource), manager, HOUR, 2);

            assertThat(housekeeper.runOnce()).as("batches of 2, 2 and 1").isEqualTo(5);
            assertThat(count("biz_lock", "hk-lease")).isZero();
            assertThat(purges.rows).as("one report per run, with its total").containsExactly(5);
        }
    }

    @Test
    void deletesSessionRowsWhileABatchComesBackFull() throws Exception {
        Purges purges = new Purges();
        try (LockManager manager =
                LockFixture.manager(dataSource).observer(purges).build()) {
            agedTokenRows("hk-token", 3);
            Housekeeper housekeeper = new Housekeeper(LockFixture.housekeeping(dataSource), manager, HOUR, 1);

            // A full batch (exactly the batch size) means more may be due; only the fourth, empty batch ends it.
            assertThat(housekeeper.runOnce()).isEqualTo(3);
            assertThat(count("biz_lock_token", "hk-token")).isZero();
            assertThat(purges.rows).containsExactly(3);
        }
    }

    @Test
    void reportsNothingWhenNothingIsDue() throws Exception {
        Purges purges = new Purges();
        try (LockManager manager =
                LockFixture.manager(dataSource).observer(purges).build()) {
            Housekeeper housekeeper = new Housekeeper(LockFixture.housekeeping(dataSource), manager, HOUR, 10);

            assertThat(housekeeper.runOnce()).isZero();
            assertThat(purges.rows).as("no report of zero rows").isEmpty();
        }
    }

    @Test
    void stopsDeletingLeaseRowsOnceItsLockIsLost() throws Exception {
        agedLeaseRows("hk-lost-lease", 5);
        // The lock manager shuts down while the first lease batch is being deleted: the housekeeping lock is lost.
        try (LockManager manager = LockFixture.manager(dataSource).build();
                Housekeeper housekeeper =
                        new Housekeeper(shutDownAtFirst(manager, "WHERE fencing_token <= ?"), manager, HOUR, 1)) {
            assertThatThrownBy(housekeeper::runOnce)
                    .as("the unlock of a lost lock")
                    .isInstanceOf(LockLostException.class);
            assertThat(count("biz_lock", "hk-lost-lease"))
                    .as("the batch under way finished, no further one started")
                    .isEqualTo(4);
        }
    }

    @Test
    void stopsDeletingSessionRowsOnceItsLockIsLost() throws Exception {
        agedTokenRows("hk-lost-token", 3);
        try (LockManager manager = LockFixture.manager(dataSource).build();
                Housekeeper housekeeper =
                        new Housekeeper(shutDownAtFirst(manager, "WHERE last_token <= ?"), manager, HOUR, 1)) {
            assertThatThrownBy(housekeeper::runOnce).isInstanceOf(LockLostException.class);
            assertThat(count("biz_lock_token", "hk-lost-token")).isEqualTo(2);
        }
    }

    /** A DAO on the test database that shuts {@code manager} down when it first prepares a statement containing text. */
    private HousekeepingDao shutDownAtFirst(LockManager manager, String text) {
        AtomicBoolean done = new AtomicBoolean();
        return LockFixture.housekeeping(CountingDataSource.observing(dataSource, sql -> {
            if (sql.contains(text) && done.compareAndSet(false, true)) {
                manager.close();
            }
        }));
    }

    @Test
    void scheduledRunsPurgeOnADaemonThreadOfTheirOwnAndGoOnAfterAFailedRun() throws Exception {
        Purges purges = new Purges();
        SwitchableDataSource database = new SwitchableDataSource(dataSource);
        try (LockManager manager =
                        LockFixture.manager(dataSource).observer(purges).build();
                Housekeeper housekeeper = new Housekeeper(LockFixture.housekeeping(database), manager, HOUR, 100)) {
            Future<?> schedule = housekeeper.schedule(Duration.ofMillis(20));

            agedLeaseRows("hk-scheduled", 3);
            Await.until("the first scheduled purge", Duration.ofSeconds(10), () -> purges.total() == 3);
            assertThat(purges.threads.get(0).getName()).isEqualTo("bizlock-housekeeping");
            assertThat(purges.threads.get(0).isDaemon())
                    .as("a daemon thread: it never keeps the JVM alive")
                    .isTrue();

            database.fail();
            Await.until("a run that failed", Duration.ofSeconds(10), () -> database.refused() > 0);
            database.restore();
            agedLeaseRows("hk-scheduled-again", 2);
            Await.until("a purge after the failed run", Duration.ofSeconds(10), () -> purges.total() == 5);
            assertThat(schedule).as("a failed run does not end the schedule").isNotDone();
        }
    }

    @Test
    void refusesAnIntervalBelowOneMillisecond() {
        try (LockManager manager = LockFixture.manager(dataSource).build();
                Housekeeper housekeeper = new Housekeeper(LockFixture.housekeeping(dataSource), manager, HOUR, 10)) {
            assertThatThrownBy(() -> housekeeper.schedule(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("The housekeeping interval must be positive, was PT0S");
            assertThatThrownBy(() -> housekeeper.schedule(Duration.ofNanos(999_999)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> housekeeper.schedule(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
