-- Soft minimums: a Quotas Rule, and the tenant default, either BLOCK an order below its minimum
-- (as every rule did before) or WARN (the order is placed and carries the shortfall as a warning).
ALTER TABLE quota_rules ADD COLUMN enforcement TEXT NOT NULL DEFAULT 'BLOCK' CHECK (enforcement IN ('BLOCK', 'WARN'));
ALTER TABLE tenants ADD COLUMN quota_default_enforcement TEXT NOT NULL DEFAULT 'BLOCK' CHECK (quota_default_enforcement IN ('BLOCK', 'WARN'));
-- The evaluation results an order was placed below a WARN minimum with (JSON array; empty for the others).
ALTER TABLE orders ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]';
