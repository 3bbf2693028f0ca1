package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The template fills in what a call's options leave unset from its defaults, and offers locks as JDK {@link Lock}s. */
class DefaultLockTemplateTest {

    private final StubEngine lease = new StubEngine(LockMode.LEASE);
    private final StubEngine row = new StubEngine(LockMode.ROW);
    private final LockManager manager = LockManager.builder("template")
            .engine(lease)
            .engine(row)
            .modeBindings(StubEngine.ANY_MODE)
            .build();

    @AfterEach
    void close() {
        manager.close();
    }

    private LockSnapshot only() {
        assertThat(manager.locks()).hasSize(1);
        return manager.locks().get(0);
    }

    @Test
    void callsWithoutOptionsUseTheTemplatesDefaults() {
        LockTemplate template = new DefaultLockTemplate(
                manager, LockMode.ROW, Duration.ofMillis(5), Duration.ofMinutes(1), LockLostPolicy.INTERRUPT);
        assertThat(template.instanceId()).isEqualTo("template");
        try (LockHandle handle = template.acquire("t", "defaults")) {
            assertThat(handle.mode()).isEqualTo(LockMode.ROW);
            LockSnapshot held = only();
            assertThat(held.renewedByWatchdog()).as("the default fixed lease").isFalse();
            assertThat(held.onLost()).isEqualTo(LockLostPolicy.INTERRUPT);
        }
        row.heldElsewhere.add(new LockKey("t", "busy"));
        assertThatThrownBy(() -> template.acquire("t", "busy"))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessage("Lock t/busy (ROW) is held elsewhere and was not acquired within PT0.005S");
    }

    @Test
    void optionsOverrideTheDefaults() {
        LockTemplate template = new DefaultLockTemplate(manager, LockMode.ROW, Duration.ofSeconds(10), null);
        assertThat(template.onLost(LockOptions.defaults())).isEqualTo(LockLostPolicy.LOG);
        LockOptions options = LockOptions.defaults()
                .mode(LockMode.LEASE)
                .waitTime(Duration.ZERO)
                .leaseTime(Duration.ofSeconds(5))
                .onLost(LockLostPolicy.ROLLBACK_ONLY);
        assertThat(template.onLost(options)).isEqualTo(LockLostPolicy.ROLLBACK_ONLY);
        try (LockHandle handle = template.acquire("t", "options", options)) {
            assertThat(handle.mode()).isEqualTo(LockMode.LEASE);
            assertThat(only().renewedByWatchdog()).isFalse();
            assertThat(only().onLost()).isEqualTo(LockLostPolicy.ROLLBACK_ONLY);
        }
        try (LockHandle handle = template.acquire("w", "watchdog")) {
            assertThat(handle.mode()).isEqualTo(LockMode.ROW);
            assertThat(only().renewedByWatchdog())
                    .as("no default lease: the watchdog renews")
                    .isTrue();
        }
        lease.heldElsewhere.add(new LockKey("t", "busy"));
        assertThatThrownBy(() -> template.acquire("t", "busy", options))
                .hasMessage("Lock t/busy (LEASE) is held elsewhere and was not acquired within PT0S");
    }

    @Test
    void defaultsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ofNanos(-1), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anInterruptedWaitThrowsAndKeepsTheInterrupt() {
        LockTemplate template = new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ofSeconds(10), null);
        Thread.currentThread().interrupt();
        try {
            lease.heldElsewhere.add(new LockKey("t", "interrupted"));
            assertThatThrownBy(() -> template.acquire("t", "interrupted"))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessage("Interrupted while waiting for lock t/interrupted; nothing is held")
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aJdkLockViewLocksReentrantlyAndUnlocksItsHoldsInTurn() throws Exception {
        LockTemplate template = new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ofSeconds(10), null);
        Lock lock = template.asLock("t", "jdk", LockOptions.defaults().mode(LockMode.ROW));
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(1, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(only().mode()).isEqualTo(LockMode.ROW);
        assertThat(manager.activeThreadCount()).isEqualTo(3);
        lock.unlock();
        lock.unlock();
        assertThat(manager.heldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(manager.heldCount()).isZero();
        assertThat(row.released).hasSize(1);
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessage("Lock t/jdk is not held by thread "
                        + Thread.currentThread().getName());
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aJdkLockViewHeldElsewhereIsNotTaken() throws Exception {
        LockTemplate template = new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ofSeconds(10), null);
        lease.heldElsewhere.add(new LockKey("t", "elsewhere"));
        Lock lock = template.asLock("t", "elsewhere", LockOptions.defaults());
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(-1, TimeUnit.SECONDS))
                .as("a negative wait tries once")
                .isFalse();
        assertThat(manager.activeThreadCount()).isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aJdkLockViewsLockWaitsThroughInterruptsAndKeepsThem() throws Exception {
        LockTemplate template = new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ofSeconds(10), null);
        Lock lock = template.asLock("t", "uninterruptible", LockOptions.defaults());
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        AtomicReference<Integer> held = new AtomicReference<>();
        Thread locker = new Thread(() -> {
            Thread.currentThread().interrupt();
            lock.lock();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            held.set(manager.heldCount());
            lock.unlock();
        });
        locker.start();
        locker.join(5000);
        assertThat(held.get()).isEqualTo(1);
        assertThat(interruptedAfter.get()).isTrue();
        Thread.currentThread().interrupt();
        try {
            assertThat(lock.tryLock())
                    .as("tryLock reports an interrupt as not acquired")
                    .isFalse();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        assertThat(manager.activeThreadCount()).isZero();
    }
}
