-- bizlock fencing epochs across any number of failovers (V5 keyed the jump on the issuing server alone, so a server
-- promoted again after another's reign, without that reign's last writes, found its own id and did not jump).
-- The token floor records the reign that issues tokens now: the server (token_server) and its start (token_boot, the
-- server's start time in seconds), with that reign's epoch (token_epoch). A server that finds the floor another
-- reign's (another server, or itself before a restart) takes it over first: the epoch becomes the later of the old
-- one + 1 and the server's clock in seconds since 2026-01-01. Each counter records the epoch of its last token and
-- jumps by 2^32 per epoch it is behind the floor. README, "Running on a cluster", states the rule and its conditions.

ALTER TABLE ${bizlock_table}
    ADD COLUMN token_epoch BIGINT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'fencing epoch of fencing_token';

ALTER TABLE ${bizlock_table}_token
    ADD COLUMN token_epoch BIGINT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'fencing epoch of last_token';

ALTER TABLE ${bizlock_table}_token_floor
    ADD COLUMN token_epoch BIGINT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'fencing epoch of the reign that issues now',
    ADD COLUMN token_boot  BIGINT UNSIGNED NULL COMMENT 'start time (s) of token_server in that reign, NULL before V6';

-- Counters issued before this version start a new epoch at their next token: the floor counts as another reign's
-- (server 0, no start). A floor with no counter yet stays untaken (NULL), and the first reign issues from epoch 0.
UPDATE ${bizlock_table}_token_floor
   SET token_server = COALESCE(token_server, 0)
 WHERE id = 1
   AND (EXISTS (SELECT 1 FROM ${bizlock_table}) OR EXISTS (SELECT 1 FROM ${bizlock_table}_token));
