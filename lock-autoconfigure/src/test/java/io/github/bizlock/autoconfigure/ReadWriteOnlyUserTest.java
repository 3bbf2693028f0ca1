package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The minimal rights README names for {@code bizlock.migration.enabled=false}: SELECT, INSERT, UPDATE and DELETE on
 * the six lock tables alone, which an administrator created, are enough to start and to lock in every mode.
 */
@ExtendWith(TestDatabaseExtension.class)
class ReadWriteOnlyUserTest {

    private static final String PASSWORD = "rw-only-1";
    private static final List<String> TABLES = List.of(
            "biz_lock", "biz_lock_token_floor", "biz_lock_row", "biz_lock_token", "biz_lock_mode", "biz_lock_reader");

    private final String user = "bizlock_rw_" + UUID.randomUUID().toString().substring(0, 8);
    private JdbcTemplate root;

    @AfterEach
    void dropUser() {
        root.execute("DROP USER IF EXISTS '" + user + "'@'%'");
    }

    @Test
    void readAndWriteOnTheLockTablesAreEnoughWithMigrationOff(TestDatabase database) {
        root = new JdbcTemplate(database.dataSource());
        AdministratorSql.run(root, LockSchema.ddl("biz_lock"));
        root.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + PASSWORD + "'");
        for (String table : TABLES) {
            root.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON `" + database.name() + "`." + table + " TO '" + user
                    + "'@'%'");
        }

        try (ConfigurableApplicationContext application = FailedStart.start(List.of(
                "spring.datasource.url=" + database.jdbcUrl(),
                "spring.datasource.username=" + user,
                "spring.datasource.password=" + PASSWORD,
                "bizlock.migration.enabled=false"))) {
            LockTemplate locks = application.getBean(LockTemplate.class);
            for (LockMode mode : LockMode.values()) {
                try (LockHandle lock = locks.acquire(
                        "rights-" + mode, "1", LockOptions.defaults().mode(mode))) {
                    assertThat(lock.fencingToken()).as("%s", mode).isPositive();
                }
            }
            for (LockMode mode : List.of(LockMode.LEASE, LockMode.ROW)) {
                try (LockHandle read = locks.acquire(
                        "rights-" + mode, "1", LockOptions.defaults().mode(mode).access(LockAccess.READ))) {
                    assertThat(read.fencingToken()).as("%s read", mode).isPositive();
                }
            }
        }
    }
}
