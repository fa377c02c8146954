import type { ApiClient, Schemas } from "@campaign-policy/client";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useSession } from "../shared/context";
import { API_LIMITS } from "../shared/limits";
import { useNamesOf } from "../shared/lookups";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer, csvAnswer, csvBody, type QueryOf, type SortOf } from "../shared/session";
import { resolveLocale } from "@campaign-policy/common/locale";
import { currentLanguage } from "../shared/i18n";

/** The Operations, their lines and their accounts as the console reads and writes them: every call of the API about them. */

export type Operation = Schemas["Operation"];
export type Line = Schemas["Line"];
export type LineQuery = QueryOf<"/v1/operations/{operationId}/lines">;
export type LineSort = SortOf<"/v1/operations/{operationId}/lines">;
export type OperationSort = SortOf<"/v1/operations">;
export type Attachment = Schemas["AttachmentPage"]["items"][number];
export type AttachmentStatus = NonNullable<QueryOf<"/v1/operations/{operationId}/accounts">["operationStatus"]>[number];
export type LineCounts = { created: number; updated: number };

/**
 * The name shown for an Operation: in the console's language, by the API's own fallback (its base
 * language, then the default, then the first by tag), else its code. The console does not know the
 * tenant's default locale, so English stands for it.
 */
export const nameOf = (operation: Pick<Operation, "name" | "code">) => resolveLocale(operation.name, currentLanguage(), "en").value ?? operation.code;

export interface OperationFilters {
  status: string;
  type: string;
  name: string;
  sort: string;
}

export function useOperationList(filters: OperationFilters) {
  const { api } = useSession();
  const { status, type, name, sort } = filters;
  return usePagedQuery(queryKeys.operations.list(filters), async (nextToken) => {
    const query = {
      limit: 50,
      sort: [sort as OperationSort],
      ...(nextToken && { nextToken }),
      ...(status && { status: [status as Operation["status"]] }),
      ...(type && { type: type as Operation["type"] }),
      ...(name && { name }),
    };
    return (await answer(api.GET("/v1/operations", { params: { query } }))).data;
  });
}

/** Operations to choose from (newest first), by a part of their name. */
export function useOperationPicker(search: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.operations.picker(search),
    queryFn: async () =>
      (await answer(api.GET("/v1/operations", { params: { query: { limit: 50, sort: ["-createdAt"], ...(search && { name: search }) } } }))).data,
  });
}

/** The Operation whose code is `code` (null: none), to filter by code where the API takes an id. */
export function useOperationByCode(code: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.operations.byCode(code),
    enabled: code.length > 0,
    staleTime: 60_000,
    queryFn: async () => (await answer(api.GET("/v1/operations", { params: { query: { ids: [code], idType: "code", limit: 1 } } }))).data.items[0] ?? null,
  });
}

/**
 * The codes of the Operations `ids` name, a hundred a request (a feed of 200 events naming 200
 * Operations is two requests, not 200): id → code, or null for an id that names none (deleted).
 * Undefined until every chunk is read.
 */
export function useOperationCodes(ids: readonly string[]): Map<string, string | null> | undefined {
  const { api } = useSession();
  return useNamesOf(ids, queryKeys.operations.codes, async (chunk, limit) =>
    (await answer(api.GET("/v1/operations", { params: { query: { ids: chunk, idType: "id", limit } } }))).data.items.map(
      (operation) => [operation.id, operation.code] as const,
    ),
  );
}

export const fetchOperation = async (api: ApiClient, operationId: string) =>
  (await answer(api.GET("/v1/operations/{operationId}", { params: { path: { operationId } } }))).data;

export function useOperation(operationId: string, { enabled = true } = {}) {
  const { api } = useSession();
  return useQuery({ queryKey: queryKeys.operation(operationId), enabled, queryFn: () => fetchOperation(api, operationId) });
}

/** After a write that answered the Operation: the page shows it, and the lists read again. */
function useOperationStored() {
  const queryClient = useQueryClient();
  return (operation: Operation) => {
    queryClient.setQueryData(queryKeys.operation(operation.id), operation);
    void queryClient.invalidateQueries({ queryKey: queryKeys.operations.all });
  };
}

/** Refreshes an Operation's header (its line count, version) after its lines or accounts changed. */
export function useOperationRefresh(operationId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.operation(operationId) });
}

const ifMatch = (operation: Operation) => ({ "If-Match": `"${operation.version}"` });

export function useChangeStatus(operation: Operation | undefined, handlers: { onMutate: () => void; onError: (error: unknown) => void }) {
  const { api } = useSession();
  const stored = useOperationStored();
  return useMutation({
    mutationFn: async (status: Operation["status"]) =>
      (
        await answer(
          api.POST("/v1/operations/{operationId}/status", { params: { path: { operationId: operation!.id }, header: ifMatch(operation!) }, body: { status } }),
        )
      ).data,
    onSuccess: stored,
    ...handlers,
  });
}

