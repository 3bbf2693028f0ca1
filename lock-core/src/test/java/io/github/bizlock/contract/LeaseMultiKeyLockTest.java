package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.internal.lock.InstanceId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** The multi-key lock in LEASE mode, and what the loss of one of its leases does. */
class LeaseMultiKeyLockTest extends AbstractMultiKeyLockTest {

    @Override
    protected LockMode mode() {
        return LockMode.LEASE;
    }

    @Test
    void keysAreTakenInTheOrderOfTheTablesPrimaryKey(DataSource dataSource) {
        LockTemplate locks = template(manager(dataSource));
        // Trailing spaces, control characters, case, accents, fullwidth letters and a surrogate pair: the order the
        // handle took them in is the order the VARBINARY key sorts them in.
        List<String> keys = List.of("a ", "\uD83D\uDE00", "B", "a", "\u00E9", "\uFF21", "a\u0001", "b", "A");
        try (MultiLockHandle held = locks.acquireAll(name, keys)) {
            List<String> tableOrder = new JdbcTemplate(dataSource)
                            .queryForList(
                                    "SELECT biz_id FROM biz_lock WHERE biz_type = ? ORDER BY biz_id",
                                    byte[].class,
                                    name)
                            .stream()
                            .map(bytes -> new String(bytes, StandardCharsets.UTF_8))
                            .toList();
            assertThat(held.keys()).hasSize(keys.size()).isEqualTo(tableOrder);
        }
    }

    @Test
    void theLossOfOneKeyIsToldAndTheOthersAreReleased(DataSource dataSource) throws InterruptedException {
        LockTemplate locks = template(manager(ContractManagers.builder(mode(), dataSource, InstanceId.generate())
                .watchdogLease(Duration.ofMillis(900))));
        LockTemplate other = template(manager(dataSource));
        MultiLockHandle held = locks.acquireAll(name, List.of("a", "b"));
        // Another owner takes b over, as after a lease that ended unseen: the watchdog's next renewal finds it gone.
        new JdbcTemplate(dataSource)
                .update("UPDATE biz_lock SET owner_id = 'thief' WHERE biz_type = ? AND biz_id = ?", name, "b");
        Await.until("the loss of b is seen", Duration.ofSeconds(5), () -> !held.isHeld());
        assertThat(held.isHeld("a")).isTrue();
        assertThat(held.isHeld("b")).isFalse();
        assertThatThrownBy(held::unlock).isInstanceOf(LockLostException.class).hasMessageContaining(name + "/b");
        assertThat(freeFor(other, "a")).as("a, released with the lost b").isTrue();
    }
}
