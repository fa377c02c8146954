-- Pack sizes: every line is sold in multiples of quantity_increment. Lines stored before pack sizes
-- existed were sold one by one, so they get 1. The index serves the exact filter, the sort and its keyset seek.
ALTER TABLE operation_lines ADD COLUMN quantity_increment INTEGER NOT NULL DEFAULT 1;
CREATE INDEX operation_lines_increment ON operation_lines (operation_id, quantity_increment, variant_external_id);