export function useDeleteOperation(
  operation: Operation | undefined,
  handlers: { onMutate: () => void; onSuccess: () => void; onError: (error: unknown) => void },
) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      answer(api.DELETE("/v1/operations/{operationId}", { params: { path: { operationId: operation!.id }, header: ifMatch(operation!) } })),
    ...handlers,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.operations.all });
      handlers.onSuccess();
    },
  });
}

export type OperationFields = Pick<Operation, "code" | "type" | "startDate" | "endDate"> & { name: Record<string, string | null> };

/** Creates an Operation (none given) or changes one (a JSON Merge Patch with If-Match). */
export function useSaveOperation(operation: Operation | undefined, onSaved: (saved: Operation) => void) {
  const { api } = useSession();
  const stored = useOperationStored();
  return useMutation({
    mutationFn: async (fields: OperationFields) => {
      if (!operation) return (await answer(api.POST("/v1/operations", { body: { ...fields, name: fields.name as Record<string, string> } }))).data;
      return (
        await answer(
          api.PATCH("/v1/operations/{operationId}", { params: { path: { operationId: operation.id }, header: ifMatch(operation) as never }, body: fields }),
        )
      ).data;
    },
    onSuccess: (saved) => {
      stored(saved);
      onSaved(saved);
    },
  });
}

export const fetchLines = async (api: ApiClient, operationId: string, query: LineQuery) =>
  (await answer(api.GET("/v1/operations/{operationId}/lines", { params: { path: { operationId }, query } }))).data as Schemas["LinePage"];

/**
 * Every line of an Operation in `sort` order, a page after another (the first rows show as soon as
 * the first page is in). `filter` finds a variant by its code (exactly, or a comma list of codes) or
 * by a part of its name: the API has a filter for each, so the first page puts the code's line
 * before the name's matches.
 */
export function useAllLines(operationId: string, sort: string, filter: string) {
  const { api } = useSession();
  const lines = useInfiniteQuery({
    queryKey: queryKeys.lines.view(operationId, { sort, filter }),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => {
      const page = { limit: API_LIMITS.linesPerPage, sort: [sort as LineSort] };
      const byName = fetchLines(api, operationId, { ...page, ...(filter && { variantName: filter }), ...(pageParam && { nextToken: pageParam }) });
      const codes = filter
        .split(",")
        .map((code) => code.trim())
        .filter(Boolean);
      if (pageParam || !codes.length) return byName;
      const [byCode, first] = await Promise.all([fetchLines(api, operationId, { ...page, variantIds: codes.slice(0, API_LIMITS.variantIdsPerQuery) }), byName]);
      return { ...first, items: [...byCode.items, ...first.items] };
    },
    getNextPageParam: (page) => page.nextToken ?? undefined,
    staleTime: Infinity,
  });
  useEffect(() => {
    if (lines.hasNextPage && !lines.isFetchingNextPage && !lines.error) void lines.fetchNextPage();
  }, [lines.hasNextPage, lines.isFetchingNextPage, lines.error, lines.fetchNextPage]);
  return lines;
}

/** The stored lines of these variants (at most API_LIMITS.variantIdsPerQuery a call). */
export async function fetchLinesOf(api: ApiClient, operationId: string, variants: string[]): Promise<Line[]> {
  const found: Line[] = [];
  for (let offset = 0; offset < variants.length; offset += API_LIMITS.variantIdsPerQuery) {
    const chunk = variants.slice(offset, offset + API_LIMITS.variantIdsPerQuery);
    found.push(...(await fetchLines(api, operationId, { variantIds: chunk, limit: chunk.length })).items);
  }
  return found;
}

export const putLines = async (api: ApiClient, operationId: string, lines: Schemas["LinesUpsert"], dryRun: boolean): Promise<LineCounts> => {
  const { data } = await answer(api.PUT("/v1/operations/{operationId}/lines", { params: { path: { operationId }, query: { dryRun } }, body: lines }));
  return { created: data.created, updated: data.updated };
};

/** A lines CSV's names are one language's: `language`'s, sent as the locale header (else the API would read and write the tenant's default). */
export const importLinesCsv = async (api: ApiClient, operationId: string, text: string, dryRun: boolean, language: string) => {
  const csv = csvBody(text);
  const request = { params: { path: { operationId }, query: { dryRun } }, ...csv, headers: { ...csv.headers, locale: language } };
  return (await answer(api.PUT("/v1/operations/{operationId}/lines", request))).data as { created: number; updated: number; lineCount: number };
};

export const exportLinesCsv = async (api: ApiClient, operationId: string, language: string) =>
  (
    await answer(
      api.GET("/v1/operations/{operationId}/lines", { params: { path: { operationId } }, ...csvAnswer, headers: { ...csvAnswer.headers, locale: language } }),
    )
  ).data as unknown as string;

export interface AttachmentFilters {
  accountName: string;
  status: string;
}

