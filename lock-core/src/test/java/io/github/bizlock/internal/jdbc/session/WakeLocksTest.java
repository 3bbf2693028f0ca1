package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The server facts LEASE's wake-up stands on, on each server: a released wake lock goes to the waiter queued for it,
 * not to a newcomer; a wait ended by its deadline or an interrupt ends on time and leaves no wake lock behind.
 */
@ExtendWith(io.github.bizlock.test.TestDatabaseExtension.class)
class WakeLocksTest {

    private static final WakeLocks.TakeOver NEVER = () -> false;

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @Test
    void aReleasedWakeLockGoesToTheQueuedWaiterAndNotToANewcomer(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake-locks", "hand-over");
        try (WakeLocks holder = wakeLocks(dataSource);
                WakeLocks waiter = wakeLocks(dataSource);
                WakeLocks newcomer = wakeLocks(dataSource)) {
            WakeLocks.Wake held = holder.take(key, deadline(Duration.ofSeconds(5)));
            assertThat(held.state()).isEqualTo(WakeLocks.State.HELD);
            assertThat(newcomer.take(key, deadline(Duration.ofSeconds(5))).state())
                    .isEqualTo(WakeLocks.State.BUSY);
            CompletableFuture<WakeLocks.Wake> queued = CompletableFuture.supplyAsync(
                    () -> await(waiter, key, Duration.ofSeconds(30)), ThreadPerTask.EXECUTOR);
            awaitQueued(dataSource, key, 1);

            holder.release(held.hold());
            WakeLocks.Wake late = newcomer.take(key, deadline(Duration.ofSeconds(5)));

            assertThat(late.state())
                    .as("a take right after the release finds the wake lock granted to the queued waiter")
                    .isEqualTo(WakeLocks.State.BUSY);
            WakeLocks.Wake woken = queued.get(30, TimeUnit.SECONDS);
            assertThat(woken.state()).isEqualTo(WakeLocks.State.HELD);
            waiter.release(woken.hold());
            assertThat(WakeProbe.holder(dataSource, key)).isNull();
        }
    }

    @Test
    void aWaitEndsAtItsDeadlineBetweenWholeSecondsAndHoldsNothing(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake-locks", "deadline");
        try (WakeLocks holder = wakeLocks(dataSource);
                WakeLocks waiter = wakeLocks(dataSource)) {
            WakeLocks.Wake held = holder.take(key, deadline(Duration.ofSeconds(5)));
            long started = System.nanoTime();
            WakeLocks.Wake ended = waiter.await(key, deadline(Duration.ofMillis(400)), WakeLocks.RECHECK, NEVER);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(ended.state()).isEqualTo(WakeLocks.State.DEADLINE);
            assertThat(took)
                    .isBetween(Duration.ofMillis(400), Duration.ofMillis(400).plus(LockEngine.DEADLINE_SLACK));
            holder.release(held.hold());
            assertThat(WakeProbe.holder(dataSource, key))
                    .as("the waiter that gave up was not granted the wake lock at the release")
                    .isNull();
        }
    }

    @Test
    void anInterruptedWaitEndsAtOnceAndHoldsNothing(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake-locks", "interrupt");
        try (WakeLocks holder = wakeLocks(dataSource);
                WakeLocks waiter = wakeLocks(dataSource)) {
            WakeLocks.Wake held = holder.take(key, deadline(Duration.ofSeconds(5)));
            Thread[] waiting = new Thread[1];
            CompletableFuture<WakeLocks.Wake> queued = CompletableFuture.supplyAsync(
                    () -> {
                        waiting[0] = Thread.currentThread();
                        return await(waiter, key, Duration.ofSeconds(60));
                    },
                    ThreadPerTask.EXECUTOR);
            awaitQueued(dataSource, key, 1);
            long interrupted = System.nanoTime();
            waiting[0].interrupt();

            assertThatThrownBy(() -> queued.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasRootCauseInstanceOf(InterruptedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - interrupted)).isLessThan(LockEngine.DEADLINE_SLACK);
            assertThat(WakeProbe.queued(dataSource, key)).as("no longer queued").isEmpty();
            holder.release(held.hold());
            assertThat(WakeProbe.holder(dataSource, key)).isNull();
        }
    }

    @Test
    void aQueuedWaiterThatTakesTheRowOverStopsWaiting(DataSource dataSource) throws Exception {
        LockKey key = new LockKey("wake-locks", "take-over");
        try (WakeLocks holder = wakeLocks(dataSource);
                WakeLocks waiter = wakeLocks(dataSource)) {
            WakeLocks.Wake held = holder.take(key, deadline(Duration.ofSeconds(5)));
            long started = System.nanoTime();
            WakeLocks.Wake taken = waiter.await(key, deadline(Duration.ofSeconds(30)), WakeLocks.RECHECK, () -> true);

            assertThat(taken.state()).isEqualTo(WakeLocks.State.TAKEN_OVER);
            assertThat(taken.hold()).isNull();
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .as("one re-check, then the wait's end")
                    .isLessThan(WakeLocks.RECHECK.plus(LockEngine.DEADLINE_SLACK));
            assertThat(WakeProbe.queued(dataSource, key)).isEmpty();
            holder.release(held.hold());
        }
    }

    private static WakeLocks.Wake await(WakeLocks wakes, LockKey key, Duration wait) {
        try {
            return wakes.await(key, deadline(wait), WakeLocks.RECHECK, NEVER);
        } catch (InterruptedException ex) {
            throw new java.util.concurrent.CompletionException(ex);
        }
    }

    private static void awaitQueued(DataSource dataSource, LockKey key, int count) throws InterruptedException {
        Await.until(
                count + " queued for " + key,
                Duration.ofSeconds(30),
                () -> WakeProbe.queued(dataSource, key).size() >= count);
    }

    private static long deadline(Duration wait) {
        return System.nanoTime() + wait.toNanos();
    }

    private static WakeLocks wakeLocks(DataSource dataSource) {
        LockDaos daos = LockFixture.daos(dataSource);
        return new WakeLocks(daos.dialect(), daos.schema(), SessionLocks.dedicated(dataSource));
    }
}
