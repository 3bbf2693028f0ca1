package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.annotation.OnFailure;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * One lock name, one mode, through the annotation and the template: a ROW method and a LEASE template call on the same
 * name would not exclude each other, so whichever comes second gets a clear error instead of a second holder. The
 * tests share a database, so each uses names of its own.
 */
@ExtendWith(TestDatabaseExtension.class)
class LockModeConflictTest {

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = LockFixtures.runner(database).withUserConfiguration(Stock.Config.class);
    }

    @Test
    void aLeaseTemplateCallAfterTheRowMethodGetsTheClearError() {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            LockTemplate locks = context.getBean(LockTemplate.class);
            stock.reserve("1");
            assertThatThrownBy(() -> locks.acquire("stock", "1"))
                    .isInstanceOfSatisfying(LockModeConflictException.class, ex -> {
                        assertThat(ex.boundMode()).isEqualTo(LockMode.ROW);
                        assertThat(ex.requestedMode()).isEqualTo(LockMode.LEASE);
                    })
                    .hasMessageContaining("'stock' is bound to mode ROW, but this call asked for LEASE")
                    .hasMessageContaining("UPDATE biz_lock_mode");
        });
    }

    @Test
    void theRowMethodIsRefusedWhileTheNameIsHeldInLeaseAndDoesNotRun() {
        runner.run(context -> {
            Stock stock = context.getBean(Stock.class);
            LockTemplate locks = context.getBean(LockTemplate.class);
            try (LockHandle lease = locks.acquire("restock", "2")) {
                assertThatThrownBy(() -> stock.restock("2"))
                        .isInstanceOf(LockModeConflictException.class)
                        .hasMessageContaining("'restock' is bound to mode LEASE, but this call asked for ROW");
                assertThatThrownBy(() -> stock.restockOrSkip("2"))
                        .as("onFailure = SKIP skips a busy lock, never a refused mode")
                        .isInstanceOf(LockModeConflictException.class);
                assertThat(stock.calls()).isZero();
                assertThat(lease.isHeld()).isTrue();
            }
        });
    }

    @Test
    void aRollingChangeOfTheDefaultModeIsRefusedByTheNewInstances() {
        runner.withPropertyValues("bizlock.mode=lease").run(old -> {
            try (LockHandle held = old.getBean(LockTemplate.class).acquire("report", "daily")) {
                runner.withPropertyValues("bizlock.mode=named")
                        .run(updated -> assertThatThrownBy(() ->
                                        updated.getBean(LockTemplate.class).acquire("report", "daily"))
                                .isInstanceOf(LockModeConflictException.class)
                                .hasMessageContaining(
                                        "'report' is bound to mode LEASE, but this call asked for NAMED"));
                assertThat(held.isHeld()).isTrue();
            }
        });
    }

    static class Stock {

        private final AtomicInteger calls = new AtomicInteger();

        /** How often a locked method ran (a method, so the proxy passes it on to the target). */
        public int calls() {
            return calls.get();
        }

        @DistributedLock(name = "stock", key = "#sku", mode = LockMode.ROW)
        public void reserve(String sku) {
            calls.incrementAndGet();
        }

        @DistributedLock(name = "restock", key = "#sku", mode = LockMode.ROW)
        public void restock(String sku) {
            calls.incrementAndGet();
        }

        @DistributedLock(name = "restock", key = "#sku", mode = LockMode.ROW, onFailure = OnFailure.SKIP)
        public void restockOrSkip(String sku) {
            calls.incrementAndGet();
        }

        @Configuration(proxyBeanMethods = false)
        static class Config {

            @Bean
            Stock stock() {
                return new Stock();
            }
        }
    }
}