export function useAttachmentList(operationId: string, filters: AttachmentFilters) {
  const { api } = useSession();
  const { accountName, status } = filters;
  return usePagedQuery(
    queryKeys.attachments.list(operationId, filters),
    async (nextToken) =>
      (
        await answer(
          api.GET("/v1/operations/{operationId}/accounts", {
            params: {
              path: { operationId },
              query: {
                limit: 100,
                ...(accountName && { accountName }),
                ...(status && { operationStatus: [status as AttachmentStatus] }),
                ...(nextToken && { nextToken }),
              },
            },
          }),
        )
      ).data as Schemas["AttachmentPage"],
  );
}

/** What an attach or a detach did (or would do): the accounts it changed, those it left as they were, the count after. */
export interface AttachmentCounts {
  changed: number;
  unchanged: number;
  after: number;
}

/** Attaches or detaches accounts (ids, or a CSV of ids), as a dry run or for real: the answer's counts. */
export async function changeAttachments(
  api: ApiClient,
  operationId: string,
  action: "attach" | "detach",
  dryRun: boolean,
  accounts: { ids?: string[]; csv?: string },
): Promise<AttachmentCounts> {
  const init = { params: { path: { operationId }, query: { dryRun } }, ...(accounts.csv !== undefined ? csvBody(accounts.csv) : { body: accounts.ids! }) };
  if (action === "attach") {
    const { data } = await answer(api.PUT("/v1/operations/{operationId}/accounts", init));
    return { changed: data.attached, unchanged: data.alreadyAttached, after: data.accountCount };
  }
  const { data } = await answer(api.DELETE("/v1/operations/{operationId}/accounts", init));
  return { changed: data.detached, unchanged: data.notAttached.length, after: data.accountCount };
}

export type RevertCounts = Schemas["RevertCounts"];

/**
 * Reverts an Operation to a version (If-Match: the version shown), or says what it would change (dry
 * run); `reason` goes with it as svc-change-reason, kept on its change records.
 */
export async function revertOperation(api: ApiClient, operation: Operation, toVersion: number, dryRun: boolean, reason = "") {
  return (
    await answer(
      api.POST("/v1/operations/{operationId}/revert", {
        params: {
          path: { operationId: operation.id },
          query: { dryRun },
          header: { ...ifMatch(operation), ...(reason.trim() && { "svc-change-reason": reason.trim() }) } as never,
        },
        body: { toVersion },
      }),
    )
  ).data as Operation & { reverted: RevertCounts };
}

/** After a revert: the Operation, its lines, accounts and history read again. */
export function useOperationReverted(operationId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all(
      [
        queryKeys.operation(operationId),
        queryKeys.lines.of(operationId),
        queryKeys.attachments.of(operationId),
        queryKeys.history.all,
        queryKeys.operations.all,
      ].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
    );
}

export type ApprovalDecision = Schemas["ApprovalDecision"];

/** How often an Operation's approvals are read again while its page is open (a reviewer decides elsewhere). */
const APPROVALS_REFRESH_MS = 4000;

/**
 * Where the Operation's approval stands: the tenant's setting, every decision (newest first, each
 * valid or not), and who made its current version (whose approval does not count unless allowed).
 */
export function useApprovals(operation: Operation) {
  const { api } = useSession();
  const { id: operationId, version } = operation;
  return useQuery({
    // By version: a change that bumps it voids every decision before it.
    queryKey: [...queryKeys.approvals(operationId), version],
    // Only while approvals matter here (asked for, or decided): with approvals off the page asks nothing more.
    refetchInterval: (query) => {
      const data = query.state.data;
      return data && (data.settings.required > 0 || data.decisions.length > 0) ? APPROVALS_REFRESH_MS : false;
    },
    refetchOnWindowFocus: true,
    queryFn: async () => {
      const [settings, decisions, history] = await Promise.all([
        answer(api.GET("/v1/settings/approvals")),
        answer(api.GET("/v1/operations/{operationId}/approvals", { params: { path: { operationId }, query: { limit: 500 } } })),
        answer(api.GET("/v1/operations/{operationId}/history", { params: { path: { operationId }, query: { limit: 20 } } })),
      ]);
      const made = (history.data as Schemas["ChangeRecordPage"]).items.find((record) => record.version === version && record.resourceType !== "approval");
      return { settings: settings.data.activation, decisions: decisions.data.items, author: made?.actor ?? null };
    },
  });
}

/** Approves or rejects the Operation as it is now (its current version), with an optional comment. */
export function useDecide(operation: Operation, handlers: { onSuccess: () => void }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ decision, comment }: { decision: ApprovalDecision["decision"]; comment: string }) =>
      (
        await answer(
          api.POST("/v1/operations/{operationId}/approvals", {
            params: { path: { operationId: operation.id } },
            body: { decision, version: operation.version, ...(comment.trim() && { comment: comment.trim() }) },
          }),
        )
      ).data,
    onSuccess: () => {
      handlers.onSuccess();
      void queryClient.invalidateQueries({ queryKey: queryKeys.approvals(operation.id) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.history.all });
    },
  });
}
