package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;

/**
 * The statements of the schema migration's lease, alike on MySQL 8 and MariaDB: one row of {@code <table>_miglock}
 * taken by a conditional update, like a LEASE lock, because it must exclude instances that migrate through different
 * nodes of a Galera cluster, where Flyway's own lock ({@code GET_LOCK}) and {@code SELECT ... FOR UPDATE} lock one node
 * only. The table is created outside the migrations, since it guards them.
 */
final class MigrationLeaseSql {

    private final Dialect dialect;

    MigrationLeaseSql(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Creates the lease table; a no-op when another instance (or node) created it first. */
    String createTable() {
        return dialect.render("""
                CREATE TABLE IF NOT EXISTS ${table}_miglock (
                    id        TINYINT UNSIGNED NOT NULL,
                    owner_id  VARBINARY(512)   NULL COMMENT 'the instance migrating the lock tables, NULL when none',
                    expire_at DATETIME(6)      NOT NULL COMMENT 'UTC database time when its lease ends',
                    PRIMARY KEY (id)
                ) ENGINE = InnoDB
                """);
    }

    /** Creates the lease row, free; ignored when it exists. */
    String createRow() {
        return dialect.render("""
                INSERT IGNORE INTO ${table}_miglock (id, owner_id, expire_at)
                VALUES (1, NULL, UTC_TIMESTAMP(6))
                """);
    }

    /** Takes the lease if it is free or ended; parameters owner, lease (µs). */
    String acquire() {
        return dialect.render("""
                UPDATE ${table}_miglock
                   SET owner_id  = ?,
                       expire_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
                 WHERE id = 1
                   AND (owner_id IS NULL OR expire_at <= UTC_TIMESTAMP(6))
                """);
    }

    /** Extends the lease of its owner; parameters lease (µs), owner. */
    String renew() {
        return dialect.renderCausal("""
                UPDATE ${table}_miglock
                   SET expire_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
                 WHERE id = 1
                   AND owner_id = ?
                """);
    }

    /** Frees the lease of its owner; parameter owner. */
    String release() {
        return dialect.renderCausal("""
                UPDATE ${table}_miglock
                   SET owner_id  = NULL,
                       expire_at = UTC_TIMESTAMP(6)
                 WHERE id = 1
                   AND owner_id = ?
                """);
    }

    /** Who holds the lease and for how much longer (seconds), for the error when waiting for it runs out. */
    String holder() {
        return dialect.render("""
                SELECT owner_id, TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(6), expire_at)
                  FROM ${table}_miglock
                 WHERE id = 1
                """);
    }
}
