package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.PermitHandle;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.SimpleTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code onLost = ROLLBACK_ONLY} on the holder's thread: which transactions a guard joins, what their commit does when
 * the lock is gone, and that nothing is left on the thread once the guard is closed. Transaction synchronization is
 * driven by hand here, as a transaction manager would; the lock is a handle whose state the test sets.
 */
class RollbackGuardTest {

    /** A handle whose loss the test decides; only what the guard reads is implemented. */
    static final class Handle implements LockHandle {

        volatile boolean held = true;
        volatile long token = 42;

        @Override
        public String name() {
            return "order";
        }

        @Override
        public String key() {
            return "7";
        }

        @Override
        public LockMode mode() {
            return LockMode.ROW;
        }

        @Override
        public long fencingToken() {
            if (token == 0) {
                throw new IllegalStateException("no token was issued");
            }
            return token;
        }

        @Override
        public boolean isHeld() {
            return held;
        }

        @Override
        public void unlock() {
            held = false;
        }

        @Override
        public void close() {
            unlock();
        }
    }

    private final RollbackOnLockLost listener = new RollbackOnLockLost();

    @BeforeEach
    void startSynchronization() {
        TransactionSynchronizationManager.initSynchronization();
    }

    @AfterEach
    void clearSynchronization() {
        TransactionSynchronizationManager.clearSynchronization();
    }

    private static List<TransactionSynchronization> synchronizations() {
        return TransactionSynchronizationManager.getSynchronizations();
    }

    private static void commit() {
        for (TransactionSynchronization synchronization : synchronizations()) {
            synchronization.beforeCommit(false);
        }
    }

    /** A transaction begun on this thread: its synchronizations start empty, then the listener is told. */
    private void begin() {
        TransactionSynchronizationManager.clearSynchronization();
        TransactionSynchronizationManager.initSynchronization();
        listener.afterBegin(new SimpleTransactionStatus(), null);
    }

    @Test
    void theTransactionActiveWhenTheLockIsTakenFailsToCommitOnceTheLockIsLost() {
        Handle lock = new Handle();
        try (RollbackOnLockLost.Guard guard = RollbackOnLockLost.guard(lock, "instance-1")) {
            assertThat(synchronizations()).hasSize(1);
            assertThatCode(RollbackGuardTest::commit).doesNotThrowAnyException();
            lock.held = false;
            assertThatThrownBy(RollbackGuardTest::commit).isInstanceOfSatisfying(LockLostException.class, ex -> {
                LockLostEvent event = ex.event();
                assertThat(event.name()).isEqualTo("order");
                assertThat(event.key()).isEqualTo("7");
                assertThat(event.mode()).isEqualTo(LockMode.ROW);
                assertThat(event.fencingToken()).isEqualTo(42);
                assertThat(event.owner()).isEqualTo("instance-1");
                assertThat(event.holderThread())
                        .isEqualTo(Thread.currentThread().getName());
                assertThat(event.cause()).isEqualTo(LossCause.UNKNOWN);
                assertThat(event.reason()).contains("the transaction is rolled back");
            });
        }
    }

    /** Two keys taken together, each with its own handle. */
    static final class Handles implements MultiLockHandle {

        final Handle first = new Handle();
        final Handle second = new Handle();

        @Override
        public String name() {
            return "account";
        }

        @Override
        public List<String> keys() {
            return List.of("1", "2");
        }

        @Override
        public LockMode mode() {
            return LockMode.LEASE;
        }

        private Handle handle(String key) {
            return key.equals("1") ? first : second;
        }

        @Override
        public long fencingToken(String key) {
            return handle(key).fencingToken() + Long.parseLong(key);
        }

        @Override
        public boolean isHeld() {
            return first.held && second.held;
        }

        @Override
        public boolean isHeld(String key) {
            return handle(key).held;
        }

        @Override
        public void unlock() {
            first.unlock();
            second.unlock();
        }

        @Override
        public void close() {
            unlock();
        }
    }

    @Test
    void locksTakenTogetherFailTheCommitWhenAnyOfThemIsLostNamingThatKey() {
        Handles locks = new Handles();
        try (RollbackOnLockLost.Guard guard = RollbackOnLockLost.guard(locks, "instance-1")) {
            assertThatCode(RollbackGuardTest::commit).doesNotThrowAnyException();
            locks.second.held = false;
            assertThatThrownBy(RollbackGuardTest::commit).isInstanceOfSatisfying(LockLostException.class, ex -> {
                LockLostEvent event = ex.event();
                assertThat(event.name()).isEqualTo("account");
                assertThat(event.key()).isEqualTo("2");
                assertThat(event.mode()).isEqualTo(LockMode.LEASE);
                assertThat(event.fencingToken()).isEqualTo(44);
                assertThat(event.owner()).isEqualTo("instance-1");
            });
            guard.released();
            assertThatCode(RollbackGuardTest::commit).doesNotThrowAnyException();
        }
    }

    /** A semaphore's permit: slot 2 of 4, held through its slot's lock. */
    static final class Permit implements PermitHandle {

