// Issues API keys straight into D1: the only way a first key can exist (keys authenticate everything else).
import { createHash, randomBytes } from "node:crypto";
import { executeSql, sqlString } from "./wrangler.mjs";

export const ROLES = ["OPERATOR", "ACCOUNT"];
/** As the Worker's keys/commands.ts: how many leading characters of a key its representation shows. */
const KEY_PREFIX_LENGTH = 8;

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

/** How the API represents a key (never the key or its hash). */
function keyRepresentation(row) {
  return {
    id: row.id,
    role: row.role,
    userId: row.userId ?? null,
    name: row.name ?? null,
    prefix: row.prefix ?? null,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt ?? null,
    revokedAt: row.revokedAt ?? null,
  };
}

/** The event the Worker records for the same change, in the same statement list (one transaction). */
function keyEventSql(tenant, type, key, at) {
  return `insert into events (id, tenant_id, type, actor, at, data) values (${sqlString(timeOrderedId("evt"))}, ${sqlString(tenant)}, ${sqlString(type)}, 'cli', ${sqlString(at)}, ${sqlString(JSON.stringify({ key }))})`;
}

/** Several keys in one wrangler call (each wrangler start costs seconds). */
export async function issueKeys(requests, target = {}) {
  const now = new Date().toISOString();
  const statements = [];
  const keys = requests.map(({ tenant, role, user, locale }) => {
    validateKeyRequest({ tenant, role, user, locale });
    const key = `sk_${randomBytes(32).toString("base64url")}`;
    const keyHash = createHash("sha256").update(key).digest("hex");
    const row = { id: timeOrderedId("key"), role, userId: role === "ACCOUNT" ? user : null, prefix: key.slice(0, KEY_PREFIX_LENGTH), createdAt: now };
    statements.push(
      `insert into tenants (id, default_locale, created_at) values (${sqlString(tenant)}, ${sqlString(locale ?? "en")}, ${sqlString(now)}) on conflict (id) do nothing`,
      `insert into api_keys (id, tenant_id, role, user_id, key_hash, prefix, created_at) values (${sqlString(row.id)}, ${sqlString(tenant)}, ${sqlString(role)}, ${sqlString(row.userId)}, ${sqlString(keyHash)}, ${sqlString(row.prefix)}, ${sqlString(now)})`,
      keyEventSql(tenant, "key.created", keyRepresentation(row), now),
      `select default_locale as defaultLocale, created_at = ${sqlString(now)} as created from tenants where id = ${sqlString(tenant)}`,
    );
    return { key, keyId: row.id };
  });
  const results = await executeSql(statements.join(";\n"), target);
  return keys.map(({ key, keyId }, i) => {
    const tenantRow = results[i * 4 + 3]?.[0] ?? {};
    return { key, keyId, tenantCreated: Boolean(tenantRow.created), tenantDefaultLocale: tenantRow.defaultLocale };
  });
}

const KEY_COLUMNS =
  "id, tenant_id as tenantId, role, user_id as userId, name, prefix, created_at as createdAt, expires_at as expiresAt, revoked_at as revokedAt";

/** Every key of a tenant, oldest first, as the API represents them. */
export async function listKeys({ tenant, ...target }) {
  if (!tenant) throw new Error("--list needs --tenant <tenantId>.");
  const [rows] = await executeSql(`select ${KEY_COLUMNS} from api_keys where tenant_id = ${sqlString(tenant)} order by created_at, id`, target);
  return rows.map(keyRepresentation);
}

/**
 * Revokes a key by its id (key_…), recording key.revoked; a revoked key stays revoked as it was.
 * Running Worker instances drop it from their key cache within 10 s.
 */
export async function revokeKey({ keyId, ...target }) {
  if (!keyId || !/^key_[0-9A-Za-z_-]{1,100}$/.test(keyId)) throw new Error("--revoke needs a key id (key_…), not the key itself.");
  const now = new Date().toISOString();
  const [[found] = []] = await executeSql(`select ${KEY_COLUMNS} from api_keys where id = ${sqlString(keyId)}`, target);
  if (!found) throw new Error(`No key ${keyId}.`);
  if (found.revokedAt) return { key: keyRepresentation(found), alreadyRevoked: true };
  const revoked = keyRepresentation({ ...found, revokedAt: now });
  // The event is only written when this statement list is the one that revokes it.
  await executeSql(
    [
      `insert into events (id, tenant_id, type, actor, at, data) select ${sqlString(timeOrderedId("evt"))}, tenant_id, 'key.revoked', 'cli', ${sqlString(now)}, ${sqlString(JSON.stringify({ key: revoked }))} from api_keys where id = ${sqlString(keyId)} and revoked_at is null`,
      `update api_keys set revoked_at = ${sqlString(now)} where id = ${sqlString(keyId)} and revoked_at is null`,
    ].join(";\n"),
    target,
  );
  return { key: revoked, alreadyRevoked: false };
}
