package io.github.bizlock.internal.jdbc.named;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.session.AbstractSessionLockTest;
import org.junit.jupiter.api.Test;

class NamedLockTest extends AbstractSessionLockTest {

    @Override
    protected LockMode mode() {
        return LockMode.NAMED;
    }

    @Override
    protected String waitingStatement() {
        return "GET_LOCK(";
    }

    @Override
    protected long holderConnectionId(String lockName, String lockKey) {
        Long id = jdbc.queryForObject(
                "SELECT IS_USED_LOCK(?)", Long.class, engine().serverLockName(new LockKey(lockName, lockKey)));
        assertThat(id).as("holder of " + lockName + "/" + lockKey).isNotNull();
        return id;
    }

    private NamedLockEngine engine() {
        return (NamedLockEngine) a.engine();
    }

    @Test
    void serverLockNamesAreLowercaseHexOfFixedLengthAndKeepCase() {
        String lower = engine().serverLockName(new LockKey("order", "a"));
        String upper = engine().serverLockName(new LockKey("order", "A"));
        assertThat(lower).hasSize(64).matches("[0-9a-f]{64}").isNotEqualTo(upper);
        // Name and key are separated, so ("ab", "c") and ("a", "bc") differ.
        assertThat(engine().serverLockName(new LockKey("ab", "c")))
                .isNotEqualTo(engine().serverLockName(new LockKey("a", "bc")));
        try (LockHandle held = a.template().acquire("order", "a")) {
            assertThat(jdbc.queryForObject("SELECT IS_USED_LOCK(?) IS NOT NULL", Boolean.class, lower))
                    .isTrue();
            assertThat(jdbc.queryForObject("SELECT IS_USED_LOCK(?) IS NULL", Boolean.class, upper))
                    .isTrue();
        }
        assertThat(jdbc.queryForObject("SELECT IS_FREE_LOCK(?)", Integer.class, lower))
                .isEqualTo(1);
    }
}
