package io.github.bizlock.autoconfigure;

import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockSchema;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Makes sure the lock table exists before any lock bean is used: applies bizlock's Flyway migrations with a history
 * table of their own ({@code <table>_migrations}), so an application's own Flyway history is not touched, or, with
 * migration off, checks that the table is there and fails with the DDL to run if not. Migrating needs Flyway
 * ({@code flyway-core}, with {@code flyway-mysql} for the server) on the class path; checking does not.
 */
public class BizLockSchemaInitializer implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(BizLockSchemaInitializer.class);

    /** ER_TABLEACCESS_DENIED_ERROR: "CREATE command denied to user ... for table ...". */
    private static final int ER_TABLEACCESS_DENIED = 1142;

    /** ER_DBACCESS_DENIED_ERROR: "Access denied for user ... to database ...". */
    private static final int ER_DBACCESS_DENIED = 1044;

    private final DataSource dataSource;
    private final LockDaos dao;
    private final boolean migrate;

    /**
     * @param dataSource the lock table's DataSource
     * @param dao the DAOs whose tables to create or check
     * @param migrate whether to apply the migrations (otherwise only check)
     */
    public BizLockSchemaInitializer(DataSource dataSource, LockDaos dao, boolean migrate) {
        this.dataSource = dataSource;
        this.dao = dao;
        this.migrate = migrate;
    }

    /** How long an instance waits for another one's migration of the lock tables before it fails to start. */
    static final Duration MIGRATION_WAIT = Duration.ofMinutes(5);

    /** Attempts at a migration that the server rolled back for a conflict (1213 / SQL state 40001). */
    private static final int MIGRATION_ATTEMPTS = 3;

    /** The Flyway history table of bizlock's migrations for a lock table. */
    public static String historyTable(String table) {
        return TableName.validate(table) + "_migrations";
    }

    @Override
    public void afterPropertiesSet() {
        if (migrate) {
            migrate();
        }
        List<String> missing = dao.schema().missingTables();
        if (!missing.isEmpty()) {
            throw new LockTablesMissingException(missing, schema(), dao.table(), migrate);
        }
        dao.schema().verify();
    }

    private void migrate() {
        String table = dao.table();
        try {
            // Flyway's own lock is GET_LOCK, which on a Galera cluster locks one node only: instances starting
            // together on different nodes would run the same migrations at once and fail. The migration lease
            // excludes them cluster-wide. Flyway is optional: only FlywayMigration names it, so this class loads
            // without it.
            dao.migrationLease()
                    .runExclusively(MIGRATION_WAIT, () -> FlywayMigration.apply(dataSource, table, dao.schema()));
        } catch (RuntimeException ex) {
            // Caught as RuntimeException, not FlywayException: this class must load without Flyway on the classpath.
            SQLException denied = deniedBy(ex);
            if (denied == null) {
                throw ex;
            }
            throw new LockMigrationDeniedException(currentUser(), schema(), table, denied.getMessage(), ex);
        }
    }

    /** bizlock's migrations, applied with Flyway. */
    private static final class FlywayMigration {

        /** @return the number of migrations applied */
        static int apply(DataSource dataSource, String table, LockSchema schema) {
            Flyway flyway = Flyway.configure(BizLockSchemaInitializer.class.getClassLoader())
                    .dataSource(dataSource)
                    .locations(LockSchema.MIGRATION_LOCATION)
                    .table(historyTable(table))
                    .placeholders(Map.of(LockSchema.TABLE_PLACEHOLDER, table))
                    // The schema usually holds the application's tables already: start bizlock's history below V1.
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .baselineDescription("bizlock baseline")
                    .load();
            if (flyway.info().applied().length == 0) {
                flyway = baselineTablesMadeByHand(flyway, table, schema);
            }
            MigrateResult result = migrate(flyway);
            if (result.migrationsExecuted > 0) {
                log.info(
                        "bizlock created or upgraded lock table {} to version {} ({} migrations)",
                        table,
                        result.targetSchemaVersion,
                        result.migrationsExecuted);
            }
            return result.migrationsExecuted;
        }

        /**
         * Without a history, lock tables that exist were created by hand (from the DDL a start with migration off
         * prints): Flyway records the version they are at as its baseline, instead of running the migrations that
         * created them again and failing on a table that exists (which would leave a failed row in the history).
         */
        private static Flyway baselineTablesMadeByHand(Flyway flyway, String table, LockSchema schema) {
            int version = schema.versionWithoutHistory();
            if (version == 0) {
                return flyway;
            }
            log.info(
                    "bizlock found lock table {} created without its migrations, at version {}; recording it as the"
                            + " baseline in {}",
                    table,
                    version,
                    historyTable(table));
            return Flyway.configure(BizLockSchemaInitializer.class.getClassLoader())
                    .configuration(flyway.getConfiguration())
                    .baselineVersion(String.valueOf(version))
                    .baselineDescription("bizlock tables created without migrations")
                    .load();
        }

        /**
         * Runs the migrations, again when the server rolled them back for a conflict: a cluster node aborts a
         * transaction that another node's write conflicts with (certification failure, 1213), even under the migration
         * lease, e.g. for an application's own statement on the same tables. Flyway applies each migration in a
         * transaction of its own and records it, so a new attempt carries on after the last one applied.
         */
        private static MigrateResult migrate(Flyway flyway) {
            for (int attempt = 1; ; attempt++) {
                try {
                    return flyway.migrate();
                } catch (RuntimeException ex) {
                    if (attempt >= MIGRATION_ATTEMPTS || !rolledBackForConflict(ex)) {
                        throw ex;
                    }
                    log.warn("bizlock's migration was rolled back for a conflict ({}); trying again", ex.getMessage());
                }
            }
        }

        private static boolean rolledBackForConflict(Throwable ex) {
            for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
                if (cause instanceof SQLException sql
                        && (sql.getErrorCode() == 1213 || "40001".equals(sql.getSQLState()))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The server's refusal of a statement for lack of rights, in the failure's causes, or {@code null}. */
    private static @Nullable SQLException deniedBy(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql
                    && (sql.getErrorCode() == ER_TABLEACCESS_DENIED || sql.getErrorCode() == ER_DBACCESS_DENIED)) {
                return sql;
            }
        }
        return null;
    }

    /** The database (schema) the lock DataSource connects to. */
    private String schema() {
        return String.valueOf(new JdbcTemplate(dataSource).queryForObject("SELECT DATABASE()", String.class));
    }

    /** The account the server checks rights of, as a GRANT names it: {@code 'app'@'%'}. */
    private String currentUser() {
        String user =
                String.valueOf(new JdbcTemplate(dataSource).queryForObject("SELECT CURRENT_USER()", String.class));
        int at = user.lastIndexOf('@');
        return at < 0 ? "'" + user + "'" : "'" + user.substring(0, at) + "'@'" + user.substring(at + 1) + "'";
    }
}
