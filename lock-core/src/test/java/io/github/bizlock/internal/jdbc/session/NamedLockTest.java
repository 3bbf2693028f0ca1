package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

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

    private SessionLockEngine engine() {
        return (SessionLockEngine) a.engine();
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

    /**
     * The holder releases just as the waiter is interrupted, again and again, with the interrupt a little before or
     * after: the kill that ends the wait lands before, as or after the server grants it {@code GET_LOCK}. A wait granted
     * as it was killed must not leave its session holding the lock, in the pool or lent to the next lock: after every
     * round nobody holds the lock ({@code IS_USED_LOCK} is NULL), and the holder takes it again at once.
     */
    @Test
    @Tag("slow")
    void aWaitGrantedAsItIsCancelledLeavesNoSessionHoldingTheLock() throws Exception {
        String serverName = engine().serverLockName(new LockKey(name, "1"));
        int rounds = 60;
        int granted = 0;
        // A lease of 5 s: a busy machine must not turn a late heartbeat into a loss this test is not about.
        try (SessionLocks a = longLease();
                SessionLocks b = longLease()) {
            granted = cancelJustAsReleased(a, b, serverName, rounds);
        }
        System.out.printf(
                "%s NAMED: %d of %d waiters cancelled as the lock was released got it first%n",
                server(), granted, rounds);
    }

    /**
     * The deterministic half of the test above: a session that holds a named lock when its wait is ended by the kill at
     * its deadline (here one taken when it was opened, as a {@code GET_LOCK} granted just as the kill ended it would
     * leave it) holds none once the wait has failed, and none when it is lent to the next lock.
     */
    @Test
    void aSessionWhoseWaitWasKilledHoldsNoNamedLockAfterwards() throws Exception {
        String stray = "stray-" + Integer.toHexString(name.hashCode());
        DataSource holdingStray =
                new DelegatingDataSource(
                        new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password())) {
                    @Override
                    public Connection getConnection() throws SQLException {
                        Connection connection = super.getConnection();
                        // The canceller's connection (it kills the wait) must not take the lock; the session's does.
                        if (Thread.currentThread().getName().equals("bizlock-session-canceller")) {
                            return connection;
                        }
                        try (Statement statement = connection.createStatement();
                                ResultSet row = statement.executeQuery("SELECT GET_LOCK('" + stray + "', 0)")) {
                            row.next();
                            assertThat(row.getInt(1)).isEqualTo(1);
                        }
                        return connection;
                    }
                };
        try (SessionLocks c = SessionLocks.open(
                        LockMode.NAMED,
                        io.github.bizlock.LockFixture.daos(dataSource),
                        holdingStray,
                        1,
                        Duration.ofSeconds(5));
                LockHandle held = a.template().acquire(name, "1")) {
            assertThat(c.template().tryAcquire(name, "1", Duration.ofMillis(300)))
                    .isEmpty();
            assertThat(jdbc.queryForObject("SELECT IS_USED_LOCK(?)", Long.class, stray))
                    .as("the session whose wait was killed went back to the pool holding no named lock")
                    .isNull();
            try (LockHandle next = c.template().acquire(name, "2")) {
                assertThat(next.isHeld()).isTrue();
                assertThat(jdbc.queryForObject("SELECT IS_USED_LOCK(?)", Long.class, stray))
                        .as("the session lent again holds only its new lock")
                        .isNull();
            }
        }
    }

    private SessionLocks longLease() {
        return SessionLocks.open(
                LockMode.NAMED,
                io.github.bizlock.LockFixture.daos(dataSource),
                new org.springframework.jdbc.datasource.DriverManagerDataSource(
                        database.jdbcUrl(), database.username(), database.password()),
                4,
                Duration.ofSeconds(5));
    }

    private int cancelJustAsReleased(SessionLocks a, SessionLocks b, String serverName, int rounds) throws Exception {
        int granted = 0;
        Duration wait = Duration.ofMillis(60);
        for (int round = 0; round < rounds; round++) {
            LockHandle held = a.template().acquire(name, "1");
            boolean byInterrupt = round % 2 == 1;
            java.util.concurrent.atomic.AtomicReference<Thread> thread =
                    new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicLong startedAt = new java.util.concurrent.atomic.AtomicLong();
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(
                    () -> {
                        thread.set(Thread.currentThread());
                        startedAt.set(System.nanoTime());
                        started.countDown();
                        try {
                            Optional<LockHandle> mine =
                                    b.template().tryAcquire(name, "1", byInterrupt ? Duration.ofSeconds(20) : wait);
                            mine.ifPresent(LockHandle::unlock);
                            return mine.isPresent();
                        } catch (LockAcquisitionException ex) {
                            assertThat(ex).hasRootCauseInstanceOf(InterruptedException.class);
                            return false;
                        }
                    },
                    threads);
            started.await();
            // The canceller kills the wait at its deadline, or within its 20 ms poll of an interrupt; the release
            // lands within a few milliseconds of that kill, before, at or after it.
            long killAt = startedAt.get() + wait.toNanos();
            long releaseAt = killAt
                    + java.util.concurrent.ThreadLocalRandom.current()
                            .nextLong(
                                    -TimeUnit.MILLISECONDS.toNanos(3),
                                    TimeUnit.MILLISECONDS.toNanos(byInterrupt ? 20 : 3));
            if (byInterrupt) {
                java.util.concurrent.locks.LockSupport.parkNanos(killAt - System.nanoTime());
                thread.get().interrupt();
            }
            java.util.concurrent.locks.LockSupport.parkNanos(releaseAt - System.nanoTime());
            held.unlock();
            if (waiter.get(10, TimeUnit.SECONDS)) {
                granted++;
            }
            awaitTrue(() -> b.heldSessions() == 0, 5000);
            assertThat(jdbc.queryForObject("SELECT IS_USED_LOCK(?)", Long.class, serverName))
                    .as("round %d: no session, idle or lent, holds the lock", round)
                    .isNull();
            assertThat(a.template().tryAcquire(name, "1", Duration.ZERO))
                    .as("round %d", round)
                    .hasValueSatisfying(LockHandle::unlock);
        }
        return granted;
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
