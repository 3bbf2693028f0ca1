package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockReleaseException;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.engine.ModeBindingStore;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lock manager's own bookkeeping, with an engine that stands in for the database: checks of each request, reentry,
 * tokens on demand, what unlock reports, the counts, the observer, and shutdown. The engines' contract suites test the
 * same against the real database, with waits; these need none.
 */
class LockManagerStubTest {

    /** Records the observer's calls as text, in order. */
    private static final class RecordingObserver implements LockObserver {

        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<Long> waitNanos = new CopyOnWriteArrayList<>();
        final List<Long> holdNanos = new CopyOnWriteArrayList<>();

        @Override
        public Acquisition acquisitionStarted(LockKey key, LockMode mode) {
            calls.add("started " + key.key());
            return (outcome, waitNanos) -> {
                this.waitNanos.add(waitNanos);
                calls.add(outcome + " " + key.key());
            };
        }

        @Override
        public void released(LockKey key, LockMode mode, long holdNanos) {
            this.holdNanos.add(holdNanos);
            calls.add("released " + key.key());
        }

        @Override
        public void handedOver(LockKey key, LockMode mode) {
            calls.add("handedOver " + key.key());
        }

        @Override
        public void renewed(LockMode mode, int count) {
            calls.add("renewed " + count);
        }

        @Override
        public void renewalFailed(LockMode mode, int count) {
            calls.add("renewalFailed " + count);
        }

        @Override
        public void lost(LockLostEvent event) {
            calls.add("lost " + event.key() + " " + event.cause());
        }
    }

    private final StubEngine engine = new StubEngine();
    private final RecordingObserver observer = new RecordingObserver();
    private final LockManager manager = LockManager.builder("stub-instance")
            .engine(engine)
            .modeBindings(StubEngine.ANY_MODE)
            .observer(observer)
            .build();

    @AfterEach
    void close() {
        manager.close();
    }

    private static LockKey key(String key) {
        return new LockKey("stub", key);
    }

    private LockHandle acquire(String key) throws InterruptedException {
        return manager.tryAcquire(key(key), LockMode.LEASE, Duration.ZERO, null).orElseThrow();
    }

