// Issues API keys straight into D1: the only way a first key can exist (keys authenticate everything else).
import { createHash, randomBytes } from "node:crypto";
import { canonicalIdentifier, identifierProblem } from "../../src/platform/core/identifier-text.mjs";
import { keyPrefix, mintSignedKey } from "../../src/platform/core/key-format.mjs";
import { operatorRequest } from "./local-server.mjs";
import { keySigningSecret } from "./local-secrets.mjs";
import { CONTROL, executeSql, shardBindings, sqlString } from "./wrangler.mjs";

export const ROLES = ["OPERATOR", "ACCOUNT"];
/** As the Worker's keys/commands.ts: a key whose prefix another key of the tenant has is never issued; another is minted, this many times at most. */
const ISSUE_ATTEMPTS = 3;

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

/** Checks a request for a key (refusing it with a message naming the option); answers the userId the key is stored with. */
export function validateKeyRequest({ tenant, role, user, locale, shard, name }) {
  if (shard !== undefined && !/^SHARD_[A-Z0-9_]+$/.test(shard)) throw new Error("--shard must name a shard binding of wrangler.toml (SHARD_…).");
  if (!tenant || !/^[A-Za-z0-9._:-]{1,100}$/.test(tenant)) {
    throw new Error("--tenant is required: 1-100 characters among letters, digits, '.', '_', ':', '-'.");
  }
  if (!ROLES.includes(role)) throw new Error("--role must be OPERATOR or ACCOUNT.");
  if (role === "ACCOUNT" && !user) throw new Error("--user <userId> is required for an ACCOUNT key (the customer user it acts for).");
  if (user !== undefined && (user.length === 0 || user.length > 200)) throw new Error("--user must be 1-200 characters.");
  // The rule every user id of the API follows (the key is matched against the directory's users).
  const userProblem = user === undefined ? undefined : identifierProblem(user);
  if (userProblem) throw new Error(`--user ${userProblem}.`);
  if (locale !== undefined) {
    try {
      Intl.getCanonicalLocales(locale);
    } catch {
      throw new Error(`--locale ${locale} is not a BCP 47 language tag (e.g. en, fr-FR).`);
    }
    if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(locale)) throw new Error(`--locale ${locale} is not a BCP 47 language tag (e.g. en, fr-FR).`);
  }
  // As the API takes a key's name (src/keys/schemas.ts): what a person can read, trimmed.
  if (name !== undefined && (name.trim().length === 0 || name.trim().length > 200 || /\p{Cc}/u.test(name))) {
    throw new Error("--name must be 1-200 characters, without control characters.");
  }
  // An OPERATOR key's user is the person it belongs to (events and approvals name them); an ACCOUNT key's, the customer it acts for.
  return { userId: user === undefined ? null : canonicalIdentifier(user) };
}

/**
 * Creates the tenant when it is new (default locale `locale`, else `en`), stores the SHA-256 hex of a
 * fresh key signed as the Worker signs them (src/platform/core/key-format.mjs, with the target's
 * KEY_SIGNING_SECRET), and returns the plain key — the only time it exists outside the caller.
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

/**
 * Places each new tenant (on `shard` when given, else on the shard with the fewest tenants, as the
 * Worker does) and returns every requested tenant's entry: { shard, defaultLocale, created }.
 */
async function placeTenants(requests, target) {
  const shards = await shardBindings();
  const wanted = [...new Set(requests.map((request) => request.tenant))];
  const [entries, load] = await executeSql(
    [
      `select tenant_id as tenantId, shard, default_locale as defaultLocale from tenant_directory where tenant_id in (${wanted.map(sqlString).join(", ")})`,
      "select shard, count(*) as tenants from tenant_directory group by shard",
    ].join(";\n"),
    target,
  );
  const placed = new Map(entries.map((entry) => [entry.tenantId, { ...entry, created: false }]));
  const tenantsOn = new Map(load.map((row) => [row.shard, row.tenants]));
  for (const { tenant, locale, shard, existingOnly } of requests) {
    if (placed.has(tenant)) continue;
    if (existingOnly) throw new Error(`No tenant ${tenant} in the ${target.remote ? "remote" : "local"} D1.`);
    if (shard !== undefined && !shards.includes(shard)) throw new Error(`--shard ${shard} is not a shard of wrangler.toml (${shards.join(", ")}).`);
    const chosen = shard ?? shards.reduce((best, name) => ((tenantsOn.get(name) ?? 0) < (tenantsOn.get(best) ?? 0) ? name : best));
    tenantsOn.set(chosen, (tenantsOn.get(chosen) ?? 0) + 1);
    placed.set(tenant, { tenantId: tenant, shard: chosen, defaultLocale: locale ?? "en", created: true });
  }
  return placed;
}

