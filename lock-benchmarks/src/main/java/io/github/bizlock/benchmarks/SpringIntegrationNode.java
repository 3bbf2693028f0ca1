package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** Spring Integration's JdbcLockRegistry with its defaults (DefaultLockRepository, 100 ms between tries). */
final class SpringIntegrationNode implements Node {

    private final HikariDataSource pool;
    private final DefaultLockRepository repository;
    private final JdbcLockRegistry registry;

    SpringIntegrationNode(Env env, int threads) {
        this.pool = Pools.forClient(env, threads);
        this.repository = new DefaultLockRepository(pool);
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        this.registry = new JdbcLockRegistry(repository);
    }

    @Override
    public Held lock(String key) throws Exception {
        return Held.tryLock(registry.obtain(key), "Spring Integration");
    }

    @Override
    public void close() {
        repository.stop();
        repository.close();
        pool.close();
    }
}
