package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/** ShedLock's {@code JdbcTemplateLockProvider} in database time. */
final class ShedLockNode implements Node {

    // ShedLock has no waiting: its waiters retry with bizlock LEASE's default backoff (LockService.Builder#backoff:
    // 5 ms doubling to 100 ms, each pause drawn from its upper half), restated here as bizlock does not publish it.
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final HikariDataSource pool;
    private final JdbcTemplateLockProvider provider;

    ShedLockNode(Env env, int threads) {
        this.pool = Pools.forClient(env, threads);
        this.provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(pool))
                .usingDbTime()
                .build());
    }

    @Override
    public Held lock(String key) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (int attempt = 1; ; attempt++) {
            Optional<SimpleLock> lock = provider.lock(
                    new LockConfiguration(Instant.now(), "bench-" + key, Duration.ofSeconds(30), Duration.ZERO));
            if (lock.isPresent()) {
                return Held.of(-1, lock.get()::unlock);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("ShedLock: not acquired in " + WAIT);
            }
            TimeUnit.NANOSECONDS.sleep(pauseNanos(attempt));
        }
    }

    /** The pause after attempt {@code attempt} (from 1). */
    private static long pauseNanos(int attempt) {
        long ceiling = Math.min(FIRST_PAUSE_NANOS << Math.min(attempt - 1, 20), LONGEST_PAUSE_NANOS);
        return ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    }

    @Override
    public void close() {
        pool.close();
    }
}
