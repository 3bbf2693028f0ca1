package io.github.bizlock.benchmarks;

import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
            "CREATE TABLE bench_row (k VARBINARY(191) NOT NULL PRIMARY KEY) ENGINE=InnoDB");

    private BenchSchema() {}

    static void create(BenchServer server) throws SQLException {
        List<String> ddl = new ArrayList<>();
        String lease = LockSchema.ddl(TableName.DEFAULT).replaceAll("(?m)^--.*$", "");
        Arrays.stream(lease.split(";"))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .forEach(ddl::add);
        ddl.addAll(PEER_DDL);
        try (Connection connection = DriverManager.getConnection(server.url(), server.user(), server.password());
                Statement statement = connection.createStatement()) {
            for (String sql : ddl) {
                statement.execute(sql);
            }
        }
    }
}
