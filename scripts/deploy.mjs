// npm run deploy | npm run migrate:remote: the two steps that touch the deployed Worker and its D1.
// Both refuse, with the step to take, while wrangler.toml still names the placeholder database.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, spawnWrangler } from "./lib/wrangler.mjs";

const PLACEHOLDER_ID = "00000000-0000-0000-0000-000000000000";
const step = process.argv[2];
const commands = {
  deploy: ["deploy"],
  "migrate:remote": ["d1", "migrations", "apply", "DB", "--remote"],
};
if (!commands[step]) {
  console.error(`usage: node scripts/deploy.mjs ${Object.keys(commands).join("|")}`);
  process.exit(2);
}

const config = readFileSync(join(repoRoot, "wrangler.toml"), "utf8");
if (config.includes(PLACEHOLDER_ID)) {
  console.error(
    [
      "wrangler.toml still names the placeholder D1 database. First:",
      "  npx wrangler login",
      "  npx wrangler d1 create campaign-policy",
      'and put the "database_id" it prints into wrangler.toml ([[d1_databases]], binding "DB").',
      "The README's Deploy section has every step.",
    ].join("\n"),
  );
  process.exit(1);
}

const child = spawnWrangler([...commands[step], ...process.argv.slice(3)], { stdio: "inherit" });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
