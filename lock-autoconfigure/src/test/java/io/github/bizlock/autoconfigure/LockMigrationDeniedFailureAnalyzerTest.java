package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A lock DataSource whose user may read and write but not create tables fails the start naming the user, the missing
 * grant and the alternative; running the GRANT it prints is enough for the next start.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class LockMigrationDeniedFailureAnalyzerTest {

    private static final String PASSWORD = "dml-only-1";

    private final String user = "bizlock_dml_" + UUID.randomUUID().toString().substring(0, 8);
    private JdbcTemplate root;

    @BeforeEach
    void createUserWithoutDdlRights(TestDatabase database) {
        root = new JdbcTemplate(database.dataSource());
        root.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + PASSWORD + "'");
        root.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON `" + database.name() + "`.* TO '" + user + "'@'%'");
    }

    @AfterEach
    void dropUser() {
        root.execute("DROP USER IF EXISTS '" + user + "'@'%'");
    }

    @Test
    void namesTheUserTheGrantToRunAndTheAlternative(TestDatabase database, CapturedOutput output) {
        List<String> properties = List.of(
                "spring.datasource.url=" + database.jdbcUrl(),
                "spring.datasource.username=" + user,
                "spring.datasource.password=" + PASSWORD,
                "bizlock.housekeeping.enabled=false");

        FailedStart.Analysis analysis = FailedStart.analysis(output, properties);

        assertThat(analysis.description())
                .contains("'" + user + "'@'%'")
                .contains(database.name())
                .contains("CREATE command denied");
        String grant = "GRANT CREATE, ALTER, INDEX ON `" + database.name() + "`.* TO '" + user + "'@'%';";
        assertThat(analysis.action())
                .contains(grant)
                .contains("bizlock.migration.enabled=false")
                .contains("CREATE TABLE biz_lock (");

        root.execute(grant);
        FailedStart.startsWith(properties);
    }

    @Test
    void aMigrationFailureOtherThanARefusedRightIsNotReportedAsAMissingGrant(TestDatabase database) {
        // A history table of another shape: Flyway fails reading it, with the rights to do anything.
        root.execute("CREATE TABLE odd_lock_migrations (x INT)");

        BizLockAutoConfigurationTest.runner(database, BizLockAutoConfiguration.class)
                .withPropertyValues("bizlock.table-name=odd_lock")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining("odd_lock_migrations")
                            .satisfies(failure -> assertThat(
                                            Stream.iterate(failure, Objects::nonNull, Throwable::getCause))
                                    .noneMatch(LockMigrationDeniedException.class::isInstance));
                });
    }
}
