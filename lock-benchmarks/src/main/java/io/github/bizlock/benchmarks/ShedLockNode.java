package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/** ShedLock has no waiting: a waiter retries with the same backoff as bizlock's LEASE engine. */
final class ShedLockNode implements Node {

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
            TimeUnit.NANOSECONDS.sleep(BizLockNode.BACKOFF.pauseNanos(attempt));
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
