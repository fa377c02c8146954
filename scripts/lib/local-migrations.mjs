// The D1 migrations of a local state, applied in one local runtime for every database. `wrangler d1
// migrations apply --local` starts a runtime per migration (59 for the three databases: 31 s, 34 s of
// CPU on two cores); this starts one (about 2 s). The bookkeeping is wrangler's (its d1_migrations
// table, one row per migration, written in the migration's own batch), so wrangler's D1 commands and
// `wrangler dev` see the same databases, migrated.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { splitSqlStatements } from "../../local/worker/sql-statements.mjs";

/** wrangler's migrations table, as it creates it (so either may apply the next migration). */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "d1_migrations"(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)`;

/** What npm start shows of each database's migrations (wrangler's own output, remote, is told in the same words). */
export const migrationProgress = {
  upToDate: (database) => `${database}: up to date`,
  toApply: (database, total) => `${database}: ${total} migration${total === 1 ? "" : "s"} to apply…`,
  applied: (database, n, total, name, seconds) =>
    `${database}: migration ${n} of ${total} applied (${name})${n === total ? `, in ${seconds.toFixed(1)} s` : ""}`,
};

/** The migration files of `dir` in the order wrangler applies them (by name). */
function migrationFiles(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();
}

/**
 * Applies every database's pending migrations to the local state `persistTo` (else .wrangler/state
 * beside the config): `databases` lists each binding with its id and migrations folder (absolute).
 * `progress(line, { final })` hears each database's count and each migration applied; `retryBusy(run,
 * database)` runs each migration's batch, waiting out a database another process holds.
 */
export async function applyLocalMigrations({ databases, persistTo, configDir, cwd, progress = () => {}, retryBusy = (run) => run() }) {
  const { getPlatformProxy } = await import("wrangler");
  const state = persistTo ? resolve(cwd, persistTo) : resolve(configDir, ".wrangler", "state");
  // A configuration of the databases alone: the runtime starts no Worker, object or queue it does not need.
  const scratch = mkdtempSync(join(tmpdir(), "local-migrations-"));
  const configPath = join(scratch, "wrangler.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      name: "local-migrations",
      compatibility_date: "2025-01-01",
      d1_databases: databases.map(({ binding, id }) => ({ binding, database_id: id, database_name: binding })),
    }),
  );
  const proxy = await getPlatformProxy({ configPath, persist: { path: join(state, "v3") } });
  try {
    for (const [index, { binding, migrationsDir }] of databases.entries()) {
      const label = `${binding} (database ${index + 1} of ${databases.length})`;
      const db = proxy.env[binding];
      const startedAt = Date.now();
      await retryBusy(() => db.prepare(MIGRATIONS_TABLE).run(), binding);
      const applied = new Set((await db.prepare("SELECT name FROM d1_migrations ORDER BY id").all()).results.map((row) => row.name));
      const pending = migrationFiles(migrationsDir).filter((name) => !applied.has(name));
      if (!pending.length) {
        progress(migrationProgress.upToDate(label), { final: true });
        continue;
      }
      progress(migrationProgress.toApply(label, pending.length), { final: false });
      for (const [n, name] of pending.entries()) {
        const statements = splitSqlStatements(readFileSync(join(migrationsDir, name), "utf8")).map((sql) => db.prepare(sql));
        statements.push(db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name));
        try {
          await retryBusy(() => db.batch(statements), binding);
        } catch (error) {
          throw new Error(`${binding}: migration ${name} failed, nothing of it applied: ${error.message}`, { cause: error });
        }
        const seconds = (Date.now() - startedAt) / 1000;
        progress(migrationProgress.applied(label, n + 1, pending.length, name, seconds), { final: n === pending.length - 1 });
      }
    }
  } finally {
    await proxy.dispose();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The D1 databases of the config at `configPath`: binding, the id its local state is kept by, its migrations folder. */
export async function localDatabases(configPath) {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig({ config: configPath });
  return config.d1_databases.map((database) => ({
    binding: database.binding,
    // What wrangler's local D1 commands and `wrangler dev` key a local database by.
    id: database.preview_database_id ?? database.database_id ?? database.binding,
    migrationsDir: resolve(dirname(configPath), database.migrations_dir ?? "migrations"),
  }));
}
