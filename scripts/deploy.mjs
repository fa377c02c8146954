// npm run deploy | npm run migrate:remote: the two steps that touch the deployed Worker and its D1.
// Both refuse, with the step to take, while wrangler.toml still names the placeholder database; deploy
// also refuses while the deployed Worker lacks a secret it needs (scripts/lib/deploy-secrets.mjs).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listedSecretNames, missingSecretsAdvice } from "./lib/deploy-secrets.mjs";
import { applyMigrations, repoRoot, runWrangler, spawnWrangler } from "./lib/wrangler.mjs";

// The committed wrangler.toml names placeholder ids (0000…0000, …0001, …0002): never a real database.
const PLACEHOLDER_ID = /database_id = "00000000-0000-0000-0000-0000000000\d\d"/;
const step = process.argv[2];
if (!["deploy", "migrate:remote"].includes(step)) {
  console.error("usage: node scripts/deploy.mjs deploy|migrate:remote");
  process.exit(2);
}

const config = readFileSync(join(repoRoot, "wrangler.toml"), "utf8");
if (PLACEHOLDER_ID.test(config)) {
  console.error(
    [
      "wrangler.toml still names placeholder D1 databases. First:",
      "  npx wrangler login",
      "  npx wrangler d1 create campaign-policy-control",
      "  npx wrangler d1 create campaign-policy-shard-1   (and one per further shard)",
      'and put each "database_id" it prints into wrangler.toml ([[d1_databases]] CONTROL, SHARD_1, …).',
      "docs/deploy.md has every step.",
    ].join("\n"),
  );
  process.exit(1);
}

if (step === "migrate:remote") {
  // The control schema to CONTROL, the tenant schema to every shard.
  await applyMigrations({ remote: true }, { echo: true });
} else {
  const extraArgs = process.argv.slice(3);
  // A dry run uploads nothing (and needs no account): only a real deploy is checked.
  if (!extraArgs.includes("--dry-run")) {
    const listed = await runWrangler(["secret", "list", "--format", "json"]).then(
      ({ stdout }) => ({ stdout }),
      (error) => ({ failure: error.message }),
    );
    let advice;
    try {
      advice = missingSecretsAdvice(listedSecretNames(listed));
    } catch (error) {
      advice = error.message;
    }
    if (advice) {
      console.error(advice);
      process.exit(1);
    }
  }
  // Answers name the build (svc-api-version: <version>+<commit>), so an operator can tell which one answered.
  let commit = "";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
  } catch {
    // Not a git checkout: the version alone names the build.
  }
  const child = spawnWrangler(["deploy", ...(commit ? ["--var", `BUILD_COMMIT:${commit}`] : []), ...extraArgs], { stdio: "inherit" });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
