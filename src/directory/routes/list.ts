import { listContextOf } from "../../platform/http/context";
import { mapPage } from "../../platform/data/pagination";
import { defineRoute } from "../../platform/http/routes";
import { listDirectory, toDirectoryRepresentation } from "../queries";
import { accountPage, listDirectoryQuery } from "../schemas";

export default defineRoute(
  {
    method: "get",
    path: "/v1/accounts",
    operationId: "listAccounts",
    summary: "List directory accounts",
    description:
      "Filters combine with AND. name: case-insensitive substring; userId: accounts with that user; email: accounts with a user of that email, exact ignoring case. ACCOUNT keys see only the accounts they are a user of.",
    tag: "Accounts",
    roles: ["OPERATOR", "ACCOUNT"],
    query: listDirectoryQuery,
    responses: { 200: { description: "One page of accounts.", schema: accountPage } },
    errors: ["invalid_next_token"],
  },
  async function handleListAccounts(c, { query }) {
    const page = await listDirectory(listContextOf(c), query);
    return c.json(mapPage(page, (item) => toDirectoryRepresentation(item.row)));
  },
);
