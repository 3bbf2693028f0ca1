package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A bad {@code bizlock.*} property fails the start with an analysis that names the property, what is wrong with its
 * value, and the value to set.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class BizLockPropertyFailureAnalyzerTest {

    private static final String LONG_TABLE = "lock_table_whose_migration_history_index_is_long";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bizlock.lease-time=0s                | must be positive                      | Set bizlock.lease-time to a duration from 1ms to 365d
            bizlock.lease-time=400d              | must be at most 365 days              | Set bizlock.lease-time to a duration from 1ms to 365d
            bizlock.wait-time=-1s                | must not be negative                  | Set bizlock.wait-time to 0 (a single attempt)
            bizlock.watchdog-lease=100ms         | must be at least 300ms                | Set bizlock.watchdog-lease to a duration from 300ms to 365d
            bizlock.watchdog-lease=-5s           | must be at least 300ms                | Set bizlock.watchdog-lease to a duration from 300ms to 365d
            bizlock.watchdog-lease=400d          | must be at most 365 days              | Set bizlock.watchdog-lease to a duration from 300ms to 365d
            bizlock.backoff.initial=0ms          | must be positive                      | Set bizlock.backoff.initial to a positive duration
            bizlock.backoff.max=1ms              | shorter than bizlock.backoff.initial  | Set bizlock.backoff.max to at least bizlock.backoff.initial (5ms)
            bizlock.housekeeping.interval=0s     | must be positive                      | Set bizlock.housekeeping.interval to a positive duration
            bizlock.housekeeping.retention=-1h   | must not be negative                  | Set bizlock.housekeeping.retention to 0 or a positive duration
            bizlock.housekeeping.batch-size=0    | must be at least 1                    | Set bizlock.housekeeping.batch-size to 1 or more
            bizlock.local-handoffs=-1            | must not be negative                  | Set bizlock.local-handoffs to 0 (release every time) or more
            bizlock.session.max-connections=0    | must be at least 1                    | Set bizlock.session.max-connections to 1 or more
            bizlock.table-name=biz-lock          | not a plain SQL identifier            | characters of letters, digits and underscores
            bizlock.table-name=                  | must not be blank                     | or remove it to use biz_lock
            bizlock.instance-id=                 | must not be blank                     | remove bizlock.instance-id
            bizlock.datasource=lockDataSource    | no DataSource bean named 'lockDataSource' | Set bizlock.datasource to the name of one of the DataSource beans: dataSource
            """)
    void namesThePropertyItsProblemAndTheValueToSet(
            String property, String problem, String fix, TestDatabase database, CapturedOutput output) {
        FailedStart.Analysis analysis = FailedStart.analysis(output, with(database, property));

        String name = property.substring(0, property.indexOf('='));
        assertThat(analysis.description()).contains(name).contains(problem);
        assertThat(analysis.action()).contains(fix);
    }

    /**
     * MySQL and MariaDB allow identifiers of 64 characters, and the longest name derived from the table name is the
     * index Flyway creates on bizlock's migration history, {@code <table>_migrations_s_idx}: a table name the
     * migration would fail on is refused before anything is created.
     */
    @ParameterizedTest
    @CsvSource({"48", "52", "60"})
    void refusesATableNameWhoseDerivedIndexNameWouldExceed64Characters(
            int length, TestDatabase database, CapturedOutput output) {
        String table = tableName(length);
        FailedStart.Analysis analysis = FailedStart.analysis(output, with(database, "bizlock.table-name=" + table));

        assertThat(analysis.description())
                .contains("bizlock.table-name")
                .contains(table + "_migrations_s_idx")
                .contains("64 characters");
        assertThat(analysis.action()).contains("Set bizlock.table-name to a name of at most 47 characters");
    }

    @Test
    void migratesATableNameOfTheLongestLengthAllowed(TestDatabase database) {
        FailedStart.startsWith(with(database, "bizlock.table-name=" + tableName(TableName.MAX_LENGTH)));
    }

    private static String tableName(int length) {
        return (LONG_TABLE + "x".repeat(length)).substring(0, length);
    }

    private static List<String> with(TestDatabase database, String property) {
        List<String> properties = FailedStart.on(database);
        properties.add(property);
        return properties;
    }
}
