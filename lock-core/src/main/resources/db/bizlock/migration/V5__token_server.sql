-- bizlock fencing epochs across a primary/replica failover. Each token counter remembers which server issued its last
-- token (@@server_id; 0 on a multi-writer cluster, whose nodes issue as one). A promoted replica may have missed the
-- old primary's last tokens, so a server that issues from a counter another server wrote last (or that nobody wrote
-- since this migration, NULL) first jumps the counter by 2^32, above every token the writes it missed can have issued.
-- The token floor, where new counters start, is taken over the same way, once per new server (a NULL floor is taken
-- without a jump). README, "Running on a cluster", states the bound.

ALTER TABLE ${bizlock_table}
    ADD COLUMN token_server INT UNSIGNED NULL COMMENT 'server that issued fencing_token, NULL before the epochs';

ALTER TABLE ${bizlock_table}_token
    ADD COLUMN token_server INT UNSIGNED NULL COMMENT 'server that issued last_token, NULL before the epochs';

ALTER TABLE ${bizlock_table}_token_floor
    ADD COLUMN token_server INT UNSIGNED NULL COMMENT 'server that issues new counters from the floor, NULL until one does';
