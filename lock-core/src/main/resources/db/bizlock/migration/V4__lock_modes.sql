-- bizlock binds each lock name to one mode for every instance on this database: LEASE rows, ROW row locks and NAMED
-- locks never see each other, so one name used in two modes could have two holders at once. The first acquisition of
-- a name inserts its row; a call in another mode is refused. Rows are never purged (a name is a kind of thing, e.g.
-- 'order', not an id); an operator changes one only with every instance stopped (README: "Changing a name's mode").
-- Names in use before this migration are bound by their first acquisition after it.

CREATE TABLE ${bizlock_table}_mode (
    biz_type   VARBINARY(128) NOT NULL COMMENT 'lock name',
    lock_mode  VARBINARY(8)   NOT NULL COMMENT 'LEASE, ROW or NAMED: the only mode the name may be locked in',
    created_at DATETIME(6)    NOT NULL,
    PRIMARY KEY (biz_type)
) ENGINE = InnoDB;
