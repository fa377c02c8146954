import * as z from "zod";
import { pageQueryShape } from "../platform/schema/list-query";
import type { ListDefinition } from "../platform/data/pagination";
import { dateTime, externalKey, listEnvelope, pathId } from "../platform/schema/fields";
import { apiKeys } from "../platform/data/tables";

export const keyList: ListDefinition = {
  name: "api_keys",
  sortable: { createdAt: apiKeys.createdAt },
  id: apiKeys.id,
  defaultSort: "createdAt",
  maxLimit: 500,
};

const role = z.enum(["OPERATOR", "ACCOUNT"]);

export const createKeyBody = z
  .strictObject({
    role: role.describe("OPERATOR: the platform's staff, everything. ACCOUNT: a customer user (userId), their own accounts only."),
    userId: externalKey
      .optional()
      .describe(
        "Required for ACCOUNT keys: the directory user the key acts for. Optional for OPERATOR keys: the person the key belongs to, whom events, change records and approvals then name (user:<userId>), so one person's keys are one approver.",
      ),
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .regex(/^[^\p{Cc}]*$/u, "must not contain control characters")
      .optional()
      .describe("A label to recognise the key by."),
    expiresAt: dateTime.optional().describe("From this instant on the key answers 401, like a revoked one. Must be in the future."),
  })
  .superRefine((body, ctx) => {
    if (body.role === "ACCOUNT" && body.userId === undefined) {
      ctx.addIssue({ code: "custom", path: ["userId"], message: "an ACCOUNT key needs the userId it acts for" });
    }
    if (body.expiresAt !== undefined && body.expiresAt <= new Date().toISOString()) {
      ctx.addIssue({ code: "custom", path: ["expiresAt"], message: "must be in the future" });
    }
  })
  // No expiresAt in the example: any fixed instant would one day be in the past.
  .meta({ id: "KeyCreate", examples: [{ role: "ACCOUNT", userId: "u-3001", name: "Maison Dubois storefront" }] });
export type CreateKeyBody = z.output<typeof createKeyBody>;

export const keyIdParam = z.strictObject({ keyId: pathId("The key's id (key_…), never the key itself.") });

export const listKeysQuery = z.strictObject({
  ...pageQueryShape(keyList),
  role: role.optional().describe("Only keys of this role."),
  userId: externalKey.optional().describe("Only keys acting for this user."),
});
export type ListKeysQuery = z.output<typeof listKeysQuery>;

const KEY_EXAMPLE = {
  id: "key_01JQ3V9A4C6E8G0J2K4N6Q8S0T",
  role: "ACCOUNT",
  userId: "u-3001",
  name: "Maison Dubois storefront",
  prefix: "sk3_Obd3",
  createdAt: "2026-02-01T08:00:00Z",
  expiresAt: null,
  revokedAt: null,
};

export const keyRepresentation = z
  .object({
    id: z.string(),
    role,
    userId: z.string().nullable(),
    name: z.string().nullable(),
    prefix: z
      .string()
      .nullable()
      .describe(
        "The key's first characters, as many as tell it apart: no other key of the tenant has this prefix. 8 for keys issued today (`sk3_` and 4 random characters); at least 14 for an `sk2_` key. Null for a key issued before prefixes were recorded, or an `sk2_` key whose first characters another key shared, until its next use records one.",
      ),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: "Key", examples: [KEY_EXAMPLE] });
export type KeyRepresentation = z.infer<typeof keyRepresentation>;

export const keyPage = listEnvelope(keyRepresentation).meta({ id: "KeyPage" });

export const createdKeyRepresentation = keyRepresentation
  .extend({
    key: z
      .string()
      .optional()
      .describe(
        "The secret key, shown this once: only its hash is stored. `sk3_` and 62 base64url characters (a random part, its issue time and a signature). Absent from an Idempotency-Key replay (which carries a Warning).",
      ),
  })
  .meta({ id: "IssuedKey", examples: [{ ...KEY_EXAMPLE, key: "sk3_Obd3jHiMwAsSsGpiDuxmqS_Kt6l-iC_hAZwYN0AALMkbz-I7s66bk3wAtbWE9Q" }] });
