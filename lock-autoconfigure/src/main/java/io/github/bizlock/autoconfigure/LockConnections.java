package io.github.bizlock.autoconfigure;

import io.github.bizlock.internal.jdbc.LockConnectionPool;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.util.ClassUtils;

/**
 * The connections bizlock opens beside the application's pool, with the lock DataSource's settings: a small pool for
 * LEASE writes and fencing tokens, and plain connections for the sessions ROW and NAMED locks hold. From a HikariCP
 * DataSource every setting carries over (URL, credentials or credentials provider, driver or data source properties
 * such as TLS, init SQL, catalog and schema); from another pool only its URL, driver and credentials.
 */
final class LockConnections {

    private static final Logger log = LoggerFactory.getLogger(LockConnections.class);
    private static final String HIKARI = "com.zaxxer.hikari.HikariDataSource";

    private LockConnections() {}

    /**
     * A pool of at most {@code size} connections of bizlock's own: a copy of the application's HikariCP settings when
     * HikariCP is on the class path, otherwise bizlock's small pool of plain connections derived from the lock
     * DataSource's URL and credentials; {@code null} when neither can be made (lock writes then borrow from the lock
     * DataSource itself, and a warning says so).
     */
    static @Nullable DataSource pool(DataSource lockDataSource, int size) {
        return pool(lockDataSource, size, ClassUtils.isPresent(HIKARI, LockConnections.class.getClassLoader()));
    }

    static @Nullable DataSource pool(DataSource lockDataSource, int size, boolean hikariPresent) {
        if (hikariPresent) {
            return HikariLockConnections.pool(lockDataSource, size);
        }
        try {
            return new LockConnectionPool(plain(lockDataSource), size);
        } catch (IllegalStateException unreadable) {
            log.warn(
                    "bizlock: LEASE lock writes and renewals borrow connections from the application's DataSource ({}),"
                            + " and callers holding all of its connections delay them: without HikariCP bizlock opens"
                            + " connections of their own with the lock DataSource's URL and credentials, which it cannot"
                            + " read from it; add com.zaxxer:HikariCP to give them a pool of their own",
                    lockDataSource.getClass().getName());
            return null;
        }
    }

    /** Plain connections, never pooled: a session's connection is closed when it dies, and its locks with it. */
    static DataSource plain(DataSource lockDataSource) {
        if (ClassUtils.isPresent(HIKARI, LockConnections.class.getClassLoader())
                && HikariLockConnections.isHikari(lockDataSource)) {
            return HikariLockConnections.plain(lockDataSource);
        }
        try {
            return DataSourceBuilder.derivedFrom(lockDataSource)
                    .type(SimpleDriverDataSource.class)
                    .build();
        } catch (RuntimeException ex) {
            throw new IllegalStateException(
                    "bizlock cannot read the URL and credentials of the lock DataSource (" + lockDataSource.getClass()
                            + ") to open the connections ROW and NAMED locks hold; define a"
                            + " BizLockSessionAutoConfiguration.SessionConnections bean with a DataSource for them",
                    ex);
        }
    }
}
