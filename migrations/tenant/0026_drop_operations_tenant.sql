-- 0025's index on (tenant_id, id) is dropped: without the planner's statistics SQLite took it for the
-- Operation check inside every lines read (EXISTS … tenant_id = ? AND id = ?) and then sorted the page's
-- lines in memory instead of reading them in order through their sort index. A move finds its next
-- Operation with a sort of the tenant's Operation ids again (a few ms at 10,000 Operations).
DROP INDEX IF EXISTS operations_tenant;
