package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.CannotAcquireLockException;

@ExtendWith(TestDatabaseExtension.class)
class BizLockSessionAutoConfigurationTest {

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = BizLockAutoConfigurationTest.runner(
                database, BizLockAutoConfiguration.class, BizLockSessionAutoConfiguration.class);
    }

    @Test
    void rowAndNamedLocksHoldConnectionsOfTheirOwnNotTheApplicationsPool() {
        runner.run(context -> {
            assertThat(context).getBeans(SessionLockEngine.class).containsOnlyKeys("rowLockEngine", "namedLockEngine");
            assertThat(row(context).mode()).isEqualTo(LockMode.ROW);
            assertThat(named(context).mode()).isEqualTo(LockMode.NAMED);
            LockTemplate locks = context.getBean(LockTemplate.class);
            HikariDataSource appPool = context.getBean(HikariDataSource.class);
            for (LockMode mode : new LockMode[] {LockMode.ROW, LockMode.NAMED}) {
                String name = "session-" + mode; // a name is bound to one mode
                try (LockHandle held =
                        locks.acquire(name, "1", LockOptions.defaults().mode(mode))) {
                    assertThat(held.mode()).isEqualTo(mode);
                    assertThat(held.fencingToken()).isPositive();
                    assertThat(appPool.getHikariPoolMXBean().getActiveConnections())
                            .as("%s holds its connection outside the application's pool", mode)
                            .isZero();
                    assertThat(locks.tryAcquire(
                                    name, "1", LockOptions.defaults().mode(mode).waitTime(Duration.ZERO)))
                            .as("reentrant in the holding thread")
                            .hasValueSatisfying(LockHandle::unlock);
                }
            }
        });
    }

    @Test
    void runningOutOfSessionConnectionsFailsAfterTheWaitNamingTheProperty() {
        runner.withPropertyValues("bizlock.session.max-connections=1").run(context -> {
            LockTemplate locks = context.getBean(LockTemplate.class);
            LockOptions row = LockOptions.defaults().mode(LockMode.ROW);
            try (LockHandle ignored = locks.acquire("session", "a", row)) {
                assertThatThrownBy(() -> locks.acquire("session", "b", row.waitTime(Duration.ofMillis(200))))
                        .isInstanceOf(CannotAcquireLockException.class)
                        .hasMessageContaining("bizlock.session.max-connections");
            }
        });
    }

    @Test
    void heldSessionsAreCheckedAsOftenAsTheHeartbeatSays() {
        Duration lease = Duration.ofSeconds(30);
        runner.run(context ->
                assertThat(row(context).renewalInterval(lease)).as("default").isEqualTo(Duration.ofSeconds(1)));
        runner.withPropertyValues("bizlock.session.heartbeat=250ms").run(context -> {
            assertThat(row(context).renewalInterval(lease)).isEqualTo(Duration.ofMillis(250));
            assertThat(named(context).renewalInterval(lease)).isEqualTo(Duration.ofMillis(250));
            assertThat(named(context).renewalInterval(Duration.ofMillis(600)))
                    .as("a third of a shorter lease")
                    .isEqualTo(Duration.ofMillis(200));
        });
        runner.withPropertyValues("bizlock.session.heartbeat=0s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("bizlock.session.heartbeat")
                        .hasMessageContaining("it must be positive"));
    }

    @Test
    void namedLockNamesAreKeyedByTheSecretWhenOneIsSet() {
        LockKey key = new LockKey("customer", "ann@example.com");
        String[] unkeyed = new String[1];
        runner.run(context -> unkeyed[0] = named(context).serverLockName(key));
        runner.withPropertyValues("bizlock.named.secret=s3cret")
                .run(context -> assertThat(named(context).serverLockName(key))
                        .hasSize(64)
                        .isNotEqualTo(unkeyed[0]));
        runner.withPropertyValues("bizlock.named.secret= ")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessage("bizlock.named.secret=(blank): it must not be blank. Set bizlock.named.secret to"
                                + " the same random text on every instance of the application, or remove it"));
    }

    @Test
    void theAnnotationTakesNamedLocksWhenAskedTo() {
        runner.withUserConfiguration(NamedLockedService.Config.class).run(context -> {
            NamedLockedService service = context.getBean(NamedLockedService.class);
            SessionLockEngine engine = named(context);
            assertThat(service.run(engine)).isEqualTo(1);
            assertThat(engine.heldSessions()).isZero();
        });
    }

    @Test
    void backsOffWhenDisabled() {
        runner.withPropertyValues("bizlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(SessionLockEngine.class));
    }

    private static SessionLockEngine row(BeanFactory context) {
        return context.getBean("rowLockEngine", SessionLockEngine.class);
    }

    private static SessionLockEngine named(BeanFactory context) {
        return context.getBean("namedLockEngine", SessionLockEngine.class);
    }

    static class NamedLockedService {

        /** Returns how many sessions the NAMED engine holds while the method runs. */
        @DistributedLock(name = "annotated", key = "'x'", mode = LockMode.NAMED)
        public int run(SessionLockEngine engine) {
            return engine.heldSessions();
        }

        @Configuration(proxyBeanMethods = false)
        static class Config {

            @Bean
            NamedLockedService namedLockedService() {
                return new NamedLockedService();
            }
        }
    }
}
