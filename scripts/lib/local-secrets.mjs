// The local Worker's secrets, kept in .dev.vars (git-ignored), which `wrangler dev` reads: made once
// with random values and kept, so keys issued by `npm run key` verify in every local server.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REQUIRED_SECRETS } from "../../src/platform/core/required-secrets.mjs";
import { repoRoot } from "./wrangler.mjs";

/** The secrets the Worker needs (src/platform/core/required-secrets.mjs): each gets a random local value. */
export const LOCAL_SECRETS = REQUIRED_SECRETS;
const devVars = join(repoRoot, ".dev.vars");

/** The value of `name` in .dev.vars; a random one is written there first when it has none. */
export function localSecret(name) {
  const current = existsSync(devVars) ? readFileSync(devVars, "utf8") : "";
  const found = current.match(new RegExp(`^${name}=(.*)$`, "m"));
  if (found?.[1].trim()) return found[1].trim();
  const value = randomBytes(32).toString("base64url");
  writeFileSync(devVars, `${current}${current && !current.endsWith("\n") ? "\n" : ""}${name}=${value}\n`);
  console.error(`Wrote a new local ${name} to .dev.vars.`);
  return value;
}

/**
 * The secret `npm run key` signs keys with: for the remote database, the deployed Worker's (given as
 * the KEY_SIGNING_SECRET environment variable: a deployed secret cannot be read back); locally,
 * .dev.vars's, which the local server reads.
 */
export function keySigningSecret({ remote = false } = {}) {
  if (!remote) return localSecret("KEY_SIGNING_SECRET");
  const secret = process.env.KEY_SIGNING_SECRET;
  if (!secret) {
    throw new Error(
      "--remote keys are signed with the deployed Worker's KEY_SIGNING_SECRET: set the KEY_SIGNING_SECRET environment variable to the value given to `wrangler secret put KEY_SIGNING_SECRET`.",
    );
  }
  return secret;
}
