package io.github.bizlock.internal.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/** A small pool for lock writes copied from an application's HikariCP pool; loaded only when HikariCP is present. */
public final class HikariLockPool {

    /** The longest HikariCP may check an idle connection before it lends it. */
    static final long MAX_VALIDATION_MILLIS = 1000;

    private HikariLockPool() {}

    public static boolean isHikari(DataSource dataSource) {
        return dataSource instanceof HikariDataSource;
    }

    /**
     * A pool with every setting of {@code hikari} (URL, credentials, driver properties such as TLS, init SQL), resized
     * to {@code size} and opened on first use, so that it starts while the database is down, as the application's own.
     */
    public static DataSource copyOf(DataSource hikari, int size) {
        return resized(configOf((HikariDataSource) hikari), size);
    }

    /** A pool of {@code config}, resized as {@link #copyOf} does. */
    public static HikariDataSource resized(HikariConfig config, int size) {
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(Math.min(1, size));
        // HikariCP checks an idle connection before it lends it, on the borrowing thread, which an interrupt does not
        // cut short: a connection to a host that died without a word would hold a renewal or release that long past
        // its deadline. A database that answers does in far less than a second.
        config.setValidationTimeout(Math.min(config.getValidationTimeout(), MAX_VALIDATION_MILLIS));
        config.setInitializationFailTimeout(-1);
        config.setRegisterMbeans(false);
        // Started at its first connection, not here: bizlock asks for one only once the database has answered. A pool
        // started with the database down keeps trying in the background, every 5 s at last, and lends a connection only
        // when such a try succeeds, so it would hold the first locks after the database answers for up to 5 s.
        HikariDataSource pool = new HikariDataSource();
        config.copyStateTo(pool);
        return pool;
    }

    private static HikariConfig configOf(HikariDataSource hikari) {
        HikariConfig config = new HikariConfig();
        hikari.copyStateTo(config);
        // Spring Boot's pool has no name until it starts, which may be after bizlock's copy.
        String name = hikari.getPoolName();
        config.setPoolName(name != null ? name + "-bizlock" : "bizlock");
        return config;
    }
}
