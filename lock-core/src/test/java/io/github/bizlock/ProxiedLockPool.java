package io.github.bizlock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.test.FreezingProxy;
import io.github.bizlock.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A pool like the lock pool the starter makes (4 connections, at least 1 idle, HikariCP's other defaults), through a
 * {@link FreezingProxy}, that lends connections without checking them first, as HikariCP does with one used less than
 * 500 ms ago: a busy lock pool's connections always are. A test that freezes the proxy's connections then meets them.
 */
public final class ProxiedLockPool {

    public static final int SIZE = 4;

    private ProxiedLockPool() {}

    public static HikariDataSource open(FreezingProxy network, TestDatabase database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(network.jdbcUrl());
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(SIZE);
        config.setMinimumIdle(1);
        String bypass = "com.zaxxer.hikari.aliveBypassWindowMs"; // read once, when the pool is made
        System.setProperty(bypass, String.valueOf(TimeUnit.HOURS.toMillis(1)));
        try {
            return new HikariDataSource(config);
        } finally {
            System.clearProperty(bypass);
        }
    }

    /** Opens all the pool's connections, and gives them back to it: a freeze then catches every one. */
    public static void openAll(HikariDataSource pool) throws SQLException {
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
                connections.add(pool.getConnection());
            }
        } finally {
            for (Connection connection : connections) {
                connection.close();
            }
        }
    }
}
