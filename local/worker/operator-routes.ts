import { zValidator } from "@hono/zod-validator";
import { eq } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import * as z from "zod";
import { createKey, revokeKey } from "../../src/keys/commands";
import { findKey, toKeyRepresentation } from "../../src/keys/queries";
import { createKeyBody } from "../../src/keys/schemas";
import type { Env } from "../../src/platform/core/env";
import { ApiError } from "../../src/platform/core/errors";
import { idPrefixes, isWellFormedId } from "../../src/platform/core/ids";
import { localeTag } from "../../src/platform/core/locale";
import type { Principal } from "../../src/platform/core/principal";
import { type ShardName, shardNames } from "../../src/platform/core/shards";
import type { ChangeAuthor } from "../../src/platform/data/changes";
import { type DatabaseName, d1, primaryDb } from "../../src/platform/data/database";
import { apiKeys, tenantDirectory } from "../../src/platform/data/tables";
import type { App, AppBindings } from "../../src/platform/http/context";
import { throwZodError } from "../../src/platform/schema/validation";
import { deleteTenant, TenantDeleteRefused } from "../../src/tenants/delete";
import { createTenant } from "../../src/tenants/placement";
import type { OperationCoordinator } from "./operation-coordinator";
import { OPERATOR_TOKEN_HEADER } from "./operator-token.mjs";
import { splitSqlStatements } from "./sql-statements.mjs";

/*
 * The operator commands of a local server (`npm run key`, `npm run tenant:move`'s own key,
 * `npm run tenant:delete`, the node checks' SQL), run inside the server that holds the local
 * databases rather than beside it against its files (a second process writing them makes the server
 * answer SQLITE_BUSY). Mounted only by the local entry (local/worker/index.ts), directly rather than
 * through mountRoutes, so they are never deployed and never in the OpenAPI document; they answer only
 * a request carrying the token the server was started with (LOCAL_OPERATOR_TOKEN, which
 * scripts/lib/local-server.mjs keeps beside the state for the commands).
 */

/** The local entry's bindings: the API's, and the token its operator commands must carry. */
export type LocalEnv = Env & { LOCAL_OPERATOR_TOKEN?: string };

/** The author of a command's changes, as events and history have always named the command line. */
const CLI_AUTHOR: ChangeAuthor = { actor: "cli", keyId: null, requestId: null, reason: null };

const issueBody = z.strictObject({
  tenant: z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/, "1-100 characters among letters, digits, '.', '_', ':', '-'"),
  key: createKeyBody,
  defaultLocale: localeTag.optional(),
  shard: z
    .string()
    .regex(/^SHARD_[A-Z0-9_]+$/)
    .optional(),
  /** Refuse a tenant that does not exist (a command's own key), rather than create it. */
  existingOnly: z.boolean().optional(),
});

const sqlBody = z.strictObject({
  // CONTROL or a shard's binding: which of them this server has is checked by the route.
  database: z.string().min(1),
  // D1 would run them all and answer only the last one's rows.
  sql: z.string().refine((sql) => splitSqlStatements(sql).length === 1, "one statement only"),
  params: z.array(z.union([z.string(), z.number(), z.null()])).optional(),
});

function validJson<T extends z.ZodType>(schema: T) {
  return zValidator("json", schema, (result) => {
    if (!result.success) throwZodError(result.error as unknown as z.ZodError, "body");
  }) as unknown as MiddlewareHandler<AppBindings>;
}