        final Handle slotLock = new Handle();

        @Override
        public String name() {
            return "export";
        }

        @Override
        public String key() {
            return "acme";
        }

        @Override
        public int permits() {
            return 4;
        }

        @Override
        public int slot() {
            return 2;
        }

        @Override
        public LockMode mode() {
            return LockMode.NAMED;
        }

        @Override
        public long fencingToken() {
            return slotLock.fencingToken();
        }

        @Override
        public boolean isHeld() {
            return slotLock.held;
        }

        @Override
        public void unlock() {
            slotLock.unlock();
        }

        @Override
        public void close() {
            unlock();
        }
    }

    @Test
    void aLostPermitFailsTheCommitNamingItsSlotsLock() {
        Permit permit = new Permit();
        try (RollbackOnLockLost.Guard guard = RollbackOnLockLost.guard(permit, "instance-1")) {
            assertThatCode(RollbackGuardTest::commit).doesNotThrowAnyException();
            permit.slotLock.held = false;
            assertThatThrownBy(RollbackGuardTest::commit).isInstanceOfSatisfying(LockLostException.class, ex -> {
                LockLostEvent event = ex.event();
                assertThat(event.name()).isEqualTo("export");
                assertThat(event.key()).isEqualTo("acme#2");
                assertThat(event.mode()).isEqualTo(LockMode.NAMED);
                assertThat(event.fencingToken()).isEqualTo(42);
                assertThat(event.owner()).isEqualTo("instance-1");
            });
        }
    }

    @Test
    void aLockLostBeforeItsTokenWasIssuedReportsTokenZero() {
        Handle lock = new Handle();
        lock.token = 0;
        try (RollbackOnLockLost.Guard guard = RollbackOnLockLost.guard(lock, "instance-1")) {
            lock.held = false;
            assertThatThrownBy(RollbackGuardTest::commit)
                    .isInstanceOfSatisfying(
                            LockLostException.class,
                            ex -> assertThat(ex.event().fencingToken()).isZero());
        }
    }

    @Test
    void transactionsBegunWhileTheLockIsHeldAreGuardedToo() {
        Handle lock = new Handle();
        try (RollbackOnLockLost.Guard guard = RollbackOnLockLost.guard(lock, "instance-1")) {
            begin();
            assertThat(synchronizations()).hasSize(1);
            lock.held = false;
            assertThatThrownBy(RollbackGuardTest::commit).isInstanceOf(LockLostException.class);
        }
    }

    @Test
    void aReleasedLockNoLongerConcernsCommits() {
        Handle lock = new Handle();
        try (RollbackOnLockLost.Guard guard = RollbackOnLockLost.guard(lock, "instance-1")) {
            guard.released();
            lock.unlock();
            assertThatCode(RollbackGuardTest::commit).doesNotThrowAnyException();
        }
    }

    @Test
    void nothingIsGuardedAfterTheGuardIsClosed() {
        Handle first = new Handle();
        Handle second = new Handle();
        RollbackOnLockLost.Guard outer = RollbackOnLockLost.guard(first, "instance-1");
        RollbackOnLockLost.Guard inner = RollbackOnLockLost.guard(second, "instance-1");
        begin();
        assertThat(synchronizations()).as("one per guard").hasSize(2);

        inner.close();
        begin();
        assertThat(synchronizations()).as("the outer guard only").hasSize(1);

        outer.close();
        begin();
        assertThat(synchronizations()).as("no guard left on the thread").isEmpty();
        outer.close(); // closing twice is harmless
        begin();
        assertThat(synchronizations()).isEmpty();
    }

    @Test
    void aTransactionThatFailedToBeginOrHasNoSynchronizationIsLeftAlone() {
        try (RollbackOnLockLost.Guard guard = RollbackOnLockLost.guard(new Handle(), "instance-1")) {
            TransactionSynchronizationManager.clearSynchronization();
            TransactionSynchronizationManager.initSynchronization();
            listener.afterBegin(new SimpleTransactionStatus(), new IllegalStateException("no connection"));
            assertThat(synchronizations()).isEmpty();

            TransactionSynchronizationManager.clearSynchronization();
            listener.afterBegin(new SimpleTransactionStatus(), null);
            assertThat(TransactionSynchronizationManager.isSynchronizationActive())
                    .isFalse();
            TransactionSynchronizationManager.initSynchronization();
        }
    }

    @Test
    void theCheckRunsBeforeOtherSynchronizationsOfTheCommit() {
        TransactionSynchronization other = new TransactionSynchronization() {};
        TransactionSynchronizationManager.registerSynchronization(other);
        try (RollbackOnLockLost.Guard guard = RollbackOnLockLost.guard(new Handle(), "instance-1")) {
            assertThat(synchronizations()).hasSize(2).last().isSameAs(other);
            assertThat(((Ordered) synchronizations().get(0)).getOrder()).isEqualTo(Ordered.HIGHEST_PRECEDENCE);
        }
    }
}
