-- Housekeeping finds old ROW lock rows by created_at; without an index its locking read would scan (and, under
-- REPEATABLE READ, lock) the whole table.
CREATE INDEX ${bizlock_table}_row_created_at ON ${bizlock_table}_row (created_at);
