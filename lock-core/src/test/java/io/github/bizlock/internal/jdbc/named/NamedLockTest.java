package io.github.bizlock.internal.jdbc.named;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.session.AbstractSessionLockTest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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

    @Test
    void aWaitKilledBySomeoneElseIsAnErrorNeverBusy() throws Exception {
        try (LockHandle held = a.template().acquire(name, "1")) {
            CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture.supplyAsync(
                    () -> b.template().tryAcquire(name, "1", Duration.ofSeconds(30)), threads);
            awaitWaiters(1);
            // An operator (or a server limit) ends the waiting GET_LOCK: MariaDB answers NULL, MySQL error 1317.
            // Neither
            // means the lock is held elsewhere, so reporting it as "busy" would hide the failure behind a retry.
            Long waiting = jdbc.queryForObject(
                    "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE ?"
                            + " AND ID <> CONNECTION_ID()",
                    Long.class,
                    "%GET_LOCK(%");
            jdbc.execute("KILL QUERY " + waiting);
            assertThatThrownBy(() -> waiter.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(RuntimeException.class)
                    .isNotInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("GET_LOCK");
            assertThat(held.isHeld()).isTrue();
            assertThat(b.heldSessions()).as("the failed session is not kept").isZero();
        }
        try (LockHandle next = b.template().acquire(name, "1")) {
            assertThat(next.isHeld()).as("the waiter's process can lock again").isTrue();
        }
    }
}
