// The secrets a deployment cannot serve without, shared as is by the Worker (serve() answers 503
// service_misconfigured without one), `npm start` (random ones in .dev.vars) and `npm run deploy`
// (which refuses to deploy while one is not set). Types: required-secrets.d.mts.

/** PAGINATION_SECRET signs nextTokens; KEY_SIGNING_SECRET signs API keys (docs/keys.md). */
export const REQUIRED_SECRETS = ["PAGINATION_SECRET", "KEY_SIGNING_SECRET"];

/** The required secrets `present` (names, or an object of values) lacks, in REQUIRED_SECRETS's order. */
export function missingSecrets(present) {
  const has = Array.isArray(present) ? (name) => present.includes(name) : (name) => Boolean(present?.[name]);
  return REQUIRED_SECRETS.filter((name) => !has(name));
}
