package io.github.bizlock.aop;

import static io.github.bizlock.aop.LockFixtures.heldInDatabase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Transactional;

/**
 * A {@code @DistributedLock} method that throws still releases its lock: at once without a transaction, and when the
 * transaction around it has rolled back with one. The lock is held (not lost) when the method throws, so only the
 * release can free it.
 */
@ExtendWith(TestDatabaseExtension.class)
class ReleaseOnFailureTest {

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = LockFixtures.runner(database).withUserConfiguration(Failing.Config.class);
    }

    @Test
    void aMethodThatThrowsReleasesItsLock() {
        runner.run(context -> {
            Failing failing = context.getBean(Failing.class);
            BizLockDao dao = context.getBean(BizLockDao.class);
            assertThatThrownBy(() -> failing.fail("7")).isInstanceOf(IllegalStateException.class);
            assertThat(failing.heldInside())
                    .as("the lock was held while the method ran")
                    .isTrue();
            assertThat(heldInDatabase(dao, "failing", "7"))
                    .as("and released when it threw")
                    .isFalse();
        });
    }

    @Test
    void aTransactionalMethodThatThrowsReleasesItsLockAfterTheRollback() {
        runner.run(context -> {
            Failing failing = context.getBean(Failing.class);
            BizLockDao dao = context.getBean(BizLockDao.class);
            assertThatThrownBy(() -> failing.failInTransaction("8")).isInstanceOf(IllegalStateException.class);
            assertThat(failing.heldInside())
                    .as("the lock was held while the method ran")
                    .isTrue();
            assertThat(heldInDatabase(dao, "failing", "8"))
                    .as("and released when the transaction rolled back")
                    .isFalse();
        });
    }

    @Test
    void aCheckedExceptionReleasesTheLockToo() {
        runner.run(context -> {
            Failing failing = context.getBean(Failing.class);
            BizLockDao dao = context.getBean(BizLockDao.class);
            assertThatThrownBy(() -> failing.failChecked("9")).isInstanceOf(Exception.class);
            assertThat(failing.heldInside())
                    .as("the lock was held while the method ran")
                    .isTrue();
            assertThat(heldInDatabase(dao, "failing", "9")).isFalse();
        });
    }

    static class Failing {

        private final BizLockDao dao;
        private volatile boolean heldInside;

        Failing(BizLockDao dao) {
            this.dao = dao;
        }

        /** Read through the proxy, which has no state of its own. */
        public boolean heldInside() {
            return heldInside;
        }

        @DistributedLock(name = "failing", key = "#id")
        public void fail(String id) {
            heldInside = heldInDatabase(dao, "failing", id);
            throw new IllegalStateException("the work failed");
        }

        @Transactional
        @DistributedLock(name = "failing", key = "#id")
        public void failInTransaction(String id) {
            heldInside = heldInDatabase(dao, "failing", id);
            throw new IllegalStateException("the work failed");
        }

        @DistributedLock(name = "failing", key = "#id")
        public void failChecked(String id) throws Exception {
            heldInside = heldInDatabase(dao, "failing", id);
            throw new Exception("the work failed");
        }

        @Configuration(proxyBeanMethods = false)
        static class Config {
            @Bean
            Failing failing(BizLockDao dao) {
                return new Failing(dao);
            }
        }
    }
}
