-- bizlock read-write locks (LEASE mode). Every reader and writer of a key writes its biz_lock row, so InnoDB row locks
-- (and Galera certification) order them. read_until is at least the end of every live reader lease of the key: a
-- writer takes the row only after it. write_intent_until is set by a writer that waits for readers: no new reader
-- comes in before it passes, so a stream of readers cannot starve a writer. ${bizlock_table}_reader has one row per
-- key and instance holding a read lease: each instance renews only its own rows, and a crashed instance's row stops
-- counting when its lease ends. ROW read locks need nothing new (FOR SHARE / LOCK IN SHARE MODE on ${bizlock_table}_row).

ALTER TABLE ${bizlock_table}
    ADD COLUMN read_until         DATETIME(6) NULL COMMENT 'UTC database time when the last reader lease ends',
    ADD COLUMN write_intent_until DATETIME(6) NULL COMMENT 'UTC database time until which new readers wait for a writer';

CREATE TABLE ${bizlock_table}_reader (
    biz_type   VARBINARY(128) NOT NULL COMMENT 'lock name',
    biz_id     VARBINARY(512) NOT NULL COMMENT 'lock key within the name',
    owner_id   VARBINARY(512) NOT NULL COMMENT 'instance id of the readers of this instance',
    grant_id   BIGINT UNSIGNED NOT NULL COMMENT 'which read grant of the instance, so a late release spares the next',
    expire_at  DATETIME(6)    NOT NULL COMMENT 'UTC database time when this instance''s read lease ends',
    created_at DATETIME(6)    NOT NULL,
    PRIMARY KEY (biz_type, biz_id, owner_id),
    KEY ${bizlock_table}_reader_expire_at (expire_at)
) ENGINE = InnoDB;
