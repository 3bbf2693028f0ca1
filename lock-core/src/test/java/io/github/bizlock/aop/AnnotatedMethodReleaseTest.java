package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.LockTest;
import io.github.bizlock.Locks;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.LockManager;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.SimpleTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A {@code @DistributedLock} method's lock over the call's whole life, without Spring Boot: taken before it runs,
 * released when it returns or throws (or when the surrounding transaction ends), and what a call that does not get it
 * does. The lock state is read from the lock table, so a release that never happened cannot pass.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnnotatedMethodReleaseTest {

    static class Orders {

        final AtomicReference<Runnable> during = new AtomicReference<>(() -> {});

        @DistributedLock(name = "order", key = "#p0")
        public String ship(String id) {
            during.get().run();
            return "shipped " + id;
        }

        @DistributedLock(name = "order", key = "#p0", leaseTime = "300ms")
        public void shipWithShortLease(String id) {
            during.get().run();
        }

        @DistributedLock(name = "order", key = "#p0", onLost = LockLostPolicy.ROLLBACK_ONLY)
        public void shipGuarded(String id) {
            during.get().run();
        }

        @DistributedLock(name = "order", key = "#p0", leaseTime = "300ms", onLost = LockLostPolicy.ROLLBACK_ONLY)
        public void shipGuardedWithShortLease(String id) {
            during.get().run();
        }

        @DistributedLock(name = "order", key = "#p0", waitTime = "0s")
        public void shipOrFail(String id) {}

        @DistributedLock(name = "order", key = "#p0", waitTime = "0s", onFailure = OnFailure.SKIP)
        public String shipOrSkip(String id) {
            return "shipped";
        }

        @DistributedLock(name = "order", key = "#p0", waitTime = "0s", onFailure = OnFailure.SKIP)
        public Optional<String> shipOrEmpty(String id) {
            return Optional.of("shipped");
        }

        @DistributedLock(
                name = "order",
                key = "#p0",
                waitTime = "0s",
                onFailure = OnFailure.FALLBACK,
                fallback = "later")
        public String shipOrLater(String id) {
            return "shipped";
        }

        String later(String id) {
            return "later " + id;
        }

        @DistributedLock(
                name = "order",
                key = "#p0",
                waitTime = "0s",
                onFailure = OnFailure.FALLBACK,
                fallback = "refuse")
        public String shipOrRefuse(String id) throws IOException {
            return "shipped";
        }

        String refuse(String id) throws IOException {
            throw new IOException("refused " + id);
        }

        public String unlocked() {
            return "free";
        }
    }

    /** Its public methods are locked by a subclass's annotation, under the subclass's name. */
    static class Carrier {

        final AtomicReference<Runnable> during = new AtomicReference<>(() -> {});

        public void dispatch() {
            during.get().run();
        }
    }

    @DistributedLock
    static class ExpressCarrier extends Carrier {}

    private DataSource dataSource;
    private LeaseDao dao;
    private LockManager manager;
    private LockManager elsewhere;
    private LockTemplate locks;
    private LockTemplate otherInstance;
    private Orders target;
    private Orders orders;

    @BeforeAll
    void setUp(Locks fixture) {
        DataSource dataSource = fixture.dataSource();
        this.dataSource = dataSource;
        dao = fixture.dao();
        manager = fixture.manager();
        elsewhere = fixture.manager();
        locks = LockFixture.template(manager);
        otherInstance = LockFixture.template(elsewhere);
        target = new Orders();
        orders = proxy(target);
    }

    private boolean heldInTheDatabase(String id) {
        return heldInTheDatabase("order", id);
    }

    private boolean heldInTheDatabase(String name, String key) {
        return dao.find(new LockKey(name, key)).map(LockRow::held).orElse(false);
    }

    private <T> T proxy(T target) {
        ProxyFactory proxies = new ProxyFactory(target);
        proxies.setProxyTargetClass(true);
        proxies.addAdvisor(new DistributedLockAdvisor(() -> locks, null, 0));
        @SuppressWarnings("unchecked")
        T proxy = (T) proxies.getProxy();
        return proxy;
    }

    private void during(Runnable action) {
        target.during.set(action);
    }

    @Test
    void theLockIsHeldWhileTheMethodRunsAndReleasedWhenItReturns() {
        AtomicReference<Boolean> heldDuring = new AtomicReference<>();
        during(() -> heldDuring.set(heldInTheDatabase("1")));
        assertThat(orders.ship("1")).isEqualTo("shipped 1");
        assertThat(heldDuring.get()).isTrue();
        assertThat(heldInTheDatabase("1")).isFalse();
        assertThat(orders.unlocked()).isEqualTo("free");
    }

    @Test
    void theLockIsReleasedWhenTheMethodThrowsAndTheFailureIsPassedOnAsItIs() {
        IllegalStateException failure = new IllegalStateException("carrier down");
        during(() -> {
            throw failure;
        });
        assertThatThrownBy(() -> orders.ship("2")).isSameAs(failure);
        assertThat(failure.getSuppressed()).isEmpty();
        assertThat(heldInTheDatabase("2")).isFalse();
        assertThat(otherInstance.tryAcquire("order", "2", Duration.ZERO))
                .as("another instance gets the lock at once")
                .hasValueSatisfying(LockHandle::unlock);
    }

    @Test
    void aLockLostBeforeTheMethodThrowsIsReportedAsSuppressedByTheFailure() {
        AtomicReference<LockHandle> takenOver = new AtomicReference<>();
        IllegalStateException failure = new IllegalStateException("carrier down");
        during(() -> {
            // The fixed lease ends without renewal; another instance takes the lock, then the method fails.
            awaitTakeOver("3", takenOver);
            throw failure;
        });
        assertThatThrownBy(() -> orders.shipWithShortLease("3")).isSameAs(failure);
        assertThat(failure.getSuppressed()).singleElement().isInstanceOf(LockLostException.class);
        assertThat(takenOver.get().isHeld()).as("the new holder keeps the lock").isTrue();
        takenOver.get().unlock();
    }

    @Test
    void insideATransactionTheLockIsReleasedWhenTheTransactionEnds() {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        during(() -> {});
        boolean heldAfterTheCall = transaction.execute(status -> {
            orders.ship("4");
            return heldInTheDatabase("4");
        });
        assertThat(heldAfterTheCall).as("held until the transaction ends").isTrue();
        assertThat(heldInTheDatabase("4")).as("released once it committed").isFalse();

        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
                    orders.ship("5");
                    throw new IllegalStateException("rolled back");
                }))
                .hasMessage("rolled back");
        assertThat(heldInTheDatabase("5")).as("released once it rolled back").isFalse();
    }

    @Test
    void insideATransactionOtherSynchronizationsCompleteWhileTheLockIsStillHeld() {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        AtomicReference<Boolean> heldAtCompletion = new AtomicReference<>();
        during(() -> TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                heldAtCompletion.set(heldInTheDatabase("11"));
            }
        }));
        transaction.executeWithoutResult(status -> orders.ship("11"));
        assertThat(heldAtCompletion.get()).as("the lock is released last").isTrue();
        assertThat(heldInTheDatabase("11")).isFalse();
    }

    @Test
    void theAdviceAppliedToEveryMethodLetsThoseWithoutTheAnnotationRunWithoutALock() {
        // A proxy made with the advice alone, without the advisor's pointcut, sends every call through it.
        ProxyFactory proxies = new ProxyFactory(new Orders());
        proxies.setProxyTargetClass(true);
        proxies.addAdvice(new DistributedLockAdvisor(() -> locks, null, 0).getAdvice());
        Orders everyCall = (Orders) proxies.getProxy();
        assertThat(everyCall.unlocked()).isEqualTo("free");
        assertThat(everyCall.ship("13")).isEqualTo("shipped 13");
    }

    @Test
    void aClassAnnotationLocksTheMethodsItsClassInheritsUnderTheBeanClassesName() {
        ExpressCarrier target = new ExpressCarrier();
        Carrier carrier = proxy(target);
        AtomicReference<Boolean> heldDuring = new AtomicReference<>();
        target.during.set(
                () -> heldDuring.set(heldInTheDatabase("ExpressCarrier.dispatch", DistributedLock.DEFAULT_KEY)));
        carrier.dispatch();
        assertThat(heldDuring.get()).isTrue();
        assertThat(heldInTheDatabase("ExpressCarrier.dispatch", DistributedLock.DEFAULT_KEY))
                .isFalse();
    }

    @Test
    void rollbackOnlyFailsTheCommitOfTheCallersTransactionWhenTheLockWasLostDuringTheCall() {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        AtomicReference<LockHandle> takenOver = new AtomicReference<>();
        during(() -> awaitTakeOver("12", takenOver));
        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> orders.shipGuardedWithShortLease("12")))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("onLost = ROLLBACK_ONLY");
        assertThat(takenOver.get().isHeld()).as("the new holder keeps the lock").isTrue();
        takenOver.get().unlock();
    }

    /** Lets the fixed lease end without renewal, until another instance takes the lock. */
    private void awaitTakeOver(String id, AtomicReference<LockHandle> takenOver) {
        try {
            Await.until("the lease ends and another instance takes the lock", Duration.ofSeconds(30), () -> {
                otherInstance.tryAcquire("order", id, Duration.ZERO).ifPresent(takenOver::set);
                return takenOver.get() != null;
            });
        } catch (InterruptedException ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void aGuardedMethodLeavesNoGuardOnTheThreadWhetherItReturnsOrThrows() {
        during(() -> {});
        orders.shipGuarded("6");
        assertThat(guardsLeftOnThisThread()).isZero();

        during(() -> {
            throw new IllegalStateException("failed");
        });
        assertThatThrownBy(() -> orders.shipGuarded("6")).hasMessage("failed");
        assertThat(guardsLeftOnThisThread()).isZero();
        assertThat(heldInTheDatabase("6")).isFalse();
    }

    /** How many guards a transaction begun now on this thread would be joined by. */
    private static int guardsLeftOnThisThread() {
        TransactionSynchronizationManager.initSynchronization();
        try {
            new RollbackOnLockLost().afterBegin(new SimpleTransactionStatus(), null);
            return TransactionSynchronizationManager.getSynchronizations().size();
        } finally {
            TransactionSynchronizationManager.clearSynchronization();
        }
    }

    @Test
    void aCallThatDoesNotGetTheLockThrowsSkipsOrFallsBack() throws Exception {
        try (LockHandle held = otherInstance.acquire("order", "8")) {
            assertThatThrownBy(() -> orders.shipOrFail("8"))
                    .isInstanceOfSatisfying(LockAcquisitionException.class, ex -> {
                        assertThat(ex.lockName()).isEqualTo("order");
                        assertThat(ex.lockKey()).isEqualTo("8");
                    })
                    .hasMessageContaining(".shipOrFail(String): lock order/8 is held elsewhere and was not acquired"
                            + " within PT0S");
            assertThat(orders.shipOrSkip("8")).isNull();
            assertThat(orders.shipOrEmpty("8")).isEmpty();
            assertThat(orders.shipOrLater("8")).isEqualTo("later 8");
            assertThatThrownBy(() -> orders.shipOrRefuse("8"))
                    .isInstanceOf(IOException.class)
                    .hasMessage("refused 8");
            assertThat(held.isHeld()).isTrue();
        }
        assertThat(orders.shipOrSkip("8")).isEqualTo("shipped");
        assertThat(orders.shipOrEmpty("8")).contains("shipped");
        assertThat(orders.shipOrLater("8")).isEqualTo("shipped");
        assertThat(heldInTheDatabase("8")).isFalse();
    }

    @Test
    void withoutAWaitTimeTheFailureNamesTheDefault() throws Exception {
        // A template whose default wait is zero, so the call fails at once.
        LockTemplate noWait = new DefaultLockTemplate(manager, LockMode.LEASE, Duration.ZERO, null);
        ProxyFactory proxies = new ProxyFactory(new Orders());
        proxies.setProxyTargetClass(true);
        proxies.addAdvisor(new DistributedLockAdvisor(() -> noWait, null, 0));
        Orders failFast = (Orders) proxies.getProxy();
        try (LockHandle held = otherInstance.acquire("order", "9")) {
            assertThatThrownBy(() -> failFast.ship("9"))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageEndingWith("acquired within the default wait time (bizlock.wait-time)");
        }
    }
}