/** The event the Worker records for the same change. */
function keyEventSql(tenant, type, key, at) {
  return `insert into events (id, tenant_id, type, actor, at, data) values (${sqlString(timeOrderedId("evt"))}, ${sqlString(tenant)}, ${sqlString(type)}, 'cli', ${sqlString(at)}, ${sqlString(JSON.stringify({ key }))})`;
}

/**
 * The change history of a key's change made here (as the Worker's keys/commands.ts records it): a
 * change set by actor "cli" and the key's record, its hash only as "[redacted]".
 */
function keyHistorySql(tenant, action, keyId, changes, at) {
  const setId = timeOrderedId("chg");
  return [
    `insert into change_sets (id, tenant_id, operation_id, version, actor, request_id, reason, at) values (${sqlString(setId)}, ${sqlString(tenant)}, null, null, 'cli', null, null, ${sqlString(at)})`,
    `insert into change_records (set_id, resource_type, action, resource_id, ordinal, changes) values (${sqlString(setId)}, 'k', ${sqlString(action)}, ${sqlString(keyId)}, 0, ${sqlString(JSON.stringify(changes))})`,
  ];
}

/** A new key's fields as history records them (the Worker's KEY_FIELDS, in its order). */
const createdKeyChanges = (row) => ({
  role: row.role,
  userId: row.userId ?? null,
  name: row.name ?? null,
  prefix: row.prefix ?? null,
  expiresAt: row.expiresAt ?? null,
  revokedAt: null,
  keyHash: "[redacted]",
});

/**
 * Issues several keys with few wrangler calls (each wrangler start costs seconds): new tenants'
 * rows go to their shard first, then their directory entries and the keys to the control database,
 * then each key.created event to the tenant's shard (as the Worker orders them). A request may give the
 * key a `name` and an `expiresAt`, and with `existingOnly` refuses a tenant that does not exist.
 */
export async function issueKeys(requests, target = {}) {
  const userIds = requests.map((request) => validateKeyRequest(request).userId);
  const signingSecret = keySigningSecret(target);
  const now = new Date().toISOString();
  const placed = await placeTenants(requests, target);
  const shardStatements = new Map();
  const onShard = (shard, statement) => shardStatements.set(shard, [...(shardStatements.get(shard) ?? []), statement]);
  for (const entry of placed.values()) {
    if (entry.created)
      onShard(entry.shard, `insert into tenants (id, created_at) values (${sqlString(entry.tenantId)}, ${sqlString(now)}) on conflict (id) do nothing`);
  }
  for (const [shard, statements] of shardStatements) await executeSql(statements.join(";\n"), target, shard);
  shardStatements.clear();

  const controlStatements = [];
  for (const entry of placed.values()) {
    if (entry.created) {
      controlStatements.push(
        `insert into tenant_directory (tenant_id, shard, default_locale, created_at) values (${sqlString(entry.tenantId)}, ${sqlString(entry.shard)}, ${sqlString(entry.defaultLocale)}, ${sqlString(now)}) on conflict (tenant_id) do nothing`,
      );
    }
  }
  // A key goes in only if its prefix is free in its tenant (the unique index; "on conflict do nothing"
  // answers no row): those that did not are minted again, as the Worker does.
  const keys = new Array(requests.length);
  let pending = requests.map((_, index) => index);
  for (let attempt = 1; pending.length; attempt++) {
    if (attempt > ISSUE_ATTEMPTS) throw new Error("Could not issue a key with a prefix of its own in its tenant: run the command again.");
    const minted = await Promise.all(pending.map((index) => mintKeyRow(signingSecret, { ...requests[index], userId: userIds[index] }, now)));
    const inserts = minted.map(
      ({ row, keyHash }) =>
        `insert into api_keys (id, tenant_id, role, user_id, key_hash, prefix, name, expires_at, created_at) values (${sqlString(row.id)}, ${sqlString(row.tenant)}, ${sqlString(row.role)}, ${sqlString(row.userId)}, ${sqlString(keyHash)}, ${sqlString(row.prefix)}, ${sqlString(row.name)}, ${sqlString(row.expiresAt)}, ${sqlString(now)}) on conflict do nothing returning id`,
    );
    const results = await executeSql([...controlStatements.splice(0), ...inserts].join(";\n"), target, CONTROL);
    const inserted = results.slice(-inserts.length).map((rows) => rows.length > 0);
    minted.forEach((issued, i) => {
      if (inserted[i]) keys[pending[i]] = issued;
    });
    pending = pending.filter((_, i) => !inserted[i]);
  }
  for (const { row } of keys) {
    const shard = placed.get(row.tenant).shard;
    onShard(shard, keyEventSql(row.tenant, "key.created", keyRepresentation(row), now));
    for (const statement of keyHistorySql(row.tenant, "c", row.id, createdKeyChanges(row), now)) onShard(shard, statement);
  }
  for (const [shard, statements] of shardStatements) await executeSql(statements.join(";\n"), target, shard);
  return keys.map(({ key, row }) => {
    const entry = placed.get(row.tenant);
    return { key, keyId: row.id, tenantCreated: entry.created, tenantDefaultLocale: entry.defaultLocale, shard: entry.shard };
  });
}

