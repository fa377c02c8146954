// `npm run deploy` refuses to upload a Worker that would answer every request 503
// service_misconfigured: it lists the deployed Worker's secrets (`wrangler secret list`, which needs
// the account) and checks them here, without the network, against what the Worker needs.
import { missingSecrets } from "../../src/platform/core/required-secrets.mjs";

/**
 * The names `wrangler secret list` printed (a JSON array of { name, type }, after any notice); a
 * Worker not deployed yet has none. Anything else is an error naming what was printed.
 */
export function listedSecretNames({ stdout = "", failure } = {}) {
  if (failure !== undefined) {
    if (/Worker "[^"]*".* not found/.test(failure)) return [];
    throw new Error(`Could not list the deployed Worker's secrets (is \`npx wrangler login\` done?):\n${failure}`);
  }
  // The list starts a line of its own ("[" alone, or "[]"); a notice's "[WARNING]" does not.
  const start = stdout.search(/^\[(\s*$|\])/m);
  const listed = start < 0 ? undefined : JSON.parse(stdout.slice(start));
  if (!Array.isArray(listed)) throw new Error(`\`wrangler secret list\` printed no list:\n${stdout}`);
  return listed.map((secret) => secret.name);
}

/** What to do before deploying, or null when every secret the Worker needs is set. */
export function missingSecretsAdvice(names) {
  const missing = missingSecrets(names);
  if (!missing.length) return null;
  return [
    `The deployed Worker has no ${missing.join(" and no ")}: it would answer every request 503 service_misconfigured. Set ${missing.length > 1 ? "them" : "it"} first (any long random string, e.g. \`openssl rand -base64 32\`; keep KEY_SIGNING_SECRET's value: \`npm run key -- --remote\` signs with it):`,
    ...missing.map((name) => `  npx wrangler secret put ${name}`),
    "then run npm run deploy again (docs/deploy.md).",
  ].join("\n");
}
