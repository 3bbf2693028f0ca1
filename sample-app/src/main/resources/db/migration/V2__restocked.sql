-- Restocks add to the stock a reset starts from: the report counts them, so that reservations of restocked units are
-- not taken for overselling.
ALTER TABLE inventory ADD COLUMN restocked INT NOT NULL DEFAULT 0 COMMENT 'units added by restocks since the reset';
