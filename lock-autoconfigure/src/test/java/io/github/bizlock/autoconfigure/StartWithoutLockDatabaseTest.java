package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.actuate.BizLockHealthIndicator;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application starts while its lock database does not answer (the default, {@code bizlock.fail-fast=false}): the
 * start logs where bizlock tried and what to check, every lock fails saying the same and the health is down, and once
 * the database answers locks work without a restart, the tables migrated at the first of them.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class StartWithoutLockDatabaseTest {

    @Test
    void locksFailSayingWhyUntilTheDatabaseAnswersThenWork(TestDatabase database, CapturedOutput output)
            throws IOException, InterruptedException {
        int port = TcpForwarder.closedPort();
        String url = TcpForwarder.onPort(database.jdbcUrl(), port);
        List<String> properties = List.of(
                "spring.datasource.url=" + url,
                "spring.datasource.username=" + database.username(),
                "spring.datasource.password=" + database.password());

        try (ConfigurableApplicationContext application = FailedStart.start(properties)) {
            assertThat(output.getAll())
                    .contains("bizlock could not connect to the lock database at " + url)
                    .contains("The application starts without it: every lock fails until it answers")
                    .contains("bizlock.fail-fast=true");
            LockTemplate locks = application.getBean(LockTemplate.class);
            assertThat(locks.instanceId()).isNotBlank();

            assertThatThrownBy(() -> locks.acquire("order", "1"))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("bizlock could not connect to the lock database at " + url)
                    .hasMessageContaining("Communications link failure")
                    .hasMessageContaining(
                            "spring.datasource.url, spring.datasource.username and" + " spring.datasource.password")
                    .hasMessageContaining("Locks fail, holding nothing, until it answers");
            assertThatThrownBy(() -> locks.tryAcquire("order", "1", Duration.ZERO))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining(url);
            assertThat(tableExists(database)).as("nothing migrated yet").isFalse();
            BizLockHealthIndicator health = application.getBean(BizLockHealthIndicator.class);
            Health down = health.health(true);
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(down.getDetails().get("error"))).contains(url);

            try (TcpForwarder ignored = TcpForwarder.open(port, database.jdbcUrl())) {
                AtomicReference<LockHandle> held = new AtomicReference<>();
                Await.until("a lock once the database answers", Duration.ofSeconds(30), () -> {
                    try {
                        Optional<LockHandle> lock = locks.tryAcquire("order", "1", Duration.ZERO);
                        lock.ifPresent(held::set);
                        return lock.isPresent();
                    } catch (LockAcquisitionException ex) {
                        return false; // within a second of the last attempt, or the forwarder not accepting yet
                    }
                });
                try (LockHandle lock = held.get()) {
                    assertThat(lock.fencingToken()).isPositive();
                    assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
                    assertThat(tableExists(database))
                            .as("migrated at the first lock")
                            .isTrue();
                }
            }
        }
    }

    private static boolean tableExists(TestDatabase database) {
        Integer count = new JdbcTemplate(database.dataSource())
                .queryForObject(
                        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"
                                + " AND table_name = 'biz_lock'",
                        Integer.class);
        return count != null && count > 0;
    }
}
