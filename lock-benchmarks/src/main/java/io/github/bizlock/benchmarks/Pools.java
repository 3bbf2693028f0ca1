package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** The one HikariCP setting every database subject gets, so that no subject wins by its pool. */
final class Pools {

    private Pools() {}

    /** The pool of a library's client: as many connections as threads, at least 2 and at most 10. */
    static HikariDataSource forClient(Env env, int threads) {
        return pool(env, Math.max(2, Math.min(threads, 10)), true);
    }

    static HikariDataSource pool(Env env, int size, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(env.jdbcUrl());
        config.setUsername(env.user());
        config.setPassword(env.password());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setAutoCommit(autoCommit);
        config.setPoolName("bench");
        return new HikariDataSource(config);
    }
}
