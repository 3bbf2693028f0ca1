package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.bizlock.LockTest;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.test.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link DatabaseRefusals} tells the server's refusals apart, as the server gives them, wrapped or not. */
@LockTest
class DatabaseRefusalsTest {

    @Test
    void refusedCredentialsAreToldFromOtherFailures(TestDatabase database) {
        Throwable refused =
                catchThrowable(() -> DriverManager.getConnection(database.jdbcUrl(), "bizlock_no_such_user", "wrong")
                        .close());

        assertThat(DatabaseRefusals.credentialsRefused(refused)).isTrue();
        assertThat(DatabaseRefusals.credentialsRefused(new IllegalStateException("starting", refused)))
                .as("anywhere in the causes")
                .isTrue();
        assertThat((Throwable) DatabaseRefusals.rightsRefused(refused)).isNull();
        assertThat(DatabaseRefusals.rolledBackForConflict(refused)).isFalse();
    }

    @Test
    void refusedRightsAreReturnedWithTheServersWords(TestDatabase database) throws Exception {
        String user = "bizlock_rights_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection root = database.dataSource().getConnection();
                Statement statement = root.createStatement()) {
            statement.execute("CREATE TABLE refusal_rights (id INT PRIMARY KEY)");
            statement.execute("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'secret-1'");
            try {
                statement.execute("GRANT SELECT ON `" + database.name() + "`.refusal_rights TO '" + user + "'@'%'");
                Throwable refused;
                try (Connection limited = DriverManager.getConnection(database.jdbcUrl(), user, "secret-1")) {
                    refused = catchThrowable(
                            () -> limited.createStatement().executeUpdate("INSERT INTO refusal_rights VALUES (1)"));
                }

                SQLException rights = DatabaseRefusals.rightsRefused(new RuntimeException(refused));
                assertThat((Throwable) rights).as("found in the causes").isSameAs(refused);
                assertThat(rights.getMessage()).contains("INSERT", "refusal_rights");
                assertThat(DatabaseRefusals.credentialsRefused(refused)).isFalse();
                assertThat(DatabaseRefusals.rolledBackForConflict(refused)).isFalse();
            } finally {
                statement.execute("DROP USER IF EXISTS '" + user + "'@'%'");
            }
        }
    }

    @Test
    void aDeadlockIsARollbackForConflict(TestDatabase database) throws Exception {
        try (Connection first = database.dataSource().getConnection();
                Connection second = database.dataSource().getConnection()) {
            first.createStatement().execute("CREATE TABLE refusal_conflict (id INT PRIMARY KEY, n INT)");
            first.createStatement().execute("INSERT INTO refusal_conflict VALUES (1, 0), (2, 0)");
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            first.createStatement().executeUpdate("UPDATE refusal_conflict SET n = 1 WHERE id = 1");
            second.createStatement().executeUpdate("UPDATE refusal_conflict SET n = 1 WHERE id = 2");
            // Each waits for the row the other holds: InnoDB rolls one of them back at once.
            CompletableFuture<Throwable> firstWaits = CompletableFuture.supplyAsync(
                    () -> catchThrowable(() ->
                            first.createStatement().executeUpdate("UPDATE refusal_conflict SET n = 2 WHERE id = 2")),
                    ThreadPerTask.EXECUTOR);
            Throwable secondFailure = catchThrowable(
                    () -> second.createStatement().executeUpdate("UPDATE refusal_conflict SET n = 2 WHERE id = 1"));
            if (secondFailure == null) {
                second.rollback(); // the first was the victim: its wait ends now
            }
            Throwable firstFailure = firstWaits.get(60, TimeUnit.SECONDS);
            first.rollback();
            second.rollback();

            Throwable victim = secondFailure != null ? secondFailure : firstFailure;
            assertThat(victim).as("one of the two was rolled back").isNotNull();
            assertThat(DatabaseRefusals.rolledBackForConflict(new IllegalStateException(victim)))
                    .isTrue();
            assertThat(DatabaseRefusals.credentialsRefused(victim)).isFalse();
            assertThat((Throwable) DatabaseRefusals.rightsRefused(victim)).isNull();
        }
    }
}
