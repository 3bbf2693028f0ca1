package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** The read-write lock in ROW mode: shared row locks, and the downgrade it refuses. */
class RowReadWriteLockTest extends AbstractReadWriteLockTest {

    @Override
    protected LockMode mode() {
        return LockMode.ROW;
    }

    /** The server frees a dead session's row locks when it notices the session end. */
    @Override
    protected Duration crashBound() {
        return Duration.ofSeconds(3);
    }

    /**
     * InnoDB queues the writer's {@code FOR UPDATE} behind the share lock: a later {@code FOR SHARE NOWAIT} (or
     * {@code LOCK IN SHARE MODE NOWAIT}) that conflicts with the waiting request is not granted, on MySQL 8 and on
     * MariaDB alike, so ROW gives writers preference too (measured by {@link #aWaitingWriterKeepsNewReadersOut}).
     */
    @Override
    protected void awaitWriterWaiting(DataSource dataSource) throws InterruptedException {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (lockWaits(jdbc) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("The writer was not seen waiting for its row lock within 30 s");
            }
            Thread.sleep(20);
        }
    }

    /**
     * Writers' {@code FOR UPDATE} statements that have run on this test's database for a second or more, which the
     * reader's share lock keeps waiting: by the server's process list, since the lock wait tables are server-wide
     * (other tests' waits count there) and MariaDB does not always list such a wait in {@code innodb_trx}.
     */
    private static int lockWaits(JdbcTemplate jdbc) {
        Integer count = jdbc.queryForObject("""
                SELECT COUNT(*)
                  FROM information_schema.processlist
                 WHERE DB = DATABASE()
                   AND INFO LIKE '%FOR UPDATE%'
                   AND TIME >= 1
                """, Integer.class);
        return count != null ? count : 0;
    }

    @Test
    void aDowngradeIsRefusedAtOnceWithTheWriteLockKept(DataSource dataSource) {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        try (LockHandle write = a.acquire(name, "k", WRITE)) {
            assertThatThrownBy(() -> a.acquire(name, "k", READ.waitTime(Duration.ofSeconds(30))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds the write lock")
                    .hasMessageContaining("LEASE mode");
            assertThat(write.isHeld()).isTrue();
            assertThat(freeFor(b, READ)).isFalse();
        }
        assertThat(freeFor(b, READ)).isTrue();
    }
}
