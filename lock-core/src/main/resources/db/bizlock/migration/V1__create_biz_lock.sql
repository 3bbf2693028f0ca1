-- bizlock LEASE mode: one row per lock (name, key). Rows of free locks stay for reuse and are purged by
-- housekeeping after a retention period; ${bizlock_table}_token_floor remembers the highest purged fencing token,
-- so a lock created again continues above every token it was ever given.
-- Keys and owners are VARBINARY: compared byte for byte, so 'Order' <> 'order' and trailing spaces count.

CREATE TABLE ${bizlock_table} (
    biz_type      VARBINARY(128)  NOT NULL COMMENT 'lock name',
    biz_id        VARBINARY(512)  NOT NULL COMMENT 'lock key within the name',
    owner_id      VARBINARY(512)  NULL     COMMENT 'instance id of the holder, NULL when free',
    fencing_token BIGINT UNSIGNED NOT NULL COMMENT 'raised by every acquisition',
    expire_at     DATETIME(6)     NOT NULL COMMENT 'UTC database time when the lease ends',
    created_at    DATETIME(6)     NOT NULL,
    acquired_at   DATETIME(6)     NOT NULL,
    modified_at   DATETIME(6)     NOT NULL,
    PRIMARY KEY (biz_type, biz_id),
    KEY ${bizlock_table}_modified_at (modified_at)
) ENGINE = InnoDB;

CREATE TABLE ${bizlock_table}_token_floor (
    id          TINYINT UNSIGNED NOT NULL,
    floor_token BIGINT UNSIGNED  NOT NULL COMMENT 'at least the fencing token of every purged row',
    PRIMARY KEY (id)
) ENGINE = InnoDB;

INSERT INTO ${bizlock_table}_token_floor (id, floor_token) VALUES (1, 0);
