package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.LockTest;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import io.github.bizlock.service.LockService;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.aop.framework.ProxyFactory;

/**
 * {@code @DistributedLock(access = READ)}: reading calls share the lock and keep writing calls out; a read lock the
 * annotation cannot have (NAMED, several keys) fails when the method is resolved, before any call.
 */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadWriteAnnotationTest {

    static class Catalog {

        final CountDownLatch inside = new CountDownLatch(2);
        final CountDownLatch leave = new CountDownLatch(1);

        @DistributedLock(name = "catalog", key = "#p0", access = LockAccess.READ, waitTime = "10s")
        public String read(String region) throws InterruptedException {
            inside.countDown();
            leave.await(30, TimeUnit.SECONDS);
            return "read " + region;
        }

        @DistributedLock(name = "catalog", key = "#p0", waitTime = "0s")
        public String write(String region) {
            return "written " + region;
        }
    }

    static class Refused {

        @DistributedLock(name = "catalog", access = LockAccess.READ, mode = LockMode.NAMED)
        public void namedRead() {}

        @DistributedLock(name = "catalog", keys = "#p0", access = LockAccess.READ)
        public void severalKeysRead(java.util.List<String> regions) {}
    }

    private LockService service;
    private LockService elsewhere;

    @BeforeAll
    void setUp(DataSource dataSource) {
        service = LockService.builder(dataSource)
                .sessionDataSource(SessionLocks.dedicated(dataSource))
                .housekeeping(false)
                .build();
        elsewhere = LockService.builder(dataSource)
                .sessionDataSource(SessionLocks.dedicated(dataSource))
                .housekeeping(false)
                .build();
    }

    @AfterAll
    void close() {
        service.close();
        elsewhere.close();
    }

    private Catalog proxy(Catalog target) {
        ProxyFactory proxies = new ProxyFactory(target);
        proxies.setProxyTargetClass(true);
        LockTemplate locks = service.template();
        proxies.addAdvisor(new DistributedLockAdvisor(() -> locks, null, 0));
        return (Catalog) proxies.getProxy();
    }

    @Test
    void readingCallsShareTheLockAndKeepWritersOut() throws Exception {
        Catalog target = new Catalog();
        Catalog catalog = proxy(target);
        CompletableFuture<?>[] readers = new CompletableFuture<?>[2];
        for (int i = 0; i < 2; i++) {
            readers[i] = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return catalog.read("eu");
                        } catch (InterruptedException ex) {
                            throw new IllegalStateException(ex);
                        }
                    },
                    ThreadPerTask.EXECUTOR);
        }
        try {
            assertThat(target.inside.await(30, TimeUnit.SECONDS))
                    .as("both readers inside at once")
                    .isTrue();
            Optional<LockHandle> write = elsewhere.template().tryAcquire("catalog", "eu", Duration.ZERO);
            assertThat(write).as("a writer of another instance while they read").isEmpty();
            assertThatThrownBy(() -> catalog.write("eu")).hasMessageContaining("catalog/eu");
        } finally {
            target.leave.countDown();
            CompletableFuture.allOf(readers).get(30, TimeUnit.SECONDS);
        }
        assertThat(catalog.write("eu")).isEqualTo("written eu");
    }

    @Test
    void aReadLockTheAnnotationCannotHaveIsRefusedWhenResolved() throws Exception {
        LockedMethodResolver resolver = new LockedMethodResolver(null, new LockKeyEvaluator(null));
        assertThatThrownBy(() -> resolver.resolve(Refused.class.getMethod("namedRead"), Refused.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NAMED read lock")
                .hasMessageContaining("mode = LEASE or ROW");
        assertThatThrownBy(() -> resolver.resolve(
                        Refused.class.getMethod("severalKeysRead", java.util.List.class), Refused.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keys takes write locks only");
    }
}
