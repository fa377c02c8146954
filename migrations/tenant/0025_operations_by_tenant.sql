-- A move takes a tenant's Operations one at a time, in id order (each is the scope of its lines,
-- attachments and so on). No index held (tenant_id, id): every step sorted all the tenant's Operations
-- to find the next one. This one makes it a single index range, however many Operations a tenant keeps.
CREATE INDEX operations_tenant ON operations (tenant_id, id);
