package io.github.bizlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.RestartableServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A server restart under held locks, on a server of this test's own ({@link RestartableServer}, MySQL or MariaDB as
 * {@code BIZLOCK_TEST_DB} says), never the shared one. LEASE rows survive a restart shorter than the lease: the lock
 * stays its holder's. ROW and NAMED locks end with their sessions: the holder is told within a heartbeat of the server
 * coming back, and another instance gets them at once, with a higher token.
 */
@Tag("cross-jvm")
@Tag("faults")
class ServerRestartFaultTest {

    /** Longer than a restart on a loaded machine, so the LEASE row outlives it. */
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** A session heartbeat runs every second with a lease this long. */
    private static final long HEARTBEAT = 1000;

    @Test
    void restartKeepsLeaseLocksAndEndsSessionLocksTellingTheirHolder() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try (RestartableServer server = RestartableServer.start(
                RestartableServer.flavorOfTestDatabase(), FaultSoakTest.FIRST_PORT, FaultSoakTest.LAST_PORT)) {
            String url = server.createDatabase("bizlock_restart");
            DriverManagerDataSource dataSource = new DriverManagerDataSource(url, "root", "");
            LockFixture.createSchema(dataSource);
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            Contender.createFence(jdbc);
            String product =
                    jdbc.queryForObject("SELECT VERSION()", String.class) + " (own, 127.0.0.1:" + server.port() + ")";
            try (HolderJvm holder = HolderJvm.start(url, "root", "", LEASE, "restart")) {
                long stoppedAt = System.currentTimeMillis();
                server.stop();
                server.start();
                long upAt = System.currentTimeMillis();
                System.out.printf("FAULT %s restart: the server was down %d ms%n", product, upAt - stoppedAt);
                try (LockManager manager = LockFixture.managerOfEveryMode(dataSource)
                        .watchdogLease(LEASE)
                        .build()) {
                    Contender contender = new Contender(manager, jdbc);
                    Map<LockMode, Future<Contender.Take>> takes = Map.of(
                            LockMode.LEASE,
                            threads.submit(() -> contender.take(LockMode.LEASE, "restart", upAt + 5000)),
                            LockMode.ROW,
                            threads.submit(() -> contender.take(LockMode.ROW, "restart", upAt + 5000)),
                            LockMode.NAMED,
                            threads.submit(() -> contender.take(LockMode.NAMED, "restart", upAt + 5000)));
                    for (LockMode mode : List.of(LockMode.ROW, LockMode.NAMED)) {
                        Contender.Take take = takes.get(mode).get();
                        assertThat(take.taken())
                                .as(mode + ": free once the server is back")
                                .isTrue();
                        assertThat(take.token()).isGreaterThan(holder.token(mode));
                        HolderJvm.Loss loss = holder.awaitLoss(mode, Duration.ofMillis(HEARTBEAT + 3000));
                        assertThat(loss).as(mode + ": the holder was told").isNotNull();
                        assertThat(loss.cause()).isIn(LossCause.SESSION_ENDED, LossCause.UNREACHABLE);
                        assertThat(loss.atMillis() - upAt).isLessThan(HEARTBEAT + 3000);
                        System.out.printf(
                                "FAULT %s server restart %s: holder told %d ms after the server began to stop (%s), lock"
                                        + " free %d ms after it was back%n",
                                product, mode, loss.atMillis() - stoppedAt, loss.cause(), take.atMillis() - upAt);
                    }
                    assertThat(takes.get(LockMode.LEASE).get().taken())
                            .as("LEASE: the row outlived the restart, still its holder's")
                            .isFalse();
                    assertThat(holder.loss(LockMode.LEASE)).isNull();
                    Map<LockMode, String[]> unlocked = holder.command("UNLOCK", Duration.ofSeconds(30));
                    assertThat(unlocked.get(LockMode.LEASE)[1]).isEqualTo("unlocked");
                    System.out.printf("FAULT %s server restart LEASE: kept by its holder, unlocked after%n", product);
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
