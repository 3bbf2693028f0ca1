package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;

/** A lock table migrated by an earlier release is upgraded at start-up, and names get bound from then on. */
@ExtendWith(TestDatabaseExtension.class)
class BizLockSchemaUpgradeTest {

    @Test
    void aVersion3LockTableGetsTheModeTableAndBindsNamesFromItsFirstUse(TestDatabase database) {
        Flyway.configure(BizLockSchemaUpgradeTest.class.getClassLoader())
                .dataSource(database.dataSource())
                .locations(LockSchema.MIGRATION_LOCATION)
                .table(BizLockSchemaInitializer.historyTable(TableName.DEFAULT))
                .placeholders(Map.of(LockSchema.TABLE_PLACEHOLDER, TableName.DEFAULT))
                .target("3")
                .load()
                .migrate();
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        // A lock the earlier release took in LEASE, and released.
        jdbc.update("INSERT INTO biz_lock (biz_type, biz_id, owner_id, fencing_token, expire_at, created_at,"
                + " acquired_at, modified_at) VALUES ('order', '1', NULL, 5, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6),"
                + " UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))");

        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        BizLockAutoConfiguration.class))
                .withPropertyValues(BizLockAutoConfigurationTest.datasource(database))
                .withPropertyValues("bizlock.housekeeping.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM biz_lock_mode", Integer.class))
                            .as("names in use before the upgrade are not bound in advance")
                            .isZero();
                    LockTemplate locks = context.getBean(LockTemplate.class);
                    try (LockHandle lock = locks.acquire("order", "1")) {
                        assertThat(lock.fencingToken()).isGreaterThan(5);
                    }
                    assertThatThrownBy(() -> locks.acquire(
                                    "order", "1", LockOptions.defaults().mode(LockMode.ROW)))
                            .isInstanceOf(LockModeConflictException.class);
                });
    }
}
