-- bizlock semaphores: a lock name is bound to its mode (V4) and, when it names a semaphore, to its number of permits.
-- Processes that disagreed on N would let N + M holders in between them, so the first use of a name records it and a
-- call with another N is refused, as a call in another mode is. 0 is a name of plain locks (every name bound before
-- this version). A semaphore's permits are slot rows of the name, keys '<key>#0' to '<key>#N-1' (docs/semaphore.md).

ALTER TABLE ${bizlock_table}_mode
    ADD COLUMN permits INT UNSIGNED NOT NULL DEFAULT 0 COMMENT 'permits of the semaphore the name is, 0 for a name of locks';
