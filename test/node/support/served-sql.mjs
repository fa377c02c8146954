// The databases of a test's running server, read and written through that server (its operator route
// POST /__local/sql): `wrangler d1 execute` would open them beside it, and it would answer SQLITE_BUSY.
import { operatorRequest } from "../../../scripts/lib/local-server.mjs";

/** Runs one statement on `database` (CONTROL or a shard's binding) of `server` (startDevServer's); answers its rows. */
export async function servedSql(server, sql, database = "CONTROL", params = []) {
  return (await operatorRequest(server.operator, "POST", "/__local/sql", { database, sql, params })).rows;
}
