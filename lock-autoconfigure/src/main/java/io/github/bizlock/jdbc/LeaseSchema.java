package io.github.bizlock.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The lease table's DDL, as shipped in the Flyway migrations, for error messages and manual setup. */
public final class LeaseSchema {

    /** Where the Flyway migrations live on the classpath. */
    public static final String MIGRATION_LOCATION = "classpath:db/bizlock/migration";

    /** The Flyway placeholder that the table name replaces. */
    public static final String TABLE_PLACEHOLDER = "bizlock_table";

    private static final String V1 = "db/bizlock/migration/V1__create_biz_lock.sql";

    private LeaseSchema() {}

    /** The DDL that creates the lock tables under the given name. */
    public static String ddl(String tableName) {
        try (InputStream in = LeaseSchema.class.getClassLoader().getResourceAsStream(V1)) {
            if (in == null) {
                throw new IllegalStateException(V1 + " is missing from the classpath");
            }
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return sql.replace("${" + TABLE_PLACEHOLDER + "}", TableName.validate(tableName));
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
