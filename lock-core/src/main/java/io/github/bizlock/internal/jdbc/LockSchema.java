package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.SchemaSql;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The lock tables' schema: the DDL the Flyway migrations ship (for error messages and manual setup), the check that the
 * tables exist, and the errors that say what to run when they do not.
 */
public final class LockSchema {

    /** Where the Flyway migrations live on the classpath. */
    public static final String MIGRATION_LOCATION = "classpath:db/bizlock/migration";

    /** The Flyway placeholder that the table name replaces. */
    public static final String TABLE_PLACEHOLDER = "bizlock_table";

    /**
     * A migration, and the tables, indexes and columns ({@code table.column}) it creates, by their suffix to the table
     * name.
     */
    private record Migration(String resource, List<String> creates) {

        /** The version its file name gives ({@code V<version>__...}): versions need not be consecutive. */
        int version() {
            String file = resource.substring(resource.lastIndexOf('/') + 2);
            return Integer.parseInt(file.substring(0, file.indexOf("__")));
        }
    }

    private static final List<Migration> MIGRATIONS = List.of(
            new Migration("db/bizlock/migration/V1__create_biz_lock.sql", List.of("", "_token_floor")),
            new Migration("db/bizlock/migration/V2__row_and_named.sql", List.of("_row", "_token")),
            new Migration("db/bizlock/migration/V3__row_created_at_index.sql", List.of("_row_created_at")),
            new Migration("db/bizlock/migration/V4__lock_modes.sql", List.of("_mode")),
            new Migration(
                    "db/bizlock/migration/V5__token_server.sql",
                    List.of(".token_server", "_token.token_server", "_token_floor.token_server")),
            new Migration(
                    "db/bizlock/migration/V6__token_epoch.sql",
                    List.of(
                            ".token_epoch",
                            "_token.token_epoch",
                            "_token_floor.token_epoch",
                            "_token_floor.token_boot")),
            new Migration(
                    "db/bizlock/migration/V7__read_write_locks.sql",
                    List.of(".read_until", ".write_intent_until", "_reader")),
            new Migration("db/bizlock/migration/V8__semaphore_permits.sql", List.of("_mode.permits")));

    private final LockJdbc db;
    private final SchemaSql sql;
    private final String table;

    public LockSchema(LockDatabase database) {
        this.db = database.jdbc();
        this.sql = new SchemaSql(database.dialect());
        this.table = database.table();
    }

    /** The lock table's name. */
    public String table() {
        return table;
    }

    /** The name of the schema that holds the lock tables, as the server names it; empty when there is none. */
    public String schemaName() {
        String name = db.jdbc().queryForObject(SchemaSql.CURRENT_SCHEMA, String.class);
        return name != null ? name : "";
    }

    /** The lock tables the migrations create that are missing from the schema; empty when all are there. */
    public List<String> missingTables() {
        Set<String> existing = new HashSet<>(db.jdbc().queryForList(sql.existingTables(), String.class));
        List<String> missing = new ArrayList<>();
        for (String expected : List.of(
                table, table + "_token_floor", table + "_row", table + "_token", table + "_mode", table + "_reader")) {
            if (existing.stream().noneMatch(expected::equalsIgnoreCase)) {
                missing.add(expected);
            }
        }
        return missing;
    }

    /**
     * Fails, with the DDL to run, when a lock table is missing: without Spring Boot there is no Flyway migration, and
     * a start should fail rather than the first lock.
     */
    public void requireTables() {
        List<String> missing = missingTables();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("bizlock's lock tables " + String.join(", ", missing)
                    + " do not exist in the DataSource's schema. Create them with this DDL (or apply the Flyway"
                    + " migrations in " + MIGRATION_LOCATION + " with the placeholder " + TABLE_PLACEHOLDER + "="
                    + table + "):\n" + ddl(table));
        }
    }

    /**
     * The version that lock tables created without bizlock's migrations (by hand, from the DDL a start prints) are at:
     * the last migration whose tables and indexes all exist, 0 when none do. Flyway records it as the baseline, so
     * the migrations after it run and the ones before are not run again over tables that exist.
     *
     * @throws IllegalStateException when the tables match no version: some a migration creates are missing while
     *     others, of that migration or a later one, exist
     */
    public int versionWithoutHistory() {
        Set<String> existing = new HashSet<>();
        db.jdbc().queryForList(sql.existingTables(), String.class).forEach(name -> existing.add(lower(name)));
        Integer rowIndex = db.jdbc().queryForObject(sql.rowIndexExists(), Integer.class);
        if (rowIndex != null && rowIndex > 0) {
            existing.add(lower(table + "_row_created_at"));
        }
        db.jdbc().queryForList(sql.fencingEpochColumns(), String.class).forEach(name -> existing.add(lower(name)));
        List<String> missing = new ArrayList<>();
        List<String> present = new ArrayList<>();
        int version = 0;
        for (Migration migration : MIGRATIONS) {
            for (String suffix : migration.creates()) {
                (existing.contains(lower(table + suffix)) ? present : missing).add(table + suffix);
            }
            if (missing.isEmpty()) {
                version = migration.version();
            }
        }
        if (present.size() > objectsUpTo(version)) {
            throw new IllegalStateException("The bizlock tables in this database were created without its migrations"
                    + " and match no version of them: " + String.join(", ", present) + " exist, but "
                    + String.join(", ", missing) + " do not. Create the missing ones with their statements below (or"
                    + " drop every bizlock table to have bizlock create them all), then start again:\n"
                    + ddl(table));
        }
        return version;
    }

    private static int objectsUpTo(int version) {
        return MIGRATIONS.stream()
                .filter(migration -> migration.version() <= version)
                .mapToInt(migration -> migration.creates().size())
                .sum();
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /**
     * Checks that the lock tables every lock uses exist: the lease table, the token floor and the modes' bindings.
     *
     * @throws IllegalStateException with the DDL to run when one is missing
     */
    public void verify() {
        db.guarded(() -> db.jdbc().queryForObject(sql.probeTables(), Integer.class));
    }

    /** The DDL that creates the lock tables under the given name: every migration, in order. */
    public static String ddl(String tableName) {
        String table = TableName.validate(tableName);
        StringBuilder ddl = new StringBuilder();
        for (Migration migration : MIGRATIONS) {
            ddl.append(read(migration.resource()).replace("${" + TABLE_PLACEHOLDER + "}", table));
        }
        return ddl.toString();
    }

    /** The error for a statement that found a lock table missing, with the DDL that creates the tables. */
    static IllegalStateException missingTable(String table, Throwable cause) {
        return new IllegalStateException(
                "A bizlock table (" + table + ", " + table + "_token_floor, " + table + "_row, " + table + "_token, "
                        + table + "_reader or "
                        + table
                        + "_mode) does not exist, or lacks a column of this version. Let the starter create or upgrade them"
                        + " (bizlock.migration.enabled=true, the default) or run the statements of the migrations"
                        + " not applied yet:\n"
                        + ddl(table),
                cause);
    }

    /** The error for a token floor row that is gone, with the statement that restores it. */
    static IllegalStateException missingFloor(String table) {
        // token_server 0: the next reign takes the floor over with a new epoch, above every counter's.
        return new IllegalStateException(
                "The row of " + table + "_token_floor is missing, so no fencing token"
                        + " can be issued; restore it with: INSERT INTO " + table
                        + "_token_floor (id, floor_token, token_server) VALUES (1, <a value above every token ever issued>, 0)");
    }

    private static String read(String resource) {
        try (InputStream in = LockSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
