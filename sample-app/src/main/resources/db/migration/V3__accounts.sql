-- Transfers between accounts: each transfer locks both accounts with one multi-key lock
-- (@DistributedLock(keys = ...)), so transfers in opposite directions never deadlock.
CREATE TABLE accounts (
    id      VARCHAR(64) NOT NULL PRIMARY KEY,
    opening BIGINT      NOT NULL COMMENT 'balance when the account was opened or reset',
    balance BIGINT      NOT NULL
) ENGINE = InnoDB;

CREATE TABLE transfers (
    id        BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    from_id   VARCHAR(64) NOT NULL,
    to_id     VARCHAR(64) NOT NULL,
    amount    BIGINT      NOT NULL,
    booked_by VARCHAR(64) NOT NULL COMMENT 'the replica that booked it'
) ENGINE = InnoDB;
