package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Hand-offs between threads of this process, acquisitions cut short, and the shutdown's edges, on a stub engine. */
class HoldsTest {

    private static final long SECOND = 1_000_000_000L;

    private final StubEngine engine = new StubEngine();
    private final List<String> observed = new CopyOnWriteArrayList<>();
    private final List<Long> holdNanos = new CopyOnWriteArrayList<>();
    private final LockManager manager = LockManager.builder("holds")
            .engine(engine)
            .modeBindings(StubEngine.ANY_MODE)
            .localHandoffs(3)
            .observer(new LockObserver() {
                @Override
                public void released(LockKey key, LockMode mode, long holdNanos) {
                    HoldsTest.this.holdNanos.add(holdNanos);
                    observed.add("released " + key.key());
                }

                @Override
                public void handedOver(LockKey key, LockMode mode) {
                    observed.add("handedOver " + key.key());
                }
            })
            .build();

    @AfterEach
    void close() {
        manager.close();
        Thread.interrupted();
    }

    private static LockKey key(String key) {
        return new LockKey("holds", key);
    }

    /** Starts a thread that waits for the lock, then runs {@code whileHeld} and unlocks. */
    private Thread waiter(String key, @org.jspecify.annotations.Nullable Duration lease, AtomicReference<Long> token) {
        return waiter(manager, key, lease, token::set);
    }

