package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Lock tables an administrator created from the DDL a start prints do not break a later start with migration on:
 * bizlock records the version they are at as its baseline and runs only the migrations after it, so no migration
 * fails on a table that exists and the history gets no failed row.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class LockTablesMadeByHandTest {

    private List<String> properties;
    private JdbcTemplate jdbc;

    @BeforeEach
    void createTheTablesByHand(TestDatabase database) {
        properties = FailedStart.on(database);
        properties.add("bizlock.housekeeping.enabled=false");
        jdbc = new JdbcTemplate(database.dataSource());
        AdministratorSql.run(jdbc, LockSchema.ddl("biz_lock"));
    }

    @AfterEach
    void dropTheTables() {
        jdbc.execute("DROP TABLE IF EXISTS biz_lock, biz_lock_token_floor, biz_lock_row, biz_lock_token, biz_lock_mode,"
                + " biz_lock_reader, biz_lock_migrations");
    }

    @Test
    void aStartWithMigrationOnRecordsThemAsTheBaselineAndLocks() {
        try (ConfigurableApplicationContext application = FailedStart.start(properties)) {
            assertThat(history())
                    .as("one baseline row at the latest version, nothing run, nothing failed")
                    .containsExactly(Map.of("version", "8", "type", "BASELINE", "success", true));
            try (LockHandle lock = application.getBean(LockTemplate.class).acquire("order", "1")) {
                assertThat(lock.fencingToken()).isPositive();
            }
        }
    }

    @Test
    void tablesOfAnEarlierReleaseGetOnlyTheLaterMigrations() {
        // The DDL as bizlock 3 printed it: no mode table (V4, with V8's permits), no fencing epoch columns (V5, V6)
        // and no read-write locks (V7) yet.
        jdbc.execute("DROP TABLE biz_lock_mode, biz_lock_reader");
        jdbc.execute("ALTER TABLE biz_lock DROP COLUMN read_until, DROP COLUMN write_intent_until");
        dropFencingEpochColumns();

        try (ConfigurableApplicationContext application = FailedStart.start(properties)) {
            assertThat(history())
                    .containsExactly(
                            Map.of("version", "3", "type", "BASELINE", "success", true),
                            Map.of("version", "4", "type", "SQL", "success", true),
                            Map.of("version", "5", "type", "SQL", "success", true),
                            Map.of("version", "6", "type", "SQL", "success", true),
                            Map.of("version", "7", "type", "SQL", "success", true),
                            Map.of("version", "8", "type", "SQL", "success", true));
            try (LockHandle lock = application.getBean(LockTemplate.class).acquire("order", "1")) {
                assertThat(lock.fencingToken()).isPositive();
            }
        }
    }

    @Test
    void tablesOfAnEarlierReleaseFailAStartWithMigrationOffNamingTheDdl() {
        dropFencingEpochColumns();
        properties.add("bizlock.migration.enabled=false");

        // Every table exists, so only the check of their columns at start can tell: without it the start succeeds
        // and the first lock fails.
        assertThatThrownBy(() -> FailedStart.start(properties))
                .hasMessageContaining("does not exist, or lacks a column of this version")
                .hasMessageContaining("ALTER TABLE biz_lock_token_floor");
    }

    @Test
    void tablesThatMatchNoVersionFailTheStartNamingWhatIsMissing(CapturedOutput output) {
        jdbc.execute("DROP INDEX biz_lock_row_created_at ON biz_lock_row"); // V3's index, under V4's table

        assertThatThrownBy(() -> FailedStart.start(properties)).isNotNull();

        assertThat(output.getAll())
                .contains("The bizlock tables in this database were created without its migrations and match no"
                        + " version of them")
                .contains("biz_lock_token_floor.token_boot, biz_lock.read_until, biz_lock.write_intent_until,"
                        + " biz_lock_reader, biz_lock_mode.permits exist, but biz_lock_row_created_at do not")
                .contains("CREATE INDEX biz_lock_row_created_at ON biz_lock_row (created_at);");
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"
                                + " AND table_name = 'biz_lock_migrations'",
                        Integer.class))
                .as("no history, so no failed row to repair")
                .isZero();
    }

    private List<Map<String, Object>> history() {
        return jdbc
                .queryForList("SELECT version, type, success FROM biz_lock_migrations ORDER BY installed_rank")
                .stream()
                .map(row -> Map.<String, Object>of(
                        "version", row.get("version"), "type", row.get("type"), "success", row.get("success")))
                .toList();
    }

    /** The columns the migrations V5 and V6 add, which the tables of bizlock 3 do not have. */
    private void dropFencingEpochColumns() {
        for (String table : List.of("biz_lock", "biz_lock_token", "biz_lock_token_floor")) {
            jdbc.execute("ALTER TABLE " + table + " DROP COLUMN token_server, DROP COLUMN token_epoch");
        }
        jdbc.execute("ALTER TABLE biz_lock_token_floor DROP COLUMN token_boot");
    }
}
