package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.PermitsConflictException;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @DistributedLock(permits = N)}: at most N calls per key run at once, each holding a permit slot; a call finds
 * no permit within its wait and fails like a lock's; permits out of range or with {@code keys} fail the start.
 */
@ExtendWith(TestDatabaseExtension.class)
class DistributedLockPermitsTest {

    static class Exports {

        private final ObjectProvider<BizLockDao> dao;
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger mostInside = new AtomicInteger();
        private final AtomicInteger calls = new AtomicInteger();

        Exports(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        /** Counts itself in; the most calls inside at once must not exceed the permits. */
        @DistributedLock(name = "export", key = "#tenant", permits = 2, waitTime = "30s")
        public void export(String tenant) {
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            inside.decrementAndGet();
        }

        /** The locks the database holds while the method runs, as {@code name/key}. */
        @DistributedLock(name = "report", key = "#tenant", permits = 3, waitTime = "0")
        public List<String> report(String tenant) {
            calls.incrementAndGet();
            return dao.getObject().findHeld(10).stream()
                    .map(row -> row.name() + "/" + row.key())
                    .toList();
        }

        @DistributedLock(name = "report", key = "#tenant", permits = 4)
        public void reportWithOtherPermits(String tenant) {
            calls.incrementAndGet();
        }

        public int mostInside() {
            return mostInside.get();
        }

        public int calls() {
            return calls.get();
        }
    }

    static class NegativePermits {

        @DistributedLock(name = "export", permits = -1)
        public void export() {}
    }

    static class TooManyPermits {

        @DistributedLock(name = "export", permits = PermitHandle.MAX_PERMITS + 1)
        public void export() {}
    }

    static class PermitsAndKeys {

        @DistributedLock(name = "export", keys = "#tenants", permits = 2)
        public void export(List<String> tenants) {}
    }

    static class ReadPermits {

        @DistributedLock(name = "export", key = "#tenant", permits = 2, access = LockAccess.READ)
        public void export(String tenant) {}
    }

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = LockFixtures.runner(database).withBean(Exports.class);
    }

    @Test
    void atMostThePermitsRunAtOnce() {
        runner.run(context -> {
            Exports exports = context.getBean(Exports.class);
            ExecutorService threads = Executors.newFixedThreadPool(6);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 6; t++) {
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < 15; i++) {
                            exports.export("acme");
                        }
                    }));
                }
                for (Future<?> future : done) {
                    future.get(2, TimeUnit.MINUTES);
                }
            } finally {
                threads.shutdownNow();
            }
            assertThat(exports.mostInside()).as("the most calls inside at once").isBetween(1, 2);
        });
    }

    @Test
    void aCallHoldsOneSlotAndFailsWhenAllAreHeldElsewhere() {
        runner.run(context -> {
            Exports exports = context.getBean(Exports.class);
            assertThat(exports.report("acme")).singleElement().asString().matches("report/acme#[0-2]");
            LockTemplate locks = context.getBean(LockTemplate.class);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                List<PermitHandle> all = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    all.add(locks.acquirePermit("report", "acme", 3));
                }
                held.countDown();
                try {
                    done.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                all.forEach(PermitHandle::unlock);
            });
            holder.start();
            try {
                held.await();
                assertThatThrownBy(() -> exports.report("acme"))
                        .isInstanceOf(LockAcquisitionException.class)
                        .hasMessageContaining("no permit of semaphore report/acme (3 permits) was free within PT0S");
            } finally {
                done.countDown();
                holder.join(Duration.ofSeconds(10).toMillis());
            }
            assertThatThrownBy(() -> exports.reportWithOtherPermits("acme"))
                    .isInstanceOf(PermitsConflictException.class)
                    .hasMessageContaining("bound to a semaphore of 3 permits");
            assertThat(exports.calls()).as("calls that ran").isEqualTo(1);
            assertThat(context.getBean(BizLockDao.class).findHeld(10)).isEmpty();
        });
    }

    @Test
    void permitsOutOfRangeWithKeysOrForReadingFailTheStart() {
        runner.withBean(NegativePermits.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasMessageContaining("NegativePermits.export()")
                        .hasMessageContaining("sets permits = -1; set 1 to 64"));
        runner.withBean(TooManyPermits.class)
                .run(context -> assertThat(context.getStartupFailure()).hasMessageContaining("sets permits = 65"));
        runner.withBean(PermitsAndKeys.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasMessageContaining("PermitsAndKeys.export(List)")
                        .hasMessageContaining("sets both permits and keys"));
        runner.withBean(ReadPermits.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasMessageContaining("ReadPermits.export(String)")
                        .hasMessageContaining("sets permits with access = READ"));
    }
}