    /** Starts a thread that waits for the lock on {@code locks}, hands its token to {@code token} and unlocks. */
    private static Thread waiter(
            LockManager locks, String key, @org.jspecify.annotations.Nullable Duration lease, LongConsumer token) {
        Thread thread = new Thread(() -> {
            try (LockHandle handle = locks.tryAcquire(key(key), LockMode.LEASE, Duration.ofSeconds(5), lease)
                    .orElseThrow()) {
                token.accept(handle.fencingToken());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        thread.start();
        return thread;
    }

    @Test
    void anUnlockWhileAnotherThreadWaitsHandsTheGrantOverWithoutARoundTrip() throws Exception {
        LockHandle first = manager.tryAcquire(key("handoff"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        AtomicReference<Long> secondToken = new AtomicReference<>();
        Thread second = waiter("handoff", null, secondToken);
        Await.until("the second thread waits", Duration.ofSeconds(5), () -> manager.waitingCount() == 1);
        assertThat(manager.locks())
                .singleElement()
                .satisfies(lock -> assertThat(lock.waiting()).isEqualTo(1));
        long firstToken = first.fencingToken();

        first.unlock();
        second.join(5000);

        assertThat(secondToken.get()).as("the next reserved token").isEqualTo(firstToken + 1);
        assertThat(engine.reservations).as("one database grant").containsExactly(1);
        assertThat(engine.released).as("released once, by the last holder").hasSize(1);
        assertThat(observed)
                .as("the second holder may release before the first reports its hand-off")
                .containsExactlyInAnyOrder("released handoff", "handedOver handoff", "released handoff");
        assertThat(engine.issuedCounts)
                .as("issued with one reserved for each of the 3 hand-offs allowed, while a thread waited")
                .containsExactly(1 + 3);
        assertThat(manager.activeThreadCount()).isZero();
    }

    @Test
    void aGrantIsHandedOverAtMostLocalHandoffsTimesThenTheNextThreadAcquiresItsOwn() throws Exception {
        engine.sentOffsetNanos = SECOND; // the hand-off window stays open however slowly this runs
        try (LockManager once = LockManager.builder("once")
                .engine(engine)
                .modeBindings(StubEngine.ANY_MODE)
                .localHandoffs(1)
                .build()) {
            LockHandle first = once.tryAcquire(key("limited"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            List<Long> tokens = new CopyOnWriteArrayList<>();
            List<Thread> waiters =
                    List.of(waiter(once, "limited", null, tokens::add), waiter(once, "limited", null, tokens::add));
            Await.until("both threads wait", Duration.ofSeconds(5), () -> once.waitingCount() == 2);

            first.unlock();
            for (Thread waiter : waiters) {
                waiter.join(5000);
            }

            assertThat(tokens).as("both waiters held the lock").hasSize(2);
            assertThat(engine.reservations)
                    .as("the first grant, handed over once; the third thread's own grant")
                    .hasSize(2);
            assertThat(engine.released).hasSize(2);
        }
    }

    @Test
    void anAcquisitionTheEngineFailsLeavesTheKeyToTheThreadWaitingForIt() throws Exception {
        Thread failing = Thread.currentThread();
        AtomicReference<Boolean> taken = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                Optional<LockHandle> handle =
                        manager.tryAcquire(key("failed"), LockMode.LEASE, Duration.ofSeconds(5), null);
                taken.set(handle.isPresent());
                handle.ifPresent(LockHandle::unlock);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        // The engine fails once the other thread is at the key too, behind this one's local lock. (Both count as
        // waiting while no grant is held, so the count that tells is of the key's users.)
        engine.onAcquire = () -> {
            if (Thread.currentThread() == failing) {
                other.start();
                try {
                    Await.until(
                            "the other thread waits", Duration.ofSeconds(5), () -> manager.activeThreadCount() == 2);
                } catch (InterruptedException ex) {
                    throw new AssertionError(ex);
                }
                throw new IllegalStateException("database down");
            }
        };
        assertThatThrownBy(() -> manager.tryAcquire(key("failed"), LockMode.LEASE, Duration.ZERO, null))
                .hasMessage("database down");
        other.join(10_000);
        assertThat(taken).as("the failed thread let go of its local lock").hasValue(true);
    }

    @Test
    void eachHoldOfAHandedOverGrantIsReportedWithItsOwnHoldTime() throws Exception {
        engine.sentOffsetNanos = SECOND; // the hand-off window stays open however slowly this runs
        long started = System.nanoTime();
        LockHandle first = manager.tryAcquire(key("timed"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        Thread second = waiter("timed", null, new AtomicReference<>());
        Await.until("the second thread waits", Duration.ofSeconds(5), () -> manager.waitingCount() == 1);

        first.unlock();
        second.join(5000);
        long ended = System.nanoTime();

        assertThat(observed).contains("handedOver timed");
        assertThat(holdNanos).hasSize(2).allSatisfy(hold -> assertThat(hold).isBetween(0L, ended - started));
    }

    @Test
    void aThreadInterruptedAsItTakesAGrantOverLeavesItAndTheLastToLeaveReleasesIt() throws Exception {
        engine.sentOffsetNanos = SECOND; // the hand-off window stays open however slowly this runs
        LockHandle first = manager.tryAcquire(key("interrupted-taker"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread second = new Thread(() -> {
            try {
                manager.tryAcquire(key("interrupted-taker"), LockMode.LEASE, Duration.ofSeconds(5), null)
                        .ifPresent(LockHandle::unlock);
            } catch (Throwable ex) {
                thrown.set(ex);
            }
        });
        // Interrupted once it holds the local lock, before it takes over the grant handed to it.
        engine.onFixedLease = () -> {
            if (Thread.currentThread() == second) {
                second.interrupt();
            }
        };
        second.start();
        Await.until("the second thread waits", Duration.ofSeconds(5), () -> manager.waitingCount() == 1);

        first.unlock();
        second.join(5000);

        assertThat(observed).contains("handedOver interrupted-taker");
        assertThat(thrown.get())
                .isInstanceOf(InterruptedException.class)
                .hasMessage("Interrupted while acquiring holds/interrupted-taker");
        assertThat(engine.reservations).as("no new grant").hasSize(1);
        assertThat(engine.released)
                .as("released by the interrupted thread as it left")
                .hasSize(1);
        assertThat(manager.heldCount()).isZero();
        assertThat(manager.activeThreadCount()).isZero();
    }

    @Test
    void aThreadWhoseAcquisitionTimedOutLetsTheNextLocalWaiterAsk() throws Exception {
        engine.heldElsewhere.add(key("elsewhere"));
        CountDownLatch asking = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        List<String> asked = new CopyOnWriteArrayList<>();
        engine.onFixedLease = () -> {
            // Called with the local lock held, just before the engine is asked.
            asked.add(Thread.currentThread().getName());
            if (Thread.currentThread().getName().equals("first")) {
                asking.countDown();
                try {
                    goOn.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        List<Boolean> acquired = new CopyOnWriteArrayList<>();
        Thread first = timingOut("elsewhere", "first", acquired);
        Thread second;
        try {
            assertThat(asking.await(5, TimeUnit.SECONDS)).isTrue();
            second = timingOut("elsewhere", "second", acquired);
            Await.until("the second thread waits", Duration.ofSeconds(5), () -> manager.waitingCount() == 2);
        } finally {
            goOn.countDown();
        }
        first.join(5000);
        second.join(5000);

        assertThat(acquired).containsExactly(false, false);
        assertThat(asked).as("the local lock passed to the second").containsExactly("first", "second");
        assertThat(manager.activeThreadCount()).isZero();
    }

    /** Starts a thread named {@code name} that asks for a lock, waiting up to 5 s, and adds whether it got it. */
    private Thread timingOut(String key, String name, List<Boolean> acquired) {
        Thread thread = new Thread(
                () -> {
                    try {
                        Optional<LockHandle> handle =
                                manager.tryAcquire(key(key), LockMode.LEASE, Duration.ofSeconds(5), null);
                        acquired.add(handle.isPresent());
                        handle.ifPresent(LockHandle::unlock);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                },
                name);
        thread.start();
        return thread;
    }

    @Test
    void eachUnlockOfAReEntryLetsGoOfOneLocalHold() throws Exception {
        LockHandle outer = manager.tryAcquire(key("re-entered"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        LockHandle inner = manager.tryAcquire(key("re-entered"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        GateLock local = ((DefaultLockHandle) outer).gate.local;
        assertThat(local.getHoldCount()).isEqualTo(2);

        inner.unlock();
        assertThat(local.getHoldCount()).isEqualTo(1);
        outer.unlock();
        assertThat(local.isLocked()).isFalse();
    }

    @Test
    void aThreadThatTookOverAGrantReEntersItAndKeepsItUntilItsLastUnlock() throws Exception {
        LockHandle first = manager.tryAcquire(key("reenter"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        AtomicReference<String> seen = new AtomicReference<>();
        Thread second = new Thread(() -> {
            try (LockHandle outer = manager.tryAcquire(key("reenter"), LockMode.LEASE, Duration.ofSeconds(5), null)
                    .orElseThrow()) {
                manager.tryAcquire(key("reenter"), LockMode.LEASE, Duration.ZERO, null)
                        .orElseThrow()
                        .unlock();
                seen.set(outer.isHeld() + " " + engine.released.size());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        second.start();
        Await.until("the second thread waits", Duration.ofSeconds(5), () -> manager.waitingCount() == 1);

        first.unlock();
        second.join(5000);

        assertThat(seen.get())
                .as("held and not released after the inner unlock")
                .isEqualTo("true 0");
        assertThat(engine.released).hasSize(1);
    }

    @Test
    void aWaiterThatAsksForAFixedLeaseGetsAGrantOfItsOwn() throws Exception {
        LockHandle first = manager.tryAcquire(key("fixed"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        AtomicReference<Long> secondToken = new AtomicReference<>();
        Thread second = waiter("fixed", Duration.ofSeconds(30), secondToken);
        Await.until("the second thread waits", Duration.ofSeconds(5), () -> manager.waitingCount() == 1);

        first.unlock();
        second.join(5000);

        assertThat(secondToken.get()).isNotNull();
        assertThat(engine.reservations).as("a new database grant").hasSize(2);
        assertThat(engine.reservations.get(0)).isEqualTo(1);
        assertThat(engine.released).hasSize(2);
    }

    @Test
    void aGrantTakenWhileOthersWaitReservesATokenForEachHandOffAllowed() throws Exception {
        LockHandle fixed = manager.tryAcquire(key("reserve"), LockMode.LEASE, Duration.ZERO, Duration.ofSeconds(30))
                .orElseThrow();
        AtomicReference<Long> second = new AtomicReference<>();
        AtomicReference<Long> third = new AtomicReference<>();
        Thread one = waiter("reserve", null, second);
        Thread two = waiter("reserve", null, third);
        Await.until("two threads wait", Duration.ofSeconds(5), () -> manager.waitingCount() == 2);

        fixed.unlock();
        one.join(5000);
        two.join(5000);

        assertThat(engine.reservations).containsExactly(1, 1 + 3);
        assertThat(second.get()).isNotNull();
        assertThat(third.get()).isNotNull().isNotEqualTo(second.get());
    }

    @Test
    void anAcquisitionInterruptedAsTheDatabaseGrantsItGivesTheGrantBack() throws Exception {
        engine.onAcquire = () -> Thread.currentThread().interrupt();
        assertThatThrownBy(() -> manager.tryAcquire(key("interrupted"), LockMode.LEASE, Duration.ZERO, null))
                .isInstanceOf(InterruptedException.class)
                .hasMessage("Interrupted while acquiring holds/interrupted");
        Await.until("the grant given back", Duration.ofSeconds(10), () -> engine.released.size() == 1);
        assertThat(manager.activeThreadCount()).isZero();
        assertThat(manager.heldCount()).isZero();
        assertThat(manager.renewedCount()).isZero();
    }

    @Test
    void aGrantGivenBackAfterAnInterruptIsReleasedInTheBackgroundAndRetriedUntilTheDatabaseAnswers() throws Exception {
        engine.boundsRelease = false; // as LEASE's: a release that waits on the database as long as it takes
        engine.onAcquire = () -> Thread.currentThread().interrupt();
        engine.releaseFailure = new IllegalStateException("the database does not answer (test)");
        engine.releaseFailures.set(1); // the first release fails, the next succeeds

        assertThatThrownBy(() -> manager.tryAcquire(key("interrupted"), LockMode.LEASE, Duration.ZERO, null))
                .isInstanceOf(InterruptedException.class)
                .hasMessage("Interrupted while acquiring holds/interrupted");
        assertThat(manager.activeThreadCount()).isZero();
        Await.until("the release retried", Duration.ofSeconds(10), () -> engine.released.size() == 1);
        assertThat(engine.releaseThreads)
                .as("the releases ran on the releaser's threads, none on the interrupted caller's")
                .hasSize(2)
                .doesNotContain(Thread.currentThread());
    }

    @Test
    void aLockGrantedAsTheShutdownBeginsIsGivenBackAndRefused() {
        engine.onAcquire = () -> {
            Thread closer = new Thread(manager::close);
            closer.start();
            try {
                closer.join();
            } catch (InterruptedException ex) {
                throw new AssertionError(ex);
            }
        };
        assertThatThrownBy(() -> manager.tryAcquire(key("late"), LockMode.LEASE, Duration.ZERO, null))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("bizlock is shutting down");
        assertThat(engine.released).hasSize(1);
        assertThat(manager.heldCount()).isZero();
    }

    @Test
    void theShutdownClosesTheEnginesEvenWhenTheirReleaseFails() throws Exception {
        manager.tryAcquire(key("held"), LockMode.LEASE, Duration.ZERO, null, LockLostPolicy.LOG)
                .orElseThrow();
        engine.releaseAllFailure = new IllegalStateException("release fails");
        engine.closeFailure = new IllegalStateException("close fails");
        manager.shutdown(Duration.ofMillis(20));
        assertThat(engine.releasedAll).hasSize(1);
        assertThat(engine.closed).isTrue();
    }

    @Test
    void aLockAnotherThreadOfThisProcessHoldsIsNotAcquiredWithinTheWait() throws Exception {
        AtomicReference<Boolean> acquired = new AtomicReference<>();
        try (LockHandle held = manager.tryAcquire(key("local"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow()) {
            Thread other = new Thread(() -> {
                try {
                    acquired.set(manager.tryAcquire(key("local"), LockMode.LEASE, Duration.ZERO, null)
                                    .isPresent()
                            || manager.tryAcquire(key("local"), LockMode.LEASE, Duration.ofMillis(1), null)
                                    .isPresent());
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            other.start();
            other.join(5000);
            assertThat(held.isHeld()).isTrue();
        }
        assertThat(acquired.get()).isFalse();
        assertThat(engine.reservations).hasSize(1);
        assertThat(manager.activeThreadCount()).isZero();
    }

    @Test
    void aWaitOfMoreThanAHundredYearsWaitsUntilAcquired() {
        long now = System.nanoTime();
        long hundredYears = Duration.ofDays(365 * 100).toNanos();
        assertThat(Holds.deadline(Duration.ofDays(365 * 100)) - now)
                .isBetween(hundredYears, hundredYears + 1_000_000_000L);
        assertThat(Holds.deadline(Duration.ofDays(365 * 1000)) - now)
                .isBetween(Long.MAX_VALUE / 2 - 1_000_000_000L, Long.MAX_VALUE / 2 + 1_000_000_000L);
    }
}