    @Test
    void requestsOutsideTheLimitsAreRefused() {
        assertThatThrownBy(() -> manager.tryAcquire(null, LockMode.LEASE, Duration.ZERO, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> manager.tryAcquire(key("a"), LockMode.LEASE, Duration.ZERO, null, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> manager.tryAcquire(key("a"), LockMode.ROW, Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("No engine for lock mode ROW is configured; available: [LEASE]");
        assertThatThrownBy(() -> manager.tryAcquire(key("a"), LockMode.LEASE, Duration.ofNanos(-1), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("The wait time must not be negative");
        assertThatThrownBy(() -> manager.tryAcquire(key("a"), LockMode.LEASE, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("The lease time must be positive");
        assertThatThrownBy(() -> manager.tryAcquire(key("a"), LockMode.LEASE, Duration.ZERO, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("The lease time must be positive");
        assertThatThrownBy(() -> manager.tryAcquire(
                        key("a"), LockMode.LEASE, Duration.ZERO, LockOptions.MAX_LEASE_TIME.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("The lease time must be at most 365 days");
        assertThat(engine.keptAlive).isEmpty();
        assertThat(manager.activeThreadCount()).isZero();
    }

    @Test
    void theLongestLeaseAndNoWaitAreAccepted() throws Exception {
        try (LockHandle handle = manager.tryAcquire(
                        key("longest"), LockMode.LEASE, Duration.ZERO, LockOptions.MAX_LEASE_TIME)
                .orElseThrow()) {
            assertThat(handle.isHeld()).isTrue();
            assertThat(manager.renewedCount())
                    .as("a fixed lease is only watched")
                    .isZero();
        }
    }

    @Test
    void theBuilderRefusesSettingsOutOfRange() {
        LockManagerBuilder builder = LockManager.builder("b");
        assertThatThrownBy(() -> builder.watchdogLease(Duration.ofMillis(299)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("The watchdog lease must be at least 300ms");
        assertThatThrownBy(() -> builder.watchdogLease(LockOptions.MAX_LEASE_TIME.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("The watchdog lease must be at most 365 days");
        assertThatThrownBy(() -> builder.localHandoffs(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Local hand-offs must be 0");
        assertThat(builder.watchdogLease(Duration.ofMillis(300))).isSameAs(builder);
        assertThat(builder.watchdogLease(LockOptions.MAX_LEASE_TIME)).isSameAs(builder);
        assertThat(builder.localHandoffs(0)).isSameAs(builder);
        assertThat(builder.fair(true)).isSameAs(builder);
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("A LockManager needs at least one LockEngine");
        assertThat(builder.engine(engine)).isSameAs(builder);
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("A LockManager needs the store that binds each lock name to one mode");
        assertThat(builder.modeBindings(StubEngine.ANY_MODE)).isSameAs(builder);
        assertThat(builder.observer(observer)).isSameAs(builder);
        try (LockManager built = builder.build()) {
            assertThat(built.instanceId()).isEqualTo("b");
            assertThat(built.modes()).isEqualTo(Set.of(LockMode.LEASE));
            assertThat(built.observer()).isNotSameAs(LockObserver.NONE);
        }
        try (LockManager plain = LockManager.builder("p")
                .engine(engine)
                .modeBindings(StubEngine.ANY_MODE)
                .build()) {
            assertThat(plain.observer()).isSameAs(LockObserver.NONE);
        }
    }

    @Test
    void aReentrySharesTheHoldAndTheLastUnlockReleasesTheGrant() throws Exception {
        LockHandle outer = acquire("re");
        long token = outer.fencingToken();
        LockHandle inner = acquire("re");
        assertThat(inner.fencingToken()).isEqualTo(token).isPositive();
        assertThat(manager.heldCount()).isEqualTo(1);
        assertThat(manager.activeThreadCount()).isEqualTo(2);
        assertThat(manager.renewedCount()).isEqualTo(1);

        inner.unlock();
        assertThat(inner.isHeld()).isFalse();
        assertThat(outer.isHeld()).isTrue();
        assertThat(engine.released).isEmpty();
        assertThatThrownBy(inner::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("was already unlocked through this handle");

        outer.close();
        assertThat(engine.released).hasSize(1);
        assertThat(manager.heldCount()).isZero();
        assertThat(manager.activeThreadCount()).isZero();
        assertThat(manager.renewedCount()).isZero();
        assertThat(observer.calls)
                .containsExactly("started re", "ACQUIRED re", "started re", "ACQUIRED re", "released re");
    }

    @Test
    void theObserverIsToldHowLongTheAcquisitionWaitedAndTheLockWasHeld() throws Exception {
        long started = System.nanoTime();
        LockHandle handle = acquire("timed");
        long acquired = System.nanoTime();
        handle.unlock();
        long released = System.nanoTime();

        assertThat(observer.waitNanos)
                .singleElement()
                .satisfies(wait -> assertThat(wait).isBetween(0L, acquired - started));
        assertThat(observer.holdNanos)
                .singleElement()
                .satisfies(hold -> assertThat(hold).isBetween(0L, released - started));
    }

    @Test
    void theLastUnlockMarksTheGrantReleased() throws Exception {
        DefaultLockHandle handle = (DefaultLockHandle) acquire("marked");
        HeldGrant held = handle.hold.heldGrant;
        assertThat(held.isReleased()).isFalse();

        handle.unlock();

        assertThat(held.isReleased()).isTrue();
        assertThat(held.hold()).isNull();
        assertThat(held.isValid()).isFalse();
    }

    @Test
    void anUnlockWhoseReleaseFailsStillEndsTheHoldAndReportsNoLoss() throws Exception {
        DefaultLockHandle handle = (DefaultLockHandle) acquire("failing");
        engine.releaseFailure = new IllegalStateException("release fails");

        assertThatThrownBy(handle::unlock)
                .isInstanceOf(LockReleaseException.class)
                .hasMessageContaining("release fails");

        assertThat(handle.isHeld()).isFalse();
        assertThat(handle.hold.heldGrant.isReleased()).isTrue();
        assertThat(handle.gate.local.isLocked()).as("the local lock is free").isFalse();
        assertThat(manager.heldCount()).isZero();
        assertThat(manager.activeThreadCount()).isZero();
        assertThat(observer.calls).containsExactly("started failing", "ACQUIRED failing", "released failing");
    }

    @Test
    void twoThreadsAskingForOneHoldsTokenAtOnceGetTheSameOne() throws Exception {
        LockHandle handle = acquire("asked-twice");
        HeldGrant held = ((DefaultLockHandle) handle).hold.heldGrant;
        CountDownLatch issuing = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        engine.onIssueTokens = () -> {
            issuing.countDown();
            try {
                goOn.await();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        };
        List<Long> tokens = new CopyOnWriteArrayList<>();
        Thread first = new Thread(() -> tokens.add(handle.fencingToken()), "first-asker");
        Thread second = new Thread(() -> tokens.add(handle.fencingToken()), "second-asker");
        try {
            first.start();
            assertThat(issuing.await(5, TimeUnit.SECONDS)).isTrue();
            second.start();
            // The second finds no token yet and waits for the first, which is having it issued.
            Await.until("the second asker waits", Duration.ofSeconds(5), () -> held.tokenLock.hasQueuedThread(second));
        } finally {
            goOn.countDown();
            first.join(5000);
            second.join(5000);
        }

        assertThat(tokens).hasSize(2).containsOnly(handle.fencingToken());
        assertThat(engine.issuedCounts).as("issued once").containsExactly(1);
        handle.unlock();
    }

    @Test
    void theManagerCountsTheRenewalsThatAreOverdue() throws Exception {
        engine.keepAliveFailure = new IllegalStateException("database down");
        // Taken 20 s ago with a 30 s lease and never renewed since: overdue after 15 s, lost only after 29 s.
        engine.sentOffsetNanos = -Duration.ofSeconds(20).toNanos();
        LockHandle handle = acquire("overdue");

        assertThat(manager.overdueRenewalCount()).isEqualTo(1);

        handle.unlock();
        assertThat(manager.overdueRenewalCount()).isZero();
    }

    @Test
    void theShutdownEndsTheReleaseAndListenerThreads() throws Exception {
        engine.boundsRelease = false; // released on a thread of the manager's
        AtomicReference<Thread> listenerThread = new AtomicReference<>();
        manager.addListener(event -> listenerThread.set(Thread.currentThread()));
        LockHandle handle = acquire("threads");
        engine.releaseAnswer = new Loss(LossCause.REMOVED, "its row was deleted");
        assertThatThrownBy(handle::unlock).isInstanceOf(LockLostException.class);
        Await.until("the listener is told", Duration.ofSeconds(5), () -> listenerThread.get() != null);
        Thread releaser = engine.releaseThreads.get(0);
        Thread notifier = listenerThread.get();
        assertThat(releaser.getName()).isEqualTo("bizlock-release");
        assertThat(notifier.getName()).isEqualTo("bizlock-lost-listeners");

        manager.shutdown(Duration.ZERO);

        // Idle pool threads would otherwise live on: a release thread for a minute, the listeners' for good.
        releaser.join(5000);
        assertThat(releaser.isAlive()).as("the release thread ended").isFalse();
        notifier.join(5000);
        assertThat(notifier.isAlive()).as("the listeners' thread ended").isFalse();
    }

    @Test
    void aNamesFirstBindingAndItsAcquisitionShareOneDeadline() throws Exception {
        AtomicLong bindingDeadline = new AtomicLong();
        ModeBindingStore slowBindings = new ModeBindingStore() {
            @Override
            public Binding bind(String name, Binding wanted, long deadlineNanos) {
                bindingDeadline.set(deadlineNanos);
                try {
                    Thread.sleep(50); // a round trip to the database
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                return wanted;
            }

            @Override
            public String changeStatements(String name, Binding wanted) {
                return "";
            }
        };
        StubEngine stub = new StubEngine();
        try (LockManager locks = LockManager.builder("one-deadline")
                .engine(stub)
                .modeBindings(slowBindings)
                .build()) {
            locks.tryAcquire(new LockKey("first", "k"), LockMode.LEASE, Duration.ofSeconds(1), null)
                    .orElseThrow()
                    .close();

            assertThat(stub.lastDeadlineNanos)
                    .as("the acquisition ends when the wait that the binding began ends, not a wait after it")
                    .isEqualTo(bindingDeadline.get() - LockEngine.DEADLINE_SLACK.toNanos());
        }
    }

    @Test
    void aLockHeldElsewhereTimesOutAndHoldsNothing() throws Exception {
        engine.heldElsewhere.add(key("busy"));
        assertThat(manager.tryAcquire(key("busy"), LockMode.LEASE, Duration.ofMillis(1), null))
                .isEmpty();
        assertThat(manager.activeThreadCount()).isZero();
        assertThat(observer.calls).containsExactly("started busy", "TIMED_OUT busy");
        engine.heldElsewhere.clear();
        acquire("busy").unlock();
    }

    @Test
    void onlyTheAcquiringThreadMayUnlock() throws Exception {
        LockHandle handle = acquire("mine");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                handle.unlock();
            } catch (Throwable ex) {
                thrown.set(ex);
            }
        });
        other.start();
        other.join();
        assertThat(thrown.get())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("only the thread that acquired a lock may unlock it");
        assertThat(handle.isHeld()).isTrue();
        handle.unlock();
    }

    @Test
    void theHandleNamesItsLockAndSaysWhetherItHasATokenYet() throws Exception {
        LockHandle handle = acquire("named");
        assertThat(handle.name()).isEqualTo("stub");
        assertThat(handle.key()).isEqualTo("named");
        assertThat(handle.mode()).isEqualTo(LockMode.LEASE);
        assertThat(handle).hasToString("LockHandle[LEASE stub/named, no token yet, held]");
        long token = handle.fencingToken();
        assertThat(handle).hasToString("LockHandle[LEASE stub/named, token " + token + ", held]");
        handle.unlock();
        assertThat(handle).hasToString("LockHandle[LEASE stub/named, token " + token + ", not held]");
    }

    @Test
    void tokensOnDemandAreIssuedOnceAndReservedForThreadsThatWait() throws Exception {
        LockHandle handle = acquire("tokens");
        long first = handle.fencingToken();
        assertThat(handle.fencingToken()).isEqualTo(first);
        assertThat(engine.issuedCounts).as("nobody waits: one token").containsExactly(1);
        handle.unlock();
        assertThat(handle.fencingToken()).as("issued while held").isEqualTo(first);

        LockHandle unasked = acquire("tokens");
        unasked.unlock();
        assertThatThrownBy(unasked::fencingToken)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was unlocked before its fencing token was asked for");

        LockHandle second = acquire("tokens");
        assertThat(second.fencingToken()).isGreaterThan(first);
        second.unlock();
    }

    @Test
    void aLostHoldIsNotIssuedATokenNorReEntered() throws Exception {
        LockHandle handle = acquire("lost");
        Gate gate = ((DefaultLockHandle) handle).gate;
        gate.heldGrant.markLost(new Loss(LossCause.TAKEN_OVER, "taken over in the test"));
        assertThat(handle.isHeld()).isFalse();
        assertThatThrownBy(handle::fencingToken).isInstanceOf(LockLostException.class);
        assertThatThrownBy(() -> acquire("lost"))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("taken over in the test");
        assertThatThrownBy(handle::unlock)
                .isInstanceOf(LockLostException.class)
                .satisfies(ex ->
                        assertThat(((LockLostException) ex).event().cause()).isEqualTo(LossCause.TAKEN_OVER));
        Await.until("released in the background", Duration.ofSeconds(5), () -> engine.released.size() == 1);
        assertThat(manager.activeThreadCount()).isZero();
        assertThat(observer.calls)
                .as("a loss recorded before the unlock is not reported again by it")
                .containsExactly("started lost", "ACQUIRED lost", "started lost", "FAILED lost", "released lost");
    }

    @Test
    void aReleaseThatFindsTheLockGoneIsReportedAsALossAtUnlock() throws Exception {
        List<LockLostEvent> told = new CopyOnWriteArrayList<>();
        manager.addListener(told::add);
        LockHandle handle = acquire("gone");
        engine.releaseAnswer = new Loss(LossCause.REMOVED, "its row was deleted");
        assertThatThrownBy(handle::unlock).isInstanceOf(LockLostException.class).satisfies(ex -> {
            LockLostEvent event = ((LockLostException) ex).event();
            assertThat(event.cause()).isEqualTo(LossCause.REMOVED);
            assertThat(event.reason()).isEqualTo("at unlock, its row was deleted");
        });
        Await.until("the listener is told", Duration.ofSeconds(5), () -> !told.isEmpty());
        assertThat(told)
                .singleElement()
                .satisfies(event -> assertThat(event.key()).isEqualTo("gone"));
        assertThat(manager.heldCount()).isZero();
    }

    @Test
    void theWatchdogRenewsDueGrantsAndReportsTheOnesTheDatabaseNoLongerHolds() throws Exception {
        // 3 s, renewed every second: a loaded machine must not let the lease end between two renewals.
        try (LockManager fast = LockManager.builder("fast")
                .engine(engine)
                .modeBindings(StubEngine.ANY_MODE)
                .watchdogLease(Duration.ofSeconds(3))
                .observer(observer)
                .build()) {
            List<LockLostEvent> told = new CopyOnWriteArrayList<>();
            fast.addListener(told::add);
            AtomicReference<LockHandle> held = new AtomicReference<>();
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch interrupted = new CountDownLatch(1);
            Thread holder = new Thread(
                    () -> {
                        try {
                            held.set(fast.tryAcquire(
                                            key("renewed"),
                                            LockMode.LEASE,
                                            Duration.ZERO,
                                            null,
                                            LockLostPolicy.INTERRUPT)
                                    .orElseThrow());
                            holding.countDown();
                            new CountDownLatch(1).await(); // until interrupted
                        } catch (InterruptedException ex) {
                            interrupted.countDown();
                        }
                    },
                    "renewed-holder");
            holder.start();
            holding.await();
            Await.until("renewed", Duration.ofSeconds(5), () -> observer.calls.contains("renewed 1"));
            assertThat(held.get().isHeld()).isTrue();
            assertThat(fast.overdueRenewalCount()).isZero();
            assertThat(engine.keptAlive).allSatisfy(grants -> assertThat(grants).hasSize(1));

            engine.keepAliveLoss = new Loss(LossCause.TAKEN_OVER, "another owner");
            assertThat(interrupted.await(5, TimeUnit.SECONDS))
                    .as("INTERRUPT interrupts the holder")
                    .isTrue();
            Await.until("the listener is told", Duration.ofSeconds(5), () -> !told.isEmpty());
            assertThat(told).singleElement().satisfies(event -> {
                assertThat(event.cause()).isEqualTo(LossCause.TAKEN_OVER);
                assertThat(event.holderThread()).isEqualTo("renewed-holder");
            });
            assertThat(held.get().isHeld()).isFalse();
            assertThat(fast.renewedCount()).isZero();
            holder.join();
        }
    }

    @Test
    void aLostLockUnlockedAfterShutdownIsReportedLostThoughItsReleaseFails() throws Exception {
        // A lease long enough that the renewal (after a third of it) finds the take-over before the lease could end on
        // a loaded machine: the loss must be the watchdog's, recorded, not the lease's local end (then the shutdown
        // would report its own).
        LockManager fast = LockManager.builder("fast")
                .engine(engine)
                .modeBindings(StubEngine.ANY_MODE)
                .watchdogLease(Duration.ofSeconds(3))
                .observer(observer)
                .build();
        LockHandle handle = fast.tryAcquire(key("lost-then-shut-down"), LockMode.LEASE, Duration.ZERO, null)
                .orElseThrow();
        engine.keepAliveLoss = new Loss(LossCause.TAKEN_OVER, "another owner");
        Await.until(
                "the watchdog records the take-over",
                Duration.ofSeconds(10),
                () -> observer.calls.contains("lost lost-then-shut-down TAKEN_OVER"));
        fast.shutdown(Duration.ZERO);
        engine.releaseFailure = new IllegalStateException("database down");
        assertThatThrownBy(handle::unlock)
                .isInstanceOf(LockLostException.class)
                .satisfies(ex ->
                        assertThat(((LockLostException) ex).event().cause()).isEqualTo(LossCause.TAKEN_OVER));
    }

    @Test
    void failedRenewalsAreRetriedAndTheGrantIsLostWhenItsLeaseEnds() throws Exception {
        engine.keepAliveFailure = new IllegalStateException("database down");
        // The first renewal (after a third of the lease) must come before the lease's end even on a loaded machine,
        // so the loss carries the renewal's error; with 300 ms the lease could end before the watchdog ran at all.
        try (LockManager fast = LockManager.builder("fast")
                .engine(engine)
                .modeBindings(StubEngine.ANY_MODE)
                .watchdogLease(Duration.ofSeconds(3))
                .observer(observer)
                .build()) {
            LockHandle handle = fast.tryAcquire(key("unrenewed"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow();
            Await.until("a renewal failed", Duration.ofSeconds(10), () -> observer.calls.contains("renewalFailed 1"));
            Await.until("lost", Duration.ofSeconds(10), () -> observer.calls.contains("lost unrenewed LEASE_EXPIRED"));
            assertThat(handle.isHeld()).isFalse();
            assertThatThrownBy(handle::unlock)
                    .isInstanceOf(LockLostException.class)
                    .hasMessageContaining("database down");
        }
    }

    @Test
    void aShutdownInterruptedDuringItsGracePeriodReleasesAtOnceAndKeepsTheInterrupt() throws Exception {
        LockHandle handle = acquire("interrupted-shutdown");
        Thread.currentThread().interrupt();
        try {
            manager.shutdown(Duration.ofDays(1));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(engine.releasedAll).hasSize(1);
        assertThat(handle.isHeld()).isFalse();
    }

    @Test
    void theShutdownReportsLocksStillHeldAsLostReleasesThemAtOnceAndRefusesNewOnes() throws Exception {
        List<LockLostEvent> told = new CopyOnWriteArrayList<>();
        manager.addListener(told::add);
        LockHandle handle = acquire("held");

        manager.close();

        assertThat(engine.releasedAll)
                .singleElement()
                .satisfies(grants -> assertThat(grants)
                        .singleElement()
                        .satisfies(grant -> assertThat(grant.key()).isEqualTo(key("held"))));
        assertThat(told)
                .singleElement()
                .satisfies(event -> assertThat(event.cause()).isEqualTo(LossCause.SHUTDOWN));
        assertThat(handle.isHeld()).isFalse();
        assertThatThrownBy(() -> acquire("new"))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("bizlock is shutting down");
        assertThatThrownBy(handle::unlock).isInstanceOf(LockLostException.class);
        assertThat(engine.released).as("given back by the shutdown, not again").isEmpty();
        manager.close();
        assertThat(engine.releasedAll)
                .as("only the first shutdown does anything")
                .hasSize(1);
    }
}
