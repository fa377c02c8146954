import { writerOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { createKey } from "../commands";
import { keyStore, toKeyRepresentation } from "../queries";
import { createKeyBody, createdKeyRepresentation } from "../schemas";

export default defineRoute(
  {
    method: "post",
    path: "/v1/keys",
    operationId: "createKey",
    summary: "Issue an API key",
    description:
      "Issues a key of the caller's tenant. The answer carries the secret key as `key`, this once: only its SHA-256 is stored, and no later answer shows it. A replay with the same Idempotency-Key answers the same 201 without `key` and with a Warning (the key is not stored anywhere to be shown again): if the first answer was lost, revoke that key and issue another. ACCOUNT keys act for `userId` (their accounts are the directory accounts that list the user).",
    tag: "Keys",
    roles: ["OPERATOR"],
    body: createKeyBody,
    responses: {
      201: {
        description: "Issued.",
        schema: createdKeyRepresentation,
        headers: { Location: "URL of the new key" },
      },
    },
    errors: ["idempotency_key_reused"],
    shownOnce: {
      fields: ["key"],
      warning: (answer) => `The key was shown once, in the first answer; revoke ${answer.id} and issue another if it was lost.`,
    },
  },
  async function handleCreateKey(c, { body }) {
    const { row, key } = await createKey({ control: keyStore(c.env, c.var.trace), shard: c.var.db }, writerOf(c), body, c.env.KEY_SIGNING_SECRET);
    const representation = toKeyRepresentation(row);
    c.header("Location", `/v1/keys/${row.id}`);
    // The plain key must not sit in a shared cache or a browser's history.
    c.header("Cache-Control", "no-store");
    return c.json({ ...representation, key }, 201);
  },
);
