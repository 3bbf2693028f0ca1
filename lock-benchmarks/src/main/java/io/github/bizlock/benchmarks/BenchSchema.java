package io.github.bizlock.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** Creates the tables every subject needs in the fresh benchmark database. */
final class BenchSchema {

    /** The peers' and the floors' tables. */
    private static final List<String> PEER_DDL = List.of(
            // ShedLock's documented MySQL table.
            "CREATE TABLE shedlock(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL,"
                    + " locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL,"
                    + " PRIMARY KEY (name))",
            // Spring Integration's schema-mysql.sql (7.1).
            "CREATE TABLE INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36),"
                    + " CREATED_DATE DATETIME(6) NOT NULL, EXPIRED_AFTER DATETIME(6) NOT NULL,"
                    + " constraint INT_LOCK_PK primary key (LOCK_KEY, REGION)) ENGINE=InnoDB",
            // The floors' tables: a unique key like biz_lock's, and pre-created rows for FOR UPDATE.
            "CREATE TABLE bench_insert (k VARBINARY(191) NOT NULL PRIMARY KEY) ENGINE=InnoDB",
            "CREATE TABLE bench_row (k VARBINARY(191) NOT NULL PRIMARY KEY) ENGINE=InnoDB",
            // The lease hand-off floor's lease rows: biz_lock's columns and index, without the fencing epochs.
            "CREATE TABLE bench_lease (biz_type VARBINARY(128) NOT NULL, biz_id VARBINARY(512) NOT NULL,"
                    + " owner_id VARBINARY(512) NULL, fencing_token BIGINT UNSIGNED NOT NULL,"
                    + " expire_at DATETIME(6) NOT NULL, created_at DATETIME(6) NOT NULL,"
                    + " acquired_at DATETIME(6) NOT NULL, modified_at DATETIME(6) NOT NULL,"
                    + " PRIMARY KEY (biz_type, biz_id), KEY bench_lease_modified_at (modified_at)) ENGINE=InnoDB",
            // The composite token floors' counters.
            "CREATE TABLE bench_counter (k VARBINARY(191) NOT NULL PRIMARY KEY, token BIGINT UNSIGNED NOT NULL)"
                    + " ENGINE=InnoDB");

    private BenchSchema() {}

    static void create(BenchServer server) throws SQLException {
        migrateBizLock(new DriverManagerDataSource(server.url(), server.user(), server.password()));
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
                Statement statement = connection.createStatement()) {
            for (String sql : PEER_DDL) {
                statement.execute(sql);
            }
        }
    }

    /** bizlock's tables as a user without Spring Boot makes them: bizlock's migrations run by Flyway (README). */
    private static void migrateBizLock(DriverManagerDataSource dataSource) {
        Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/bizlock/migration")
                .table("biz_lock_migrations")
                .placeholders(Map.of("bizlock_table", "biz_lock"))
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
    }
}