function checkedListTenant(tenant) {
  if (!tenant) throw new Error("--list needs --tenant <tenantId>.");
  return tenant;
}

function checkedKeyId(keyId) {
  if (!keyId || !/^key_[0-9A-Za-z_-]{1,100}$/.test(keyId)) throw new Error("--revoke needs a key id (key_…), not the key itself.");
  return keyId;
}

/**
 * The keys of a local server, through its operator routes (local/worker/operator-routes.ts): the
 * Worker's own code issues and revokes them, in the process that holds the databases. The same
 * answers as issueKeys, listKeys and revokeKey.
 */
export function serverKeys(server) {
  return {
    where: `through the local server on ${server.url}`,
    async issue(requests) {
      const userIds = requests.map((request) => validateKeyRequest(request).userId);
      const issued = [];
      for (const [i, { tenant, role, locale, shard, name, expiresAt, existingOnly }] of requests.entries()) {
        const key = {
          role,
          ...(userIds[i] !== null && { userId: userIds[i] }),
          ...(name !== undefined && { name: name.trim() }),
          ...(expiresAt && { expiresAt }),
        };
        issued.push(await operatorRequest(server, "POST", "/__local/keys", { tenant, key, defaultLocale: locale, shard, existingOnly }));
      }
      return issued;
    },
    list: async (tenant) => (await operatorRequest(server, "GET", `/__local/keys?tenant=${encodeURIComponent(checkedListTenant(tenant))}`)).items,
    revoke: (keyId) => operatorRequest(server, "POST", `/__local/keys/${encodeURIComponent(checkedKeyId(keyId))}/revoke`),
  };
}

/** The keys of a database written directly (the deployed D1, or a local one no server holds), with the same answers as serverKeys. */
export function databaseKeys(target) {
  return {
    where: `in the ${target.remote ? "remote" : "local"} D1`,
    issue: (requests) => issueKeys(requests, target),
    list: (tenant) => listKeys({ tenant, ...target }),
    revoke: (keyId) => revokeKey({ keyId, ...target }),
  };
}

/** A fresh key for one request, and the row that stores it (its SHA-256 and its prefix, never the key). */
async function mintKeyRow(signingSecret, { tenant, role, userId, name = null, expiresAt = null }, now) {
  const key = await mintSignedKey(signingSecret);
  const keyHash = createHash("sha256").update(key).digest("hex");
  return { key, keyHash, row: { id: timeOrderedId("key"), tenant, role, userId, name, expiresAt, prefix: keyPrefix(key), createdAt: now } };
}

const KEY_COLUMNS =
  "id, tenant_id as tenantId, role, user_id as userId, name, prefix, created_at as createdAt, expires_at as expiresAt, revoked_at as revokedAt";

/** Every key of a tenant, oldest first, as the API represents them. */
export async function listKeys({ tenant, ...target }) {
  checkedListTenant(tenant);
  const [rows] = await executeSql(`select ${KEY_COLUMNS} from api_keys where tenant_id = ${sqlString(tenant)} order by created_at, id`, target);
  return rows.map(keyRepresentation);
}

/**
 * Revokes a key by its id (key_…), recording key.revoked; a revoked key stays revoked as it was.
 * Running Worker instances drop it from their key cache within 10 s.
 */
export async function revokeKey({ keyId, ...target }) {
  checkedKeyId(keyId);
  const now = new Date().toISOString();
  const [[found] = []] = await executeSql(
    `select ${KEY_COLUMNS}, (select shard from tenant_directory d where d.tenant_id = api_keys.tenant_id) as shard from api_keys where id = ${sqlString(keyId)}`,
    target,
  );
  if (!found) throw new Error(`No key ${keyId}.`);
  if (found.revokedAt) return { key: keyRepresentation(found), alreadyRevoked: true };
  const revoked = keyRepresentation({ ...found, revokedAt: now });
  // Only the call whose update revoked the key records the event (in the tenant's shard, after the key's change).
  const [[changed]] = await executeSql(
    `update api_keys set revoked_at = ${sqlString(now)} where id = ${sqlString(keyId)} and revoked_at is null returning id`,
    target,
  );
  if (changed) {
    const statements = [
      keyEventSql(found.tenantId, "key.revoked", revoked, now),
      ...keyHistorySql(found.tenantId, "u", keyId, { revokedAt: [null, now] }, now),
    ];
    await executeSql(statements.join(";\n"), target, found.shard);
  }
  return { key: revoked, alreadyRevoked: !changed };
}