/** Whether the request carries the server's token: compared as digests, so in constant time. */
async function carriesToken(request: Request, token: string | undefined): Promise<boolean> {
  const given = request.headers.get(OPERATOR_TOKEN_HEADER);
  if (!token || !given) return false;
  const digest = async (text: string) => new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  const [a, b] = await Promise.all([digest(given), digest(token)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/** What a command acts as in a tenant: its writes are recorded as actor "cli". */
function commandWriter(tenantId: string, shard: ShardName, tenantDefaultLocale: string): { principal: Principal; author: ChangeAuthor } {
  return { principal: { tenantId, role: "OPERATOR", userId: null, keyId: "cli", tenantDefaultLocale, shard }, author: CLI_AUTHOR };
}

async function placementOf(env: LocalEnv, tenantId: string) {
  const [entry] = await primaryDb(env, "CONTROL").select().from(tenantDirectory).where(eq(tenantDirectory.tenantId, tenantId)).limit(1);
  return entry;
}

export function mountOperatorRoutes(app: App): void {
  app.use("/__local/*", async (c, next) => {
    // Without the token the routes do not exist, as on a deployment.
    if (!(await carriesToken(c.req.raw, (c.env as LocalEnv).LOCAL_OPERATOR_TOKEN))) throw new ApiError("not_found", "Not found.");
    await next();
  });

  // Issues a key (creating the tenant when it is new): the first key of a tenant comes from here.
  app.post("/__local/keys", validJson(issueBody), async (c) => {
    const body = c.req.valid("json" as never) as z.output<typeof issueBody>;
    const env = c.env as LocalEnv;
    const existing = await placementOf(env, body.tenant);
    if (!existing && body.existingOnly) throw new ApiError("not_found", `No tenant ${body.tenant} in the local databases.`);
    let placement: { shard: string; defaultLocale: string };
    try {
      placement =
        existing ?? (await createTenant(env, { tenantId: body.tenant, defaultLocale: body.defaultLocale ?? "en", shard: body.shard as ShardName | undefined }));
    } catch (error) {
      throw new ApiError("validation_failed", error instanceof Error ? error.message : String(error));
    }
    const shard = placement.shard as ShardName;
    const { row, key } = await createKey(
      { control: primaryDb(env, "CONTROL"), shard: primaryDb(env, shard) },
      commandWriter(body.tenant, shard, placement.defaultLocale),
      body.key,
      env.KEY_SIGNING_SECRET,
    );
    return c.json({ key, keyId: row.id, shard, tenantCreated: !existing, tenantDefaultLocale: placement.defaultLocale }, 201);
  });

  app.get("/__local/keys", async (c) => {
    const tenant = c.req.query("tenant") ?? "";
    const rows = await primaryDb(c.env, "CONTROL").select().from(apiKeys).where(eq(apiKeys.tenantId, tenant)).orderBy(apiKeys.createdAt, apiKeys.id);
    return c.json({ items: rows.map(toKeyRepresentation) });
  });

  app.post("/__local/keys/:keyId/revoke", async (c) => {
    const env = c.env as LocalEnv;
    const keyId = c.req.param("keyId");
    const control = primaryDb(env, "CONTROL");
    const [owner] = await control.select({ tenantId: apiKeys.tenantId }).from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
    const entry = owner && (await placementOf(env, owner.tenantId));
    if (!owner || !entry) throw new ApiError("not_found", `No key ${keyId}.`);
    const before = await findKey(control, owner.tenantId, keyId);
    const shard = entry.shard as ShardName;
    await revokeKey({ control, shard: primaryDb(env, shard) }, commandWriter(owner.tenantId, shard, entry.defaultLocale), keyId);
    const after = await findKey(control, owner.tenantId, keyId);
    return c.json({ key: toKeyRepresentation(after!), alreadyRevoked: Boolean(before?.revokedAt) });
  });

  // One statement on a served database: how the node checks read and write it while it serves.
  app.post("/__local/sql", validJson(sqlBody), async (c) => {
    const body = c.req.valid("json" as never) as z.output<typeof sqlBody>;
    const env = c.env as LocalEnv;
    const databases: DatabaseName[] = ["CONTROL", ...shardNames(env)];
    const name = databases.find((database) => database === body.database);
    if (!name) throw new ApiError("validation_failed", `${body.database} is not a database of this server (${databases.join(", ")}).`);
    try {
      const { results } = await d1(env, name)
        .prepare(body.sql)
        .bind(...(body.params ?? []))
        .all();
      return c.json({ rows: results });
    } catch (error) {
      // The statement is the caller's: D1 refusing it (syntax, a constraint) is a bad request.
      throw new ApiError("validation_failed", error instanceof Error ? error.message : String(error));
    }
  });

  // Rings an Operation's armed alarm as at its own time: a check sees a schedule run without waiting for it.
  app.post("/__local/operations/:operationId/alarm", async (c) => {
    const namespace = c.env.OPERATION_COORDINATOR as unknown as DurableObjectNamespace<OperationCoordinator>;
    const operationId = c.req.param("operationId");
    if (!isWellFormedId(idPrefixes.operation, operationId)) throw new ApiError("not_found", `No Operation ${operationId}.`);
    return c.json(await namespace.get(namespace.idFromName(operationId)).ringArmedAlarm());
  });

  app.post("/__local/tenants/:tenant/delete", async (c) => {
    try {
      return c.json(await deleteTenant(c.env as LocalEnv, c.req.param("tenant")));
    } catch (error) {
      if (error instanceof TenantDeleteRefused) throw new ApiError(/not found/.test(error.message) ? "not_found" : "validation_failed", error.message);
      throw error;
    }
  });
}
