package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.housekeeping.Housekeeper;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;

/** R11 for the session modes: unused token and lock rows are purged, held rows never, tokens keep rising. */
@ExtendWith(TestDatabaseExtension.class)
class SessionHousekeepingTest {

    @BeforeAll
    static void createSchema(TestDatabase database) {
        LockFixture.createSchema(database.dataSource());
    }

    private static long acquireAndRelease(SessionLocks locks, LockMode mode, LockKey key) throws InterruptedException {
        LockHandle handle =
                locks.manager().tryAcquire(key, mode, Duration.ZERO, null).orElseThrow();
        long token = handle.fencingToken();
        handle.unlock();
        return token;
    }

    private static int count(JdbcTemplate jdbc, String table, LockKey key) {
        Integer rows = jdbc.queryForObject(
                "SELECT COUNT(*) FROM " + table + " WHERE biz_type = ? AND biz_id = ?",
                Integer.class,
                bytes(key.name()),
                bytes(key.key()));
        return rows == null ? 0 : rows;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void purgesUnusedTokenAndLockRowsSkipsHeldOnesAndTokensKeepRising(TestDatabase database) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        LockDaos daos = LockFixture.daos(database.dataSource());
        LeaseDao dao = daos.leases();
        // A name per mode: each lock name is bound to one mode.
        LockKey rowKey = new LockKey("hk-row", "row");
        LockKey namedKey = new LockKey("hk-named", "named");
        LockKey heldKey = new LockKey("hk-row", "held");
        try (SessionLocks row =
                        SessionLocks.open(LockMode.ROW, daos, SessionLocks.dedicated(database.dataSource()), 4);
                SessionLocks named =
                        SessionLocks.open(LockMode.NAMED, daos, SessionLocks.dedicated(database.dataSource()), 4);
                LockManager lease = LockFixture.manager(database.dataSource()).build()) {
            long rowToken = 0;
            long namedToken = 0;
            for (int i = 0; i < 3; i++) {
                rowToken = acquireAndRelease(row, LockMode.ROW, rowKey);
                namedToken = acquireAndRelease(named, LockMode.NAMED, namedKey);
            }
            acquireAndRelease(row, LockMode.ROW, heldKey);
            // Age every row before the held lock locks its row (an UPDATE would wait for it).
            jdbc.update("UPDATE biz_lock_token SET modified_at = UTC_TIMESTAMP(6) - INTERVAL 2 HOUR");
            jdbc.update("UPDATE biz_lock_row SET created_at = UTC_TIMESTAMP(6) - INTERVAL 2 HOUR");
            LockHandle held = row.manager()
                    .tryAcquire(heldKey, LockMode.ROW, Duration.ZERO, null)
                    .orElseThrow();
            held.fencingToken(); // issuing it renews the token row

            int purged = new Housekeeper(daos.housekeeping(), lease, Duration.ofHours(1), 100).runOnce();

            // The held lock's token, just issued, renewed its token row; the other two token rows and the free lock
            // row are old.
            assertThat(purged).as("2 token rows and the 1 free lock row").isEqualTo(3);
            assertThat(count(jdbc, "biz_lock_token", rowKey)).isZero();
            assertThat(count(jdbc, "biz_lock_token", namedKey)).isZero();
            assertThat(count(jdbc, "biz_lock_row", rowKey)).isZero();
            assertThat(count(jdbc, "biz_lock_row", heldKey))
                    .as("a held row is skipped, not waited for")
                    .isEqualTo(1);
            assertThat(held.isHeld()).isTrue();
            held.unlock();

            assertThat(acquireAndRelease(row, LockMode.ROW, rowKey))
                    .as("a ROW lock whose rows were purged gets a higher token")
                    .isGreaterThan(rowToken);
            assertThat(acquireAndRelease(named, LockMode.NAMED, namedKey))
                    .as("a NAMED lock whose token row was purged gets a higher token")
                    .isGreaterThan(namedToken);
        }
    }
}
