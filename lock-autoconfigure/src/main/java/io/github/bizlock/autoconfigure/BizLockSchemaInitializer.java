package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.DatabaseRefusals;
import io.github.bizlock.service.LockDefaults;
import io.github.bizlock.service.LockTables;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The step {@link io.github.bizlock.service.LockService.Builder#build()} runs before it checks the lock tables: applies bizlock's Flyway migrations with a history
 * table of their own ({@code <table>_migrations}), so an application's own Flyway history is not touched, or, with
 * migration off, checks that the table is there and fails with the DDL to run if not. Migrating needs Flyway
 * ({@code flyway-core}, with {@code flyway-mysql} for the server) on the class path; checking does not.
 */
final class BizLockSchemaInitializer implements Consumer<LockTables> {

    private static final Logger log = LoggerFactory.getLogger(BizLockSchemaInitializer.class);

    private final boolean migrate;

    /** @param migrate whether to apply the migrations (otherwise only check) */
    BizLockSchemaInitializer(boolean migrate) {
        this.migrate = migrate;
    }

    /** How long an instance waits for another one's migration of the lock tables before it fails to start. */
    static final Duration MIGRATION_WAIT = Duration.ofMinutes(5);

    /** Attempts at a migration that the server rolled back for a conflict. */
    private static final int MIGRATION_ATTEMPTS = 3;

    /** The Flyway history table of bizlock's migrations for a lock table. */
    static String historyTable(String table) {
        return LockDefaults.checkTableName(table) + "_migrations";
    }

    @Override
    public void accept(LockTables tables) {
        DataSource dataSource = tables.dataSource();
        if (migrate) {
            migrate(tables);
        }
        List<String> missing = tables.missingTables();
        if (!missing.isEmpty()) {
            throw new LockTablesMissingException(missing, schema(dataSource), tables.table(), migrate);
        }
        tables.verify();
    }

    private void migrate(LockTables tables) {
        DataSource dataSource = tables.dataSource();
        String table = tables.table();
        try {
            // Flyway's own lock is GET_LOCK, which on a Galera cluster locks one node only: instances starting
            // together on different nodes would run the same migrations at once and fail. The migration lease
            // excludes them cluster-wide. Flyway is optional: only FlywayMigration names it, so this class loads
            // without it.
            tables.runExclusively(MIGRATION_WAIT, () -> FlywayMigration.apply(dataSource, table, tables));
        } catch (RuntimeException ex) {
            // Caught as RuntimeException, not FlywayException: this class must load without Flyway on the classpath.
            SQLException denied = DatabaseRefusals.rightsRefused(ex);
            if (denied == null) {
                throw ex;
            }
            throw new LockMigrationDeniedException(
                    currentUser(dataSource), schema(dataSource), table, denied.getMessage(), ex);
        }
    }

    /** bizlock's migrations, applied with Flyway. */
    private static final class FlywayMigration {

        /** @return the number of migrations applied */
        static int apply(DataSource dataSource, String table, LockTables schema) {
            Flyway flyway = Flyway.configure(BizLockSchemaInitializer.class.getClassLoader())
                    .dataSource(dataSource)
                    .locations(LockTables.MIGRATION_LOCATION)
                    .table(historyTable(table))
                    .placeholders(Map.of(LockTables.TABLE_PLACEHOLDER, table))
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
        private static Flyway baselineTablesMadeByHand(Flyway flyway, String table, LockTables schema) {
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
                    if (attempt >= MIGRATION_ATTEMPTS || !DatabaseRefusals.rolledBackForConflict(ex)) {
                        throw ex;
                    }
                    log.warn("bizlock's migration was rolled back for a conflict ({}); trying again", ex.getMessage());
                    // MySQL and MariaDB run DDL outside transactions, so Flyway records the failed migration in the
                    // history and refuses to migrate past it ("Detected failed migration"): the record goes first.
                    // The migration lease keeps other instances out meanwhile.
                    flyway.repair();
                }
            }
        }
    }

    /** The database (schema) the lock DataSource connects to. */
    private static String schema(DataSource dataSource) {
        return String.valueOf(new JdbcTemplate(dataSource).queryForObject("SELECT DATABASE()", String.class));
    }

    /** The account the server checks rights of, as a GRANT names it: {@code 'app'@'%'}. */
    private static String currentUser(DataSource dataSource) {
        String user =
                String.valueOf(new JdbcTemplate(dataSource).queryForObject("SELECT CURRENT_USER()", String.class));
        int at = user.lastIndexOf('@');
        return at < 0 ? "'" + user + "'" : "'" + user.substring(0, at) + "'@'" + user.substring(at + 1) + "'";
    }
}
