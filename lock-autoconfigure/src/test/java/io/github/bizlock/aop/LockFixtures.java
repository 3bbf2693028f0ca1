package io.github.bizlock.aop;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.autoconfigure.BizLockAutoConfiguration;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A context runner with bizlock on a test database, and helpers to look at and hold locks. */
final class LockFixtures {

    private LockFixtures() {}

    static ApplicationContextRunner runner(TestDatabase database) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SpringBootAutoConfigurations.of("jdbc", "DataSourceAutoConfiguration"),
                        SpringBootAutoConfigurations.of("jdbc", "DataSourceTransactionManagerAutoConfiguration"),
                        SpringBootAutoConfigurations.of("jdbc", "JdbcTemplateAutoConfiguration"),
                        SpringBootAutoConfigurations.of("transaction", "TransactionAutoConfiguration"),
                        AopAutoConfiguration.class,
                        BizLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + database.jdbcUrl(),
                        "spring.datasource.username=" + database.username(),
                        "spring.datasource.password=" + database.password(),
                        "bizlock.housekeeping.enabled=false");
    }

    /** A lost-lock listener bean that a test points at a listener of its own while the context runs. */
    @Configuration(proxyBeanMethods = false)
    static class ForwardedLosses {

        volatile @Nullable LockLostListener target;

        @Bean
        LockLostListener forwardedLosses() {
            return event -> {
                LockLostListener listener = target;
                if (listener != null) {
                    listener.onLockLost(event);
                }
            };
        }
    }

    /** Whether the database says the lock is held now. */
    static boolean heldInDatabase(BizLockDao dao, String name, String key) {
        return dao.find(name, key).map(BizLockDao.Row::held).orElse(false);
    }

    /** Runs {@code action} while another thread holds the lock, and returns what it returned. */
    static <T> T whileHeldElsewhere(LockTemplate locks, String name, String key, ThrowingSupplier<T> action)
            throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<?> holder = other.submit(() -> {
                try (LockHandle ignored = locks.acquire(name, key)) {
                    held.countDown();
                    done.await(30, TimeUnit.SECONDS);
                }
                return null;
            });
            if (!held.await(30, TimeUnit.SECONDS)) {
                holder.get();
                throw new IllegalStateException("the other thread did not get the lock");
            }
            try {
                return action.get();
            } finally {
                done.countDown();
                holder.get(30, TimeUnit.SECONDS);
            }
        } finally {
            other.shutdownNow();
        }
    }

    static final Duration LONG = Duration.ofSeconds(30);

    @FunctionalInterface
    interface ThrowingSupplier<T> {
        T get() throws Exception;
    }
}
