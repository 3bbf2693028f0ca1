package io.github.bizlock.autoconfigure;

import javax.sql.DataSource;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.util.ClassUtils;

/**
 * The plain connections bizlock opens beside the application's pool, with the lock DataSource's settings, for the
 * sessions ROW and NAMED locks hold (and, when the lock DataSource is not HikariCP, pooled by {@code LockService} for
 * LEASE writes; a HikariCP DataSource it copies itself). From a HikariCP DataSource every setting carries over (URL,
 * credentials or credentials provider, driver or data source properties such as TLS, init SQL, catalog and schema);
 * from another pool only its URL, driver and credentials.
 */
final class LockConnections {

    private static final String HIKARI = "com.zaxxer.hikari.HikariDataSource";

    private LockConnections() {}

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
                            + ") to open the connections ROW and NAMED locks hold; define a BizLockServiceCustomizer bean that"
                            + " gives LockService.Builder a sessionDataSource",
                    ex);
        }
    }
}
