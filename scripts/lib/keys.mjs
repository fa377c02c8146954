// Issues API keys straight into D1: the only way a first key can exist (keys authenticate everything else).
import { createHash, randomBytes } from "node:crypto";
import { executeSql, sqlString } from "./wrangler.mjs";

export const ROLES = ["OPERATOR", "ACCOUNT"];

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Time-ordered id in the layout the Worker uses (prefix_ + 10 time chars + 16 random chars). */
function timeOrderedId(prefix) {
  let ms = Date.now();
  let time = "";
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  const random = Array.from(randomBytes(16), (b) => CROCKFORD[b % 32]).join("");
  return `${prefix}_${time}${random}`;
}

export function validateKeyRequest({ tenant, role, user, locale }) {
  if (!tenant || !/^[A-Za-z0-9._:-]{1,100}$/.test(tenant)) {
    throw new Error("--tenant is required: 1-100 characters among letters, digits, '.', '_', ':', '-'.");
  }
  if (!ROLES.includes(role)) throw new Error("--role must be OPERATOR or ACCOUNT.");
  if (role === "ACCOUNT" && !user) throw new Error("--user <userId> is required for an ACCOUNT key (the customer user it acts for).");
  if (role === "OPERATOR" && user) throw new Error("--user only applies to ACCOUNT keys.");
  if (user !== undefined && (user.length === 0 || user.length > 200)) throw new Error("--user must be 1-200 characters.");
  if (locale !== undefined) {
    try {
      Intl.getCanonicalLocales(locale);
    } catch {
      throw new Error(`--locale ${locale} is not a BCP 47 language tag (e.g. en, fr-FR).`);
    }
    if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(locale)) throw new Error(`--locale ${locale} is not a BCP 47 language tag (e.g. en, fr-FR).`);
  }
}

/**
 * Creates the tenant when it is new (default locale `locale`, else `en`), stores the SHA-256 hex of a
 * fresh random key, and returns the plain key — the only time it exists outside the caller.
 */
export async function issueKey({ remote = false, persistTo, ...request }) {
  const [issued] = await issueKeys([request], { remote, persistTo });
  return issued;
}

/** Several keys in one wrangler call (each wrangler start costs seconds). */
export async function issueKeys(requests, target = {}) {
  const now = new Date().toISOString();
  const statements = [];
  const keys = requests.map(({ tenant, role, user, locale }) => {
    validateKeyRequest({ tenant, role, user, locale });
    const key = `sk_${randomBytes(32).toString("base64url")}`;
    const keyHash = createHash("sha256").update(key).digest("hex");
    statements.push(
      `insert into tenants (id, default_locale, created_at) values (${sqlString(tenant)}, ${sqlString(locale ?? "en")}, ${sqlString(now)}) on conflict (id) do nothing`,
      `insert into api_keys (id, tenant_id, role, user_id, key_hash, created_at) values (${sqlString(timeOrderedId("key"))}, ${sqlString(tenant)}, ${sqlString(role)}, ${sqlString(role === "ACCOUNT" ? user : null)}, ${sqlString(keyHash)}, ${sqlString(now)})`,
      `select default_locale as defaultLocale, created_at = ${sqlString(now)} as created from tenants where id = ${sqlString(tenant)}`,
    );
    return key;
  });
  const results = await executeSql(statements.join(";\n"), target);
  return keys.map((key, i) => {
    const tenantRow = results[i * 3 + 2]?.[0] ?? {};
    return { key, tenantCreated: Boolean(tenantRow.created), tenantDefaultLocale: tenantRow.defaultLocale };
  });
}
