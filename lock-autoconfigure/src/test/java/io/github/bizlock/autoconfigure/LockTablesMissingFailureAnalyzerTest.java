package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * With {@code bizlock.migration.enabled=false} and the lock tables missing, the start fails naming the tables, the
 * property, and the DDL to run; running that DDL is enough for the next start.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class LockTablesMissingFailureAnalyzerTest {

    @Test
    void namesTheMissingTablesThePropertyAndTheDdlThatCreatesThem(TestDatabase database, CapturedOutput output) {
        List<String> properties = FailedStart.on(database);
        properties.add("bizlock.migration.enabled=false");
        properties.add("bizlock.table-name=absent_lock");

        FailedStart.Analysis analysis = FailedStart.analysis(output, properties);

        assertThat(analysis.description())
                .contains("absent_lock, absent_lock_token_floor, absent_lock_row, absent_lock_token, absent_lock_mode")
                .contains(database.name())
                .contains("bizlock.migration.enabled=false");
        assertThat(analysis.action())
                .contains("Set bizlock.migration.enabled=true")
                .contains("CREATE TABLE absent_lock (")
                .contains("CREATE TABLE absent_lock_mode (");

        AdministratorSql.run(
                new JdbcTemplate(database.dataSource()),
                analysis.action().substring(analysis.action().indexOf("CREATE TABLE absent_lock (")));
        FailedStart.startsWith(properties);
    }

    @Test
    void withMigrationOnATableDroppedAfterItsMigrationIsNamedWithTheHistoryToDrop(
            TestDatabase database, CapturedOutput output) {
        List<String> properties = FailedStart.on(database);
        properties.add("bizlock.table-name=dropped_lock");
        FailedStart.startsWith(properties);
        new JdbcTemplate(database.dataSource()).execute("DROP TABLE dropped_lock_mode");

        FailedStart.Analysis analysis = FailedStart.analysis(output, properties);

        assertThat(analysis.description())
                .contains("The bizlock tables dropped_lock_mode are missing from database " + database.name())
                .contains("although dropped_lock_migrations records bizlock's migrations as applied");
        assertThat(analysis.action())
                .startsWith("Drop dropped_lock_migrations to have bizlock create the tables at the next start")
                .contains("CREATE TABLE dropped_lock_mode (");
    }
}
