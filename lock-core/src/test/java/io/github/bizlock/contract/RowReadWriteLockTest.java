package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

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
