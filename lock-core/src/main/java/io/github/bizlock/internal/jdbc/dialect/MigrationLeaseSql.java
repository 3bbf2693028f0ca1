package io.github.bizlock.internal.jdbc.dialect;

/**
 * The statements of the schema migration's lease, alike on MySQL 8 and MariaDB: one row of {@code <table>_miglock}
 * taken by a conditional update, like a LEASE lock, because it must exclude instances that migrate through different
 * nodes of a Galera cluster, where Flyway's own lock ({@code GET_LOCK}) and {@code SELECT ... FOR UPDATE} lock one node
 * only. The table is created outside the migrations, since it guards them.
 */
public final class MigrationLeaseSql {

    private static final String CREATE_TABLE = """
            CREATE TABLE IF NOT EXISTS ${table}_miglock (
                id        TINYINT UNSIGNED NOT NULL,
                owner_id  VARBINARY(512)   NULL COMMENT 'the instance migrating the lock tables, NULL when none',
                expire_at DATETIME(6)      NOT NULL COMMENT 'UTC database time when its lease ends',
                PRIMARY KEY (id)
            ) ENGINE = InnoDB
            """;

    private static final String CREATE_ROW = """
            INSERT IGNORE INTO ${table}_miglock (id, owner_id, expire_at)
            VALUES (1, NULL, UTC_TIMESTAMP(6))
            """;

    private static final String ACQUIRE = """
            UPDATE ${table}_miglock
               SET owner_id  = ?,
                   expire_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
             WHERE id = 1
               AND (owner_id IS NULL OR expire_at <= UTC_TIMESTAMP(6))
            """;

    private static final String RENEW = """
            UPDATE ${table}_miglock
               SET expire_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
             WHERE id = 1
               AND owner_id = ?
            """;

    private static final String RELEASE = """
            UPDATE ${table}_miglock
               SET owner_id  = NULL,
                   expire_at = UTC_TIMESTAMP(6)
             WHERE id = 1
               AND owner_id = ?
            """;

    private static final String HOLDER = """
            SELECT owner_id, TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(6), expire_at)
              FROM ${table}_miglock
             WHERE id = 1
            """;

    private final String createTable;
    private final String createRow;
    private final String acquire;
    private final Statement renew;
    private final Statement release;
    private final String holder;

    public MigrationLeaseSql(Dialect dialect) {
        this.createTable = dialect.render(CREATE_TABLE);
        this.createRow = dialect.render(CREATE_ROW);
        this.acquire = dialect.render(ACQUIRE);
        this.renew = dialect.causal(RENEW);
        this.release = dialect.causal(RELEASE);
        this.holder = dialect.render(HOLDER);
    }

    /** Creates the lease table; a no-op when another instance (or node) created it first. */
    public String createTable() {
        return createTable;
    }

    /** Creates the lease row, free; ignored when it exists. */
    public String createRow() {
        return createRow;
    }

    /** Takes the lease if it is free or ended; parameters owner, lease (µs). */
    public String acquire() {
        return acquire;
    }

    /** Extends the lease of its owner; parameters lease (µs), owner. */
    public String renew() {
        return renew.sql();
    }

    /** Frees the lease of its owner; parameter owner. */
    public String release() {
        return release.sql();
    }

    /** Who holds the lease and for how much longer (seconds), for the error when waiting for it runs out. */
    public String holder() {
        return holder;
    }
}
