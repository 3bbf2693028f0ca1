package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockStatus;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.CannotAcquireLockException;

@ExtendWith(TestDatabaseExtension.class)
/** ROW and NAMED locks, which the auto-configuration gives the lock service plain connections for. */
class SessionLocksAutoConfigurationTest {

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = BizLockAutoConfigurationTest.runner(database, BizLockAutoConfiguration.class);
    }

    @Test
    void rowAndNamedLocksHoldConnectionsOfTheirOwnNotTheApplicationsPool() {
        runner.run(context -> {
            assertThat(context.getBean(LockService.class).status().modes())
                    .containsExactlyInAnyOrder(LockMode.LEASE, LockMode.ROW, LockMode.NAMED);
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
    void aHeartbeatThatIsNotPositiveFailsTheStart() {
        runner.withPropertyValues("bizlock.session.heartbeat=0s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("bizlock.session.heartbeat")
                        .hasMessageContaining("it must be positive"));
    }

    @Test
    void aBlankSecretOfNamedLocksFailsTheStart() {
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
            LockService locks = context.getBean(LockService.class);
            assertThat(service.run(locks)).containsExactly(LockMode.NAMED);
            assertThat(locks.localLocks()).isEmpty();
        });
    }

    @Test
    void backsOffWhenDisabled() {
        runner.withPropertyValues("bizlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockService.class));
    }

    static class NamedLockedService {

        /** Returns the modes of the locks this process holds while the method runs. */
        @DistributedLock(name = "annotated", key = "'x'", mode = LockMode.NAMED)
        public List<LockMode> run(LockService locks) {
            return locks.localLocks().stream().map(LockStatus.LocalLock::mode).toList();
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
