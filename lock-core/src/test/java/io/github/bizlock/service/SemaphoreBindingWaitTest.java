package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockTest;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A semaphore's first use writes its name's binding within the caller's wait, not within the zero wait of one slot's
 * try: with lock connections slow to lend one (a busy pool), a permit asked for with a wait of seconds is taken,
 * where the binding failed before with "the deadline of a bizlock write passed while it waited for a pool connection".
 */
@LockTest
class SemaphoreBindingWaitTest {

    /** Longer than a zero-wait try gives a statement (the deadline slack, 1 s), well within the permit's wait. */
    private static final Duration SLOW_LEND = Duration.ofMillis(1_600);

    @Test
    void theFirstPermitOfANameIsBoundWithinTheCallersWait(TestDatabase database) {
        AtomicBoolean slow = new AtomicBoolean();
        DataSource plain = new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
        DataSource firstSlow = new DelegatingDataSource(plain) {
            @Override
            public Connection getConnection() throws SQLException {
                if (slow.getAndSet(false)) {
                    try {
                        Thread.sleep(SLOW_LEND.toMillis());
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        throw new SQLException("interrupted while lending a connection", ex);
                    }
                }
                return super.getConnection();
            }
        };
        try (LockService service = LockService.builder(database.dataSource())
                .lockConnections(firstSlow)
                .wakeUp(false)
                .housekeeping(false)
                .build()) {
            slow.set(true); // the next statement's connection: the name's binding
            Optional<PermitHandle> permit =
                    service.template().tryAcquirePermit("binding-wait", "k", 2, Duration.ofSeconds(10));
            assertThat(permit)
                    .as("a permit, its name bound on the slow first connection")
                    .isPresent();
            assertThat(slow).as("a connection was lent slowly").isFalse();
            permit.get().unlock();
        }
    }
}
