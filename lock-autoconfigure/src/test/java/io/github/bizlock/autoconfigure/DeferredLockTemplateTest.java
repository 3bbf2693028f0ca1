package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.MultiLockHandle;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.TestServices;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * The application's lock template before and after the lock beans are made: what works without them, what fails
 * saying why, and {@link Lock} views asked for before the lock database answered, which lock once it does.
 */
@ExtendWith(TestDatabaseExtension.class)
class DeferredLockTemplateTest {

    private LockDaos dao;
    private LockManager manager;
    private LockService service;

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    @BeforeEach
    void setUp(DataSource dataSource) {
        dao = LockFixture.daos(dataSource);
        manager = LockFixture.manager(dao, InstanceId.generate()).build();
        service = TestServices.of(manager, dao);
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    /** A template whose lock beans come from the given supplier, as the bean factory makes them. */
    private static LockTemplate deferred(Supplier<LockService> lockService) {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition(
                "bizLockService",
                BeanDefinitionBuilder.genericBeanDefinition(LockService.class, lockService)
                        .getBeanDefinition());
        return new DeferredLockTemplate(
                new LockDatabaseStartup(beans, false),
                Duration.ZERO,
                "configured-instance",
                LockLostPolicy.ROLLBACK_ONLY);
    }

    private boolean held(String name, String key) {
        return dao.leases().find(new LockKey(name, key)).map(LockRow::held).orElse(false);
    }

    @Test
    void whileTheLockBeansCannotBeMadeLocksFailSayingWhyAndTheRestWorks() {
        LockTemplate template = deferred(() -> {
            throw new IllegalStateException("the lock tables are missing");
        });

        assertThat(template.instanceId()).isEqualTo("configured-instance");
        assertThat(template.onLost(LockOptions.defaults())).isEqualTo(LockLostPolicy.ROLLBACK_ONLY);
        assertThat(template.onLost(LockOptions.defaults().onLost(LockLostPolicy.INTERRUPT)))
                .isEqualTo(LockLostPolicy.INTERRUPT);
        // The cause the bean factory wrapped, not its "Error creating bean" words.
        String why = "bizlock could not set up its locks: the lock tables are missing";
        assertThatThrownBy(() -> template.acquire("order", "1"))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining(why);
        assertThatThrownBy(() -> template.tryAcquire("order", "1", Duration.ZERO))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining(why);
        assertThatThrownBy(() -> template.acquireAll("order", List.of("1", "2")))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining(why);
        assertThatThrownBy(() -> template.tryAcquireAll("order", List.of("1", "2"), Duration.ZERO))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining(why);
        Lock view = template.asLock("order", "1");
        assertThatThrownBy(view::tryLock).isInstanceOf(LockAcquisitionException.class);
        assertThat(held("order", "1")).isFalse();
    }

    @Test
    void aLockViewAskedForBeforeTheLockBeansWereMadeLocksAndUnlocksThroughTheManager() throws Exception {
        LockTemplate template = deferred(() -> service);
        Lock view = template.asLock("deferred", "1");

        assertThat(view.tryLock()).isTrue();
        assertThat(held("deferred", "1")).isTrue();
        view.unlock();
        assertThat(held("deferred", "1")).isFalse();

        view.lock();
        assertThat(held("deferred", "1")).isTrue();
        view.unlock();
        view.lockInterruptibly();
        assertThat(held("deferred", "1")).isTrue();
        view.unlock();
        assertThat(view.tryLock(10, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(held("deferred", "1")).isTrue();
        view.unlock();
        assertThat(held("deferred", "1")).isFalse();
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(view::newCondition);

        try (LockManager elsewhere =
                        LockFixture.manager(dao, InstanceId.generate()).build();
                LockHandle ignored = elsewhere
                        .tryAcquire(new LockKey("deferred", "1"), LockMode.LEASE, Duration.ZERO, null)
                        .orElseThrow()) {
            assertThat(view.tryLock()).as("held by another instance").isFalse();
            assertThat(view.tryLock(10, TimeUnit.MILLISECONDS)).isFalse();
        }
    }

    @Test
    void keysTakenTogetherBeforeAndAfterTheLockBeansWereMadeGoThroughTheManager() {
        LockTemplate template = deferred(() -> service);
        try (MultiLockHandle both = template.acquireAll("deferred-all", List.of("2", "1"))) {
            assertThat(both.keys()).containsExactly("1", "2");
            assertThat(held("deferred-all", "1")).isTrue();
            assertThat(held("deferred-all", "2")).isTrue();
        }
        try (MultiLockHandle both = template.tryAcquireAll("deferred-all", List.of("1", "3"), Duration.ZERO)
                .orElseThrow()) {
            assertThat(both.fencingToken("1")).isPositive();
            assertThat(held("deferred-all", "3")).isTrue();
        }
        assertThat(held("deferred-all", "1")).isFalse();
        assertThat(held("deferred-all", "3")).isFalse();
    }

    @Test
    void permitsTakenBeforeAndAfterTheLockBeansWereMadeGoThroughTheManager() {
        LockTemplate template = deferred(() -> service);
        try (PermitHandle first = template.acquirePermit("deferred-permits", "k", 2);
                PermitHandle second = template.tryAcquirePermit("deferred-permits", "k", 2, Duration.ZERO)
                        .orElseThrow()) {
            assertThat(List.of(first.slot(), second.slot())).containsExactlyInAnyOrder(0, 1);
            assertThat(held("deferred-permits", "k#0")).isTrue();
            assertThat(held("deferred-permits", "k#1")).isTrue();
            assertThat(second.fencingToken()).isPositive();
        }
        assertThat(held("deferred-permits", "k#0")).isFalse();
        assertThat(held("deferred-permits", "k#1")).isFalse();
    }

    /** The failure of a first connection, as the DAO's bean reports it. */
    private static RuntimeException unreachable() {
        return new LockDatabaseUnreachableException(
                "jdbc:mysql://127.0.0.1:1/app", "Communications link failure (Connection reset)", new SQLException());
    }

    @Test
    void aLockThatWaitsGetsItWhenTheDatabaseAnswersWithinItsWait() {
        AtomicInteger attempts = new AtomicInteger();
        LockTemplate template = deferred(() -> {
            if (attempts.incrementAndGet() <= 3) {
                throw unreachable();
            }
            return service;
        });
        assertThatThrownBy(() -> template.tryAcquire("waits", "1", Duration.ZERO))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("Connection reset");

        // Right after a failed attempt: not its failure, but new attempts within the wait, the third of which answers.
        try (LockHandle lock =
                template.tryAcquire("waits", "1", Duration.ofSeconds(30)).orElseThrow()) {
            assertThat(held("waits", "1")).isTrue();
            assertThat(lock.fencingToken()).isPositive();
        }
        assertThat(attempts).hasValue(4);
    }

    @Test
    void aLockThatWaitsWhileTheDatabaseDoesNotAnswerFailsWhenItsWaitEnds() {
        AtomicInteger attempts = new AtomicInteger();
        LockTemplate template = deferred(() -> {
            attempts.incrementAndGet();
            throw unreachable();
        });
        Duration wait = Duration.ofMillis(700);

        long start = System.nanoTime();
        assertThatThrownBy(() -> template.tryAcquire("waits", "2", wait))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("Connection reset")
                .hasMessageContaining("Locks fail, holding nothing, until it answers");
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        // It gives up when no try is left before its deadline: at most one retry interval early.
        assertThat(took).isGreaterThanOrEqualTo(wait.minus(LockDatabaseStartup.WAITING_RETRY_EVERY));
        assertThat(attempts.get()).as("tries within the wait").isGreaterThan(1);
    }

    @Test
    void aSetUpMistakeFailsALockThatWaitsAtOnce() {
        AtomicInteger attempts = new AtomicInteger();
        LockTemplate template = deferred(() -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("the lock tables are missing");
        });

        long start = System.nanoTime();
        assertThatThrownBy(() -> template.tryAcquire("waits", "3", Duration.ofSeconds(30)))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("the lock tables are missing");

        // Waiting would not mend it: one attempt, and a bound far below the wait.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(attempts).hasValue(1);
    }
}
