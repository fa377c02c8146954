import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import type { App, AppBindings } from "../../src/platform/app";
import { requireRole } from "../../src/platform/auth";
import { randomSecret } from "../../src/platform/crypto";
import { ApiError } from "../../src/platform/errors";
import { newId } from "../../src/platform/ids";
import { localeTag, localizedText } from "../../src/platform/locale";
import { externalKey, quantity } from "../../src/platform/fields";
import { invalidJsonError, throwZodError } from "../../src/platform/validation";
import { createBenchTenant, insertBenchKey, rawUpsertLines, tenantExists } from "./queries";

/*
 * Baselines for `npm run bench`, mounted only by the bench's own Worker entry (bench/worker/index.ts);
 * the production entry never imports this file. Mounted directly, not through mountRoutes, so they
 * never appear in the OpenAPI document.
 */

const benchTenantBody = z.strictObject({ defaultLocale: localeTag.optional() });
const benchKeyBody = z.strictObject({
  tenantId: z.string().min(1).max(100),
  role: z.enum(["OPERATOR", "ACCOUNT"]),
  userId: externalKey.optional(),
});
const rawLinesBody = z
  .array(
    z.object({
      variantExternalId: externalKey,
      minQuantity: quantity,
      maxQuantity: quantity,
      recommendedQuantity: quantity.nullable().optional(),
      variantName: localizedText.optional(),
    }),
  )
  .min(1)
  .max(5000);

async function jsonBody<T extends z.ZodType>(c: Context<AppBindings>, schema: T, fallback?: unknown): Promise<z.output<T>> {
  const text = await c.req.text();
  let value: unknown = fallback;
  if (text.trim()) {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw invalidJsonError(error);
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throwZodError(parsed.error, "body");
  return parsed.data;
}

function newBenchKey(): string {
  return `sk_bench_${randomSecret(24)}`;
}

export function mountBenchRoutes(app: App): void {
  app.post("/__bench/tenants", async (c) => {
    const body = await jsonBody(c, benchTenantBody, {});
    const db = c.var.db;
    const tenantId = newId("tbench");
    const operatorKey = newBenchKey();
    await createBenchTenant(db, tenantId, body.defaultLocale ?? "en");
    await insertBenchKey(db, tenantId, "OPERATOR", null, operatorKey);
    return c.json({ tenantId, operatorKey }, 201);
  });

  app.post("/__bench/keys", async (c) => {
    const body = await jsonBody(c, benchKeyBody);
    if (body.role === "ACCOUNT" && !body.userId) {
      throw new ApiError("validation_failed", "ACCOUNT keys need a userId.", {
        errors: [{ field: "body.userId", code: "required", message: "required for ACCOUNT keys" }],
      });
    }
    const db = c.var.db;
    if (!(await tenantExists(db, body.tenantId))) throw new ApiError("not_found", `Tenant ${body.tenantId} not found.`);
    const key = newBenchKey();
    await insertBenchKey(db, body.tenantId, body.role, body.role === "ACCOUNT" ? body.userId! : null, key);
    return c.json({ key }, 201);
  });

  // The floor of every /v1 request: request id, body limit, authentication, idempotency, JSON out.
  app.get("/v1/__bench/constant", (c) => c.json({ ok: true, tenantId: c.get("principal").tenantId }));

  app.put("/v1/__bench/raw-upsert/:operationId", async (c) => {
    const principal = c.get("principal");
    requireRole(principal, "OPERATOR");
    const lines = await jsonBody(c, rawLinesBody);
    const operationId = c.req.param("operationId");
    const written = await rawUpsertLines(c.var.db, principal.tenantId, principal.tenantDefaultLocale, operationId, lines);
    if (written === 0) throw new ApiError("not_found", `Operation ${operationId} not found.`);
    return c.json({ written });
  });
}
