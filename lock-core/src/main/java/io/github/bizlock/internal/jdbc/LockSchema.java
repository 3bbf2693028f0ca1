package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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

    private static final List<String> MIGRATIONS = List.of(
            "db/bizlock/migration/V1__create_biz_lock.sql",
            "db/bizlock/migration/V2__row_and_named.sql",
            "db/bizlock/migration/V3__row_created_at_index.sql",
            "db/bizlock/migration/V4__lock_modes.sql",
            "db/bizlock/migration/V5__token_server.sql");

    private final LockJdbc db;
    private final SchemaSql sql;
    private final String table;

    LockSchema(LockJdbc db, Dialect dialect, String table) {
        this.db = db;
        this.sql = new SchemaSql(dialect);
        this.table = table;
    }

    /** The lock tables the migrations create that are missing from the schema; empty when all are there. */
    public List<String> missingTables() {
        Set<String> existing = new HashSet<>(db.jdbc().queryForList(sql.existingTables(), String.class));
        List<String> missing = new ArrayList<>();
        for (String expected :
                List.of(table, table + "_token_floor", table + "_row", table + "_token", table + "_mode")) {
            if (existing.stream().noneMatch(expected::equalsIgnoreCase)) {
                missing.add(expected);
            }
        }
        return missing;
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
        for (String migration : MIGRATIONS) {
            ddl.append(read(migration).replace("${" + TABLE_PLACEHOLDER + "}", table));
        }
        return ddl.toString();
    }

    /** The error for a statement that found a lock table missing, with the DDL that creates the tables. */
    static IllegalStateException missingTable(String table, Throwable cause) {
        return new IllegalStateException(
                "A bizlock table (" + table + ", " + table + "_token_floor, " + table + "_row, " + table + "_token or "
                        + table
                        + "_mode) does not exist, or lacks a column of this version. Let the starter create or upgrade them"
                        + " (bizlock.migration.enabled=true, the default) or run the statements of the migrations"
                        + " not applied yet:\n"
                        + ddl(table),
                cause);
    }

    /** The error for a token floor row that is gone, with the statement that restores it. */
    static IllegalStateException missingFloor(String table) {
        return new IllegalStateException("The row of " + table + "_token_floor is missing, so no fencing token"
                + " can be issued; restore it with: INSERT INTO " + table
                + "_token_floor (id, floor_token) VALUES (1, <a value above every token ever issued>)");
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
