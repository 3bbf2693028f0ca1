package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.TableName;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The lock tables' DDL, as shipped in the Flyway migrations, for error messages and manual setup. */
public final class LeaseSchema {

    /** Where the Flyway migrations live on the classpath. */
    public static final String MIGRATION_LOCATION = "classpath:db/bizlock/migration";

    /** The Flyway placeholder that the table name replaces. */
    public static final String TABLE_PLACEHOLDER = "bizlock_table";

    private static final List<String> MIGRATIONS = List.of(
            "db/bizlock/migration/V1__create_biz_lock.sql",
            "db/bizlock/migration/V2__row_and_named.sql",
            "db/bizlock/migration/V3__row_created_at_index.sql");

    private LeaseSchema() {}

    /** The DDL that creates the lock tables under the given name: every migration, in order. */
    public static String ddl(String tableName) {
        String table = TableName.validate(tableName);
        StringBuilder ddl = new StringBuilder();
        for (String migration : MIGRATIONS) {
            ddl.append(read(migration).replace("${" + TABLE_PLACEHOLDER + "}", table));
        }
        return ddl.toString();
    }

    private static String read(String resource) {
        try (InputStream in = LeaseSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
