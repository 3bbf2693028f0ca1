package io.github.bizlock.faults;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The other instance of a fault case: it asks for the faulted holder's lock over and over, in short waits, until it
 * gets it or its deadline passes. When it gets it, it checks the token is above the holder's and makes the fenced write
 * that a stale holder's must then fail against ({@code fault_fence}).
 */
final class Contender {

    /** When the contender got the lock (epoch ms), with which token; {@code atMillis} is -1 if it never did. */
    record Take(long atMillis, long token) {

        boolean taken() {
            return atMillis >= 0;
        }
    }

    private final LockManager manager;
    private final JdbcTemplate jdbc;

    Contender(LockManager manager, JdbcTemplate jdbc) {
        this.manager = manager;
        this.jdbc = jdbc;
    }

    static void createFence(JdbcTemplate jdbc) {
        jdbc.execute("CREATE TABLE IF NOT EXISTS fault_fence (k VARCHAR(16) PRIMARY KEY, token BIGINT NOT NULL)");
        jdbc.update("DELETE FROM fault_fence");
        for (LockMode mode : LockMode.values()) {
            jdbc.update("INSERT INTO fault_fence (k, token) VALUES (?, 0)", mode.name());
        }
    }

    /**
     * Takes and frees a lock of every mode once, so that what is measured afterwards is the fault, not this JVM's
     * first session, statement preparation or mode binding.
     */
    void warmUp(String prefix) throws InterruptedException {
        for (LockMode mode : LockMode.values()) {
            manager.tryAcquire(new LockKey(prefix + "-" + mode, "warm-up"), mode, Duration.ofSeconds(10), null)
                    .orElseThrow()
                    .unlock();
        }
    }

    /** Tries for {@code prefix-MODE}/{@code k} until {@code deadline} passes (epoch ms). */
    Take take(LockMode mode, String prefix, long deadlineMillis) throws InterruptedException {
        LockKey key = new LockKey(prefix + "-" + mode, "k");
        while (System.currentTimeMillis() < deadlineMillis) {
            Optional<LockHandle> handle = manager.tryAcquire(key, mode, Duration.ofMillis(100), null);
            if (handle.isPresent()) {
                long at = System.currentTimeMillis();
                try (LockHandle held = handle.get()) {
                    long token = held.fencingToken();
                    int written = jdbc.update(
                            "UPDATE fault_fence SET token = ? WHERE k = ? AND token < ?", token, mode.name(), token);
                    if (written != 1) {
                        throw new AssertionError(mode + ": the new holder's fenced write (token " + token
                                + ") was refused: an older holder wrote a higher token");
                    }
                    return new Take(at, token);
                }
            }
        }
        return new Take(-1, 0);
    }
}
