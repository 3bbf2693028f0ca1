package io.github.bizlock.internal.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The lock tables' DDL, as shipped in the Flyway migrations, for error messages and manual setup. */
public final class LockSchema {

    /** Where the Flyway migrations live on the classpath. */
    public static final String MIGRATION_LOCATION = "classpath:db/bizlock/migration";

    /** The Flyway placeholder that the table name replaces. */
    public static final String TABLE_PLACEHOLDER = "bizlock_table";

    private static final List<String> MIGRATIONS = List.of(
            "db/bizlock/migration/V1__create_biz_lock.sql",
            "db/bizlock/migration/V2__row_and_named.sql",
            "db/bizlock/migration/V3__row_created_at_index.sql");

    private LockSchema() {}

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
                "The bizlock table " + table + " or " + table + "_token_floor does not"
                        + " exist. Let the starter create it (bizlock.migration.enabled=true, the default) or run:\n"
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
