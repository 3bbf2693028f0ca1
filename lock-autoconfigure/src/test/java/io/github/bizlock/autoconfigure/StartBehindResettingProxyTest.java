package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.test.FreezingProxy;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application starts while a proxy in front of its database (ProxySQL, HAProxy, a cloud SQL proxy) accepts
 * connections and resets them, the database behind it down; where {@link StartWithoutLockDatabaseTest}'s port refuses
 * them. Once the proxy forwards again, locks work within about a second, whatever bizlock tried while it was down.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class StartBehindResettingProxyTest {

    /**
     * How long the database stays down after the start: long enough for a connection pool retrying in the background
     * to slow to its slowest pace (HikariCP's: a try every 5 s).
     */
    private static final Duration OUTAGE = Duration.ofSeconds(6);

    /** A little over the slowest pace of a pool's background tries. */
    private static final Duration BACKGROUND_PACE = Duration.ofMillis(5500);

    /**
     * A ceiling on a loaded machine for the first lock after the database answers, its check of the tables (Flyway's
     * validation) included; not a measurement.
     */
    private static final Duration FIRST_LOCK_CEILING = Duration.ofSeconds(3);

    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void aLockOfEachModeThatWaitsGetsItSoonAfterTheProxyForwardsAgain(TestDatabase database, CapturedOutput output)
            throws IOException, InterruptedException {
        // The tables of an earlier run, as when an application that ran before restarts while its database is down:
        // the first lock after it answers checks them, and creating them is not what the bound below is about.
        FailedStart.startsWith(FailedStart.on(database));
        try (FreezingProxy proxy = new FreezingProxy(database.jdbcUrl())) {
            proxy.refuse();
            List<String> properties = List.of(
                    "spring.datasource.url=" + proxy.jdbcUrl(),
                    "spring.datasource.username=" + database.username(),
                    "spring.datasource.password=" + database.password());

            try (ConfigurableApplicationContext application = FailedStart.start(properties)) {
                long started = System.nanoTime();
                assertThat(output.getAll())
                        .contains("bizlock could not connect to the lock database at " + proxy.jdbcUrl())
                        .contains("The application starts without it");
                LockTemplate locks = application.getBean(LockTemplate.class);
                assertThatThrownBy(() -> locks.tryAcquire("down", "1", Duration.ofMillis(500)))
                        .isInstanceOf(LockAcquisitionException.class)
                        .hasMessageContaining(proxy.jdbcUrl())
                        .hasMessageContaining("Connection reset");
                Thread.sleep(Math.max(
                        0, OUTAGE.minusNanos(System.nanoTime() - started).toMillis()));
                // The worst moment for a pool that retries in the background at that pace is just after its try: the
                // database answers then, if a connection no lock made comes within the pace.
                int tries = proxy.refusedConnections();
                long deadline = System.nanoTime() + BACKGROUND_PACE.toNanos();
                while (proxy.refusedConnections() == tries && System.nanoTime() - deadline < 0) {
                    Thread.sleep(5);
                }
                // A lock tried just before the database answers, as an application taking requests would.
                assertThatThrownBy(() -> locks.tryAcquire("down", "1", Duration.ZERO))
                        .isInstanceOf(LockAcquisitionException.class)
                        .hasMessageContaining(proxy.jdbcUrl());

                proxy.admit();
                long forwarding = System.nanoTime();
                LockMode[] modes = {LockMode.LEASE, LockMode.ROW, LockMode.NAMED};
                for (LockMode mode : modes) {
                    LockOptions options = LockOptions.defaults().mode(mode).waitTime(WAIT);
                    try (LockHandle lock = locks.acquire("after-" + mode, "1", options)) {
                        assertThat(lock.fencingToken()).as(mode.name()).isPositive();
                    }
                    if (mode == modes[0]) {
                        Duration took = Duration.ofNanos(System.nanoTime() - forwarding);
                        System.out.printf("First lock %d ms after the proxy forwards again%n", took.toMillis());
                        assertThat(took)
                                .as("the first lock after the proxy forwards again")
                                .isLessThan(FIRST_LOCK_CEILING);
                    }
                }
            }
        }
    }
}
