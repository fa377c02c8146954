-- The every-minute schedule sweep (src/operations/coordinator/schedule-sweep.ts) looks for scheduled times that
-- are overdue: only the few Operations with a schedule are indexed.
CREATE INDEX operations_scheduled ON operations (activate_at, deactivate_at) WHERE activate_at IS NOT NULL OR deactivate_at IS NOT NULL;
