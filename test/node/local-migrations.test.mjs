// Local migrations in one runtime (scripts/lib/local-migrations.mjs): the statements it splits a
// migration into make what SQLite makes of the whole file, for every migration we have and for the
// cases a split gets wrong (semicolons in strings and comments, a trigger's body, CASE … END); a
// fresh state it migrates is up to date for wrangler's own D1 commands, and migrating it again
// applies nothing.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { splitSqlStatements } from "../../local/worker/sql-statements.mjs";
import { applyMigrations, repoRoot, runWrangler } from "../../scripts/lib/wrangler.mjs";

const { DatabaseSync } = await import("node:sqlite");

/** What a database holds: its schema, and the rows of every table. */
function contentsOf(db) {
  const schema = db.prepare("select type, name, tbl_name, sql from sqlite_master order by type, name").all();
  const rows = Object.fromEntries(
    schema
      .filter((entry) => entry.type === "table" && !entry.name.startsWith("sqlite_"))
      .map((table) => [table.name, db.prepare(`select * from "${table.name}"`).all()]),
  );
  return { schema, rows };
}

/**
 * Two databases given the same SQL side by side: one runs each statement of the split through its own
 * prepare, as the applier does; the other gives SQLite the whole text. `contents()`: what each holds.
 */
function splitBesideWhole() {
  const split = new DatabaseSync(":memory:");
  const whole = new DatabaseSync(":memory:");
  return {
    run(sql) {
      for (const statement of splitSqlStatements(sql)) split.prepare(statement).run();
      whole.exec(sql);
    },
    contents: () => [contentsOf(split), contentsOf(whole)],
  };
}

describe("a migration split into statements", () => {
  it("makes what SQLite makes of the whole file, for every migration of both schemas", () => {
    for (const schema of ["control", "tenant"]) {
      const dir = join(repoRoot, "migrations", schema);
      // Migrated file after file, compared after each.
      const migrated = splitBesideWhole();
      for (const name of readdirSync(dir)
        .filter((file) => file.endsWith(".sql"))
        .sort()) {
        migrated.run(readFileSync(join(dir, name), "utf8"));
        const [split, whole] = migrated.contents();
        assert.deepEqual(split, whole, `${schema} up to ${name}`);
      }
    }
  });
  it("splits at semicolons outside quotes and comments, and keeps a trigger's body whole, CASE … END within", () => {
    const sql = `-- a comment; with a semicolon
      create table t (a text, "b;c" text, [d;e] integer); /* a block; comment */
      insert into t values ('it''s; quoted', 'x', 1);
      create trigger t_after after insert on t when new.a <> 'END;' begin
        update t set [d;e] = case when new.[d;e] > 0 then 2 else 3 end;
        insert into t values ('inside; the body', 'y', case new.[d;e] when 1 then 4 end);
      end;
      create temp trigger t_temp after delete on t begin select 1; end;
      insert into t values ('last', 'without a semicolon', 5)
      -- and a comment after it`;
    const statements = splitSqlStatements(sql);
    assert.equal(statements.length, 5, statements.join("\n---\n"));
    assert.match(statements[1], /^insert into t values \('it''s; quoted'/);
    assert.match(statements[2], /^create trigger t_after[\s\S]*end$/);
    assert.match(statements[3], /^create temp trigger t_temp[\s\S]*select 1; end$/);
    assert.match(statements[4], /^insert into t values \('last'[\s\S]*after it$/);
    const both = splitBesideWhole();
    both.run(sql);
    const [split, whole] = both.contents();
    assert.deepEqual(split, whole);
    assert.deepEqual(splitSqlStatements("-- only a comment;\n/* and another; */\n"), []);
  });
});

describe("npm start's migrations of a fresh local state", () => {
  it("leave every database up to date for wrangler's D1 commands, and a second run applies nothing", { timeout: 120_000 }, async () => {
    const state = mkdtempSync(join(tmpdir(), "local-migrations-test-"));
    try {
      const first = [];
      await applyMigrations({ persistTo: state }, { progress: (line) => first.push(line) });
      assert.match(first.join("\n"), /SHARD_2 \(database 3 of 3\): migration (\d+) of \1 applied \(\d{4}_\w+\.sql\), in [\d.]+ s/);
      for (const database of ["CONTROL", "SHARD_1"]) {
        const { stdout } = await runWrangler(["d1", "migrations", "list", database, "--local", "--persist-to", state]);
        assert.match(stdout, /No migrations to apply/, `${database}: ${stdout}`);
      }
      const again = [];
      await applyMigrations({ persistTo: state }, { progress: (line) => again.push(line) });
      assert.deepEqual(again, ["CONTROL (database 1 of 3): up to date", "SHARD_1 (database 2 of 3): up to date", "SHARD_2 (database 3 of 3): up to date"]);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });
});
