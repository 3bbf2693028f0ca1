package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @DistributedLock(keys = ...)}: several keys locked together by one annotated method, each value a key of its
 * own, in the lock's order whatever the arguments' order; bad keys fail the call before it runs; {@code key} and
 * {@code keys} together fail the start.
 */
@ExtendWith(TestDatabaseExtension.class)
class DistributedLockKeysTest {

    static class Accounts {

        private final ObjectProvider<BizLockDao> dao;
        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicInteger overlaps = new AtomicInteger();
        private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

        Accounts(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        /** The locks the database holds while the method runs, as {@code name/key}. */
        @DistributedLock(
                name = "account",
                keys = {"#from", "#to"})
        public List<String> transfer(String from, String to) {
            calls.incrementAndGet();
            return dao.getObject().findHeld(10).stream()
                    .map(row -> row.name() + "/" + row.key())
                    .sorted()
                    .toList();
        }

        @DistributedLock(name = "account", keys = "#ids", waitTime = "0")
        public List<String> settle(Collection<String> ids) {
            return transfer("settle", "settle");
        }

        @DistributedLock(name = "account", keys = "#ids")
        public List<String> settleAll(long[] ids) {
            return transfer("settle", "settle");
        }

        /** Counts itself in on both accounts; a second holder of either would see the other. */
        @DistributedLock(
                name = "ledger",
                keys = {"#from", "#to"},
                waitTime = "30s")
        public void book(String from, String to) {
            AtomicInteger a = inside.computeIfAbsent(from, key -> new AtomicInteger());
            AtomicInteger b = inside.computeIfAbsent(to, key -> new AtomicInteger());
            if (a.incrementAndGet() != 1 | b.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            Thread.onSpinWait();
            a.decrementAndGet();
            b.decrementAndGet();
        }

        /** Read through a method: the bean is a class-based proxy, whose own fields are unset. */
        public int calls() {
            return calls.get();
        }

        public int overlaps() {
            return overlaps.get();
        }
    }

    static class BothKeyAndKeys {

        @DistributedLock(name = "account", key = "#from", keys = "#to")
        public void transfer(String from, String to) {}
    }

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = LockFixtures.runner(database).withBean(Accounts.class);
    }

    @Test
    void eachValueIsAKeyOfItsOwnAndAllAreHeldWhileTheMethodRuns() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.transfer("b", "a")).containsExactly("account/a", "account/b");
            assertThat(accounts.settle(List.of("3", "1", "3"))).containsExactly("account/1", "account/3");
            assertThat(accounts.settleAll(new long[] {2, 1})).containsExactly("account/1", "account/2");
            assertThat(context.getBean(BizLockDao.class).findHeld(10))
                    .as("released after the call")
                    .isEmpty();
        });
    }

    @Test
    void oppositeOrdersFromManyThreadsNeverDeadlockNorOverlap() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            ExecutorService threads = Executors.newFixedThreadPool(6);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    boolean forward = t % 2 == 0;
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < 20; i++) {
                            accounts.book(forward ? "A" : "B", forward ? "B" : "A");
                        }
                    }));
                }
                for (Future<?> future : done) {
                    future.get(2, TimeUnit.MINUTES);
                }
            } finally {
                threads.shutdownNow();
            }
            assertThat(accounts.overlaps()).as("holders that met another").isZero();
        });
    }

    @Test
    void badKeysFailTheCallBeforeItRuns() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThatThrownBy(() -> accounts.settle(List.of()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Accounts.settle(Collection)")
                    .hasMessageContaining("gave no key to lock");
            assertThatThrownBy(() -> accounts.settle(Arrays.asList("1", null)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key expression '#ids', element 1, is null");
            assertThatThrownBy(() -> accounts.transfer("a", null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key expression '#to' evaluated to null");
            assertThatThrownBy(() -> accounts.settle(List.of("1", "2\0")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Key 1 of the 2 keys")
                    .hasMessageContaining("U+0000");
            assertThat(accounts.calls()).as("calls that ran").isZero();
        });
    }

    @Test
    void aKeyHeldElsewhereFailsTheCallHoldingNoneOfItsKeys() throws Exception {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            LockTemplate locks = context.getBean(LockTemplate.class);
            Throwable failure = LockFixtures.whileHeldElsewhere(locks, "account", "3", () -> {
                try {
                    accounts.settle(List.of("1", "3", "5"));
                    return null;
                } catch (LockAcquisitionException ex) {
                    return ex;
                }
            });
            assertThat(failure).isInstanceOf(LockAcquisitionException.class).hasMessageContaining("account/[1, 3, 5]");
            assertThat(accounts.calls()).as("calls that ran").isZero();
            assertThat(context.getBean(BizLockDao.class).findHeld(10)).isEmpty();
        });
    }

    @Test
    void keyAndKeysTogetherFailTheStart() {
        runner.withBean(BothKeyAndKeys.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasMessageContaining("BothKeyAndKeys.transfer(String, String)")
                    .hasMessageContaining("sets both key and keys")
                    .hasMessageContaining("keys = {...} for several");
        });
    }
}
