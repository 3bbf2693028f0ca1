package io.github.bizlock.service;

import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockSchema;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The lock tables as {@link LockService.Builder#prepareTables a step before their check} sees them: where they are,
 * which are missing, and a cluster-wide lease to create or upgrade them under (e.g. with bizlock's Flyway migrations,
 * as the Spring Boot starter does).
 */
public final class LockTables {

    /** Where bizlock's Flyway migrations are on the class path. */
    public static final String MIGRATION_LOCATION = LockSchema.MIGRATION_LOCATION;

    /** The Flyway placeholder the lock table's name replaces in them. */
    public static final String TABLE_PLACEHOLDER = LockSchema.TABLE_PLACEHOLDER;

    private final DataSource dataSource;
    private final LockDaos dao;

    LockTables(DataSource dataSource, LockDaos dao) {
        this.dataSource = dataSource;
        this.dao = dao;
    }

    /** The lock DataSource, the one given to {@link LockService#builder}. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The lock table's name; the other tables are named after it. */
    public String table() {
        return dao.table();
    }

    /** The lock tables the migrations create that are missing; empty when all are there. */
    public List<String> missingTables() {
        return dao.schema().missingTables();
    }

    /**
     * The version of lock tables created without migrations (by hand, from the DDL): the last migration whose tables
     * all exist, 0 when none do; a migration tool records it as its baseline.
     *
     * @throws IllegalStateException when the tables match no version
     */
    public int versionWithoutHistory() {
        return dao.schema().versionWithoutHistory();
    }

    /** Checks that the tables every lock uses can be read; throws, with the DDL to run, when one cannot. */
    public void verify() {
        dao.schema().verify();
    }

    /**
     * Runs a migration of the lock tables while no other instance runs one, on any node of a cluster (a migration
     * tool's own lock, {@code GET_LOCK}, locks one node of a Galera cluster only).
     *
     * @param maxWait how long to wait for another instance's migration
     */
    public <T> T runExclusively(Duration maxWait, Supplier<T> migration) {
        return dao.migrationLease().runExclusively(maxWait, migration);
    }

    /** The DDL that creates the lock tables under the given name. */
    public static String ddl(String tableName) {
        return LockSchema.ddl(tableName);
    }
}
