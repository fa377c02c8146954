import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiProblem, createClient, unwrap, type ClientOptions, type Schemas } from "../../client/src/index";
import { newTenant, uniqueId, type Caller } from "../helpers/client";

/** The typed client on the Worker under test; `seen` collects every request it sends. */
function clientFor(caller: Caller, options: Partial<ClientOptions> = {}) {
  const seen: Request[] = [];
  const api = createClient({
    baseUrl: "http://api.test",
    apiKey: caller.key,
    client: caller.role,
    fetch: async (request) => {
      seen.push(request.clone());
      return SELF.fetch(request);
    },
    ...options,
  });
  return { api, seen };
}

const operationBody = (overrides: Partial<Schemas["OperationCreate"]> = {}): Schemas["OperationCreate"] => ({
  code: uniqueId("OP"),
  name: { en: "Spring" },
  type: "PRIVATE",
  startDate: "2027-03-01T00:00:00Z",
  endDate: "2027-04-30T23:59:59Z",
  ...overrides,
});

describe("the typed client (client/)", () => {
  it("sends typed bodies and reads typed answers", async () => {
    const { api } = clientFor(await newTenant());
    const created: Schemas["Operation"] = await unwrap(api.POST("/v1/operations", { body: operationBody() }));
    expect(created).toMatchObject({ status: "DRAFT", type: "PRIVATE", lineCount: 0 });
    const read = await unwrap(api.GET("/v1/operations/{operationId}", { params: { path: { operationId: created.id } } }));
    expect(read.id).toBe(created.id);
    // Enum filters are arrays of the enum, sent as a comma list.
    const drafts = await unwrap(api.GET("/v1/operations", { params: { query: { status: ["DRAFT", "ACTIVE"], limit: 10 } } }));
    expect(drafts.items.map((operation) => operation.id)).toEqual([created.id]);
    // @ts-expect-error "ACTIVEX" is not an Operation status: the types refuse it before the server does.
    const wrong = await api.GET("/v1/operations", { params: { query: { status: ["ACTIVEX"] } } });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error?.code).toBe("validation_failed");
  });

  it("answers problems as typed Problem bodies, and unwrap throws them as ApiProblem", async () => {
    const { api } = clientFor(await newTenant());
    const missing = await api.GET("/v1/operations/{operationId}", { params: { path: { operationId: "op_01ARZ3NDEKTSV4RRFFQ69G5FAV" } } });
    expect(missing.data).toBeUndefined();
    expect(missing.error).toMatchObject({ status: 404, code: "not_found" });
    const thrown = await unwrap(api.GET("/v1/operations/{operationId}", { params: { path: { operationId: "op_01ARZ3NDEKTSV4RRFFQ69G5FAV" } } })).catch(
      (error) => error,
    );
    expect(thrown).toBeInstanceOf(ApiProblem);
    expect(thrown).toMatchObject({ status: 404, problem: { code: "not_found" } });
  });

  it("walks every page of a list with paginate, filters kept", async () => {
    const operator = await newTenant();
    const { api, seen } = clientFor(operator);
    const operation = await unwrap(api.POST("/v1/operations", { body: operationBody() }));
    const lines = Array.from({ length: 7 }, (_, i) => ({ variantExternalId: `SKU-${i}`, minQuantity: 0, maxQuantity: 10 + i }));
    await unwrap(api.PUT("/v1/operations/{operationId}/lines", { params: { path: { operationId: operation.id } }, body: lines }));
    seen.length = 0;
    const walked: Schemas["Line"][] = [];
    for await (const line of api.paginate("/v1/operations/{operationId}/lines", {
      path: { operationId: operation.id },
      query: { limit: 3, sort: ["-variantExternalId"] },
    }))
      walked.push(line);
    expect(walked.map((line) => line.variantExternalId)).toEqual(lines.map((line) => line.variantExternalId).reverse());
    expect(seen).toHaveLength(3);
    expect(seen.every((request) => new URL(request.url).searchParams.get("sort") === "-variantExternalId")).toBe(true);
  });

  it("adds an Idempotency-Key to every write when asked, never to a read", async () => {
    const { api, seen } = clientFor(await newTenant(), { idempotency: true });
    const created = await api.POST("/v1/operations", { body: operationBody() });
    await api.GET("/v1/operations");
    const [write, read] = seen;
    expect(write.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
    expect(read.headers.get("idempotency-key")).toBeNull();
    // The key is what makes a retry safe: the same request again replays the first answer.
    const again = await SELF.fetch(new Request(write.url, { method: "POST", headers: write.headers, body: await write.text() }));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await again.json<{ id: string }>()).id).toBe(created.data?.id);
    // Not asked: the client sends none of its own.
    const { api: plainApi, seen: plain } = clientFor(await newTenant());
    await plainApi.POST("/v1/operations", { body: operationBody() });
    expect(plain[0].headers.get("idempotency-key")).toBeNull();
  });

  it("carries x-d1-bookmark from each answer to the next request", async () => {
    const { api, seen } = clientFor(await newTenant());
    expect(api.bookmark).toBeUndefined();
    await api.POST("/v1/operations", { body: operationBody() });
    const after = api.bookmark;
    expect(after).toMatch(/^SHARD_\d+:/);
    await api.GET("/v1/operations");
    expect(seen[0].headers.get("x-d1-bookmark")).toBeNull();
    expect(seen[1].headers.get("x-d1-bookmark")).toBe(after);
    const { api: forgetful, seen: sent } = clientFor(await newTenant(), { bookmarks: false });
    await forgetful.POST("/v1/operations", { body: operationBody() });
    await forgetful.GET("/v1/operations");
    expect(sent[1].headers.get("x-d1-bookmark")).toBeNull();
  });
});
