import { listContextOf } from "../../platform/http/context";
import { defineRoute } from "../../platform/http/routes";
import { keyStore, listKeys, toKeyRepresentation } from "../queries";
import { keyPage, listKeysQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/keys",
    operationId: "listKeys",
    summary: "List API keys",
    description:
      "The tenant's keys, revoked and expired ones included (with revokedAt and expiresAt). Default order createdAt. Never shows a key itself: `prefix` tells keys apart.",
    tag: "Keys",
    roles: ["OPERATOR"],
    query: listKeysQuery,
    responses: { 200: { description: "One page.", schema: keyPage } },
    errors: ["invalid_next_token"],
  },
  async function handleListKeys(c, { query }) {
    const page = await listKeys({ ...listContextOf(c), db: keyStore(c.env, c.var.trace) }, query);
    return c.json({ items: page.items.map((item) => toKeyRepresentation(item.row)), nextToken: page.nextToken });
  },
);
