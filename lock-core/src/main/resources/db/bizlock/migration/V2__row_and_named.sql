-- bizlock ROW and NAMED modes. ${bizlock_table}_row holds one row per ROW lock, locked with SELECT ... FOR UPDATE by
-- its holder. Rows stay for reuse. ${bizlock_table}_token holds the last fencing token issued per ROW or NAMED lock,
-- raised in a transaction of its own at every acquisition, starting above the token floor of
-- ${bizlock_table}_token_floor like a LEASE row does.

CREATE TABLE ${bizlock_table}_row (
    biz_type   VARBINARY(128) NOT NULL COMMENT 'lock name',
    biz_id     VARBINARY(512) NOT NULL COMMENT 'lock key within the name',
    created_at DATETIME(6)    NOT NULL,
    PRIMARY KEY (biz_type, biz_id)
) ENGINE = InnoDB;

CREATE TABLE ${bizlock_table}_token (
    biz_type    VARBINARY(128)  NOT NULL COMMENT 'lock name',
    biz_id      VARBINARY(512)  NOT NULL COMMENT 'lock key within the name',
    lock_mode   VARBINARY(8)    NOT NULL COMMENT 'ROW or NAMED',
    last_token  BIGINT UNSIGNED NOT NULL COMMENT 'the fencing token of the latest acquisition',
    modified_at DATETIME(6)     NOT NULL,
    PRIMARY KEY (biz_type, biz_id, lock_mode)
) ENGINE = InnoDB;
