-- The list engine sorts and pages on non-null keys, so recommendedQuantity is ordered as
-- coalesce(recommended_quantity, -1). A virtual column carries that key so that one plain index
-- serves its sort, its keyset seek and its exact-value filter (SQLite plans an expression index
-- for ORDER BY but, without statistics, not for an equality filter).
DROP INDEX IF EXISTS operation_lines_recommended;
ALTER TABLE operation_lines ADD COLUMN recommended_key INTEGER GENERATED ALWAYS AS (coalesce(recommended_quantity, -1)) VIRTUAL;
CREATE INDEX operation_lines_recommended ON operation_lines (operation_id, recommended_key, variant_external_id);
