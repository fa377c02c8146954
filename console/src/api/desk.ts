import type { ApiClient, Schemas } from "@campaign-policy/client";
import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { API_LIMITS } from "../shared/limits";
import { useNamesOf } from "../shared/lookups";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer, csvAnswer, type QueryOf, type SortOf } from "../shared/session";

/** The integration desk's resources (directory, events, webhooks and deliveries, keys, order checks): every call of the API about them. */

export type Account = Schemas["Account"];
export type AccountsUpsert = Schemas["AccountsUpsert"];
export type Event = Schemas["Event"];
export type Webhook = Schemas["Webhook"];
export type Delivery = Schemas["Delivery"];
export type DeliveryStatus = Delivery["status"];
export type Key = Schemas["Key"];
export type Comparison = Schemas["Comparison"];
type EventQuery = QueryOf<"/v1/events">;

export interface DirectoryFilters {
  name: string;
  email: string;
  userId: string;
  sort: string;
}

export function useDirectoryList(filters: DirectoryFilters) {
  const { api } = useSession();
  const { name, email, userId, sort } = filters;
  return usePagedQuery(queryKeys.directory.list(filters), async (nextToken) => {
    const query = {
      limit: 100,
      sort: [sort as SortOf<"/v1/accounts">],
      ...(nextToken && { nextToken }),
      ...(name && { name }),
      ...(email && { email }),
      ...(userId && { userId }),
    };
    return (await answer(api.GET("/v1/accounts", { params: { query } }))).data;
  });
}

/** Directory accounts whose name holds `search` (none asked while it is empty). */
export function useDirectorySearch(search: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.directory.search(search),
    enabled: search.length > 0,
    queryFn: async () => (await answer(api.GET("/v1/accounts", { params: { query: { name: search, limit: 20 } } }))).data as Schemas["AccountPage"],
  });
}

/**
 * The directory's names of the accounts `ids` name, a hundred a request: id → name, or null for an
 * id the directory does not hold. Undefined until every chunk is read (an ACCOUNT key reads its own).
 */
export function useAccountNames(ids: readonly string[]): Map<string, string | null> | undefined {
  const { api } = useSession();
  return useNamesOf(ids, queryKeys.directory.names, async (chunk, limit) =>
    (await answer(api.GET("/v1/accounts", { params: { query: { accountIds: chunk, limit } } }))).data.items.map(
      (account) => [account.accountId, account.name] as const,
    ),
  );
}

/**
 * Users' emails in the directory (the first account listing each), to name them where no key of theirs
 * has a name: userId → email, or null for a user the directory does not list.
 */
export function useUserEmails(userIds: readonly string[]): Map<string, string | null> {
  const { api } = useSession();
  const answers = useQueries({
    queries: [...new Set(userIds)].sort().map((userId) => ({
      queryKey: queryKeys.directory.email(userId),
      staleTime: 5 * 60_000,
      queryFn: async () => {
        const { items } = (await answer(api.GET("/v1/accounts", { params: { query: { userId, limit: 1 } } }))).data;
        return [userId, items[0]?.users.find((user) => user.userId === userId)?.email ?? null] as const;
      },
    })),
  });
  return new Map(answers.flatMap((read) => (read.data ? [read.data] : [])));
}

export const putAccounts = async (api: ApiClient, accounts: AccountsUpsert, dryRun: boolean) =>
  (await answer(api.PUT("/v1/accounts", { params: { query: { dryRun } }, body: accounts }))).data;

export const fetchEvents = async (api: ApiClient, query: EventQuery) => (await answer(api.GET("/v1/events", { params: { query } }))).data;

export function useWebhookList(sort: string) {
  const { api } = useSession();
  return usePagedQuery(
    queryKeys.webhooks.list({ sort }),
    async (nextToken) =>
      (await answer(api.GET("/v1/webhooks", { params: { query: { limit: 100, sort: [sort as SortOf<"/v1/webhooks">], ...(nextToken && { nextToken }) } } })))
        .data,
  );
}

/** Every subscription by id (a tenant has at most 20: one page), to name a webhook by its URL where the API answers its id. */
export function useWebhooksById() {
  const { api, session } = useSession();
  return useQuery({
    queryKey: queryKeys.webhooks.byId,
    enabled: session.role === "OPERATOR",
    staleTime: 60_000,
    queryFn: async () => new Map((await answer(api.GET("/v1/webhooks", { params: { query: { limit: 100 } } }))).data.items.map((hook) => [hook.id, hook])),
  });
}

/** How often an open deliveries list asks again (attempts happen in the background). */
const DELIVERIES_REFRESH_MS = 3000;

export function useDeliveryList(webhookId: string, status: string) {
  const { api } = useSession();
  return usePagedQuery(
    queryKeys.deliveries.list(webhookId, { status }),
    async (nextToken) =>
      (
        await answer(
          api.GET("/v1/webhooks/{webhookId}/deliveries", {
            params: { path: { webhookId }, query: { limit: 100, ...(status && { status: [status as DeliveryStatus] }), ...(nextToken && { nextToken }) } },
          }),
        )
      ).data,
    { refetchInterval: DELIVERIES_REFRESH_MS },
  );
}

export function useDeleteWebhook(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (webhook: Webhook) => answer(api.DELETE("/v1/webhooks/{webhookId}", { params: { path: { webhookId: webhook.id } } })),
    onSuccess: () => {
      onDone();
      return queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all });
    },
  });
}

export interface WebhookFields {
  url: string;
  eventTypes: string[];
  description: string | null;
}

/** Subscribes (no webhook given: answers the signing secret, shown once) or changes a subscription. */
export function useSaveWebhook(webhook: Webhook | undefined, onDone: (secret?: string) => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ url, eventTypes, description }: WebhookFields) => {
      if (!webhook)
        return (await answer(api.POST("/v1/webhooks", { body: { url, ...(eventTypes.length && { eventTypes }), ...(description && { description }) } }))).data
          .secret;
      await answer(api.PATCH("/v1/webhooks/{webhookId}", { params: { path: { webhookId: webhook.id } }, body: { url, eventTypes, description } }));
      return undefined;
    },
    onSuccess: (secret) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks.all });
      onDone(secret);
    },
  });
}

export interface KeyFilters {
  role: string;
  userId: string;
  sort: string;
}

export function useKeyList(filters: KeyFilters) {
  const { api } = useSession();
  const { role, userId, sort } = filters;
  return usePagedQuery(queryKeys.keys.list(filters), async (nextToken) => {
    const query = {
      limit: 100,
      sort: [sort as SortOf<"/v1/keys">],
      ...(role && { role: role as Key["role"] }),
      ...(userId && { userId }),
      ...(nextToken && { nextToken }),
    };
    return (await answer(api.GET("/v1/keys", { params: { query } }))).data;
  });
}

export function useRevokeKey(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (key: Key) => answer(api.DELETE("/v1/keys/{keyId}", { params: { path: { keyId: key.id } } })),
    onSuccess: () => {
      onDone();
      return queryClient.invalidateQueries({ queryKey: queryKeys.keys.all });
    },
  });
}

export type KeyFields = Schemas["KeyCreate"];

/** Issues a key: answers the key itself, shown once. */
export function useIssueKey(onDone: (secret?: string) => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: KeyFields) => (await answer(api.POST("/v1/keys", { body }))).data.key,
    onSuccess: (secret) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.keys.all });
      onDone(secret);
    },
  });
}

export function useCompare(operationId: string) {
  const { api } = useSession();
  return useMutation({
    mutationFn: async (lines: { variantExternalId: string; quantity: number }[]) =>
      (await answer(api.POST("/v1/operations/{operationId}/compare", { params: { path: { operationId } }, body: { lines } }))).data,
  });
}

/** Every key of the tenant by id (OPERATOR keys only), to name the actors of events and changes. */
export function useKeysById() {
  const { api, session } = useSession();
  return useQuery({
    queryKey: queryKeys.keys.names,
    enabled: session.role === "OPERATOR",
    staleTime: 60_000,
    queryFn: async () => {
      const keys = new Map<string, Key>();
      for await (const key of api.paginate("/v1/keys", { query: { limit: API_LIMITS.keysPerPage } })) keys.set(key.id, key);
      return keys;
    },
  });
}

export type ChangeRecord = Schemas["ChangeRecord"];
type HistoryQuery = QueryOf<"/v1/history">;
export type ResourceType = NonNullable<HistoryQuery["resourceType"]>;

export interface ChangeFilters {
  kind: string;
  resource: string;
  operationId: string;
  field: string;
  actorKeyId: string;
  from: string;
  to: string;
  sort: string;
}

/** The history query of `filters`; the dates are whole days (from its first second to its last). */
const historyQuery = (filters: ChangeFilters): HistoryQuery => ({
  sort: [filters.sort as SortOf<"/v1/history">],
  ...(filters.kind && { resourceType: filters.kind as ResourceType }),
  ...(filters.resource.trim() && { resourceId: filters.resource.trim() }),
  ...(filters.operationId && { operationId: filters.operationId }),
  ...(filters.field.trim() && { field: filters.field.trim() }),
  ...(filters.actorKeyId && { actorKeyId: filters.actorKeyId }),
  ...(filters.from && { from: `${filters.from}T00:00:00Z` }),
  ...(filters.to && { to: `${filters.to}T23:59:59.999Z` }),
});

/** The tenant's change records, newest first (or oldest), by the filters. */
export function useHistoryList(filters: ChangeFilters, enabled = true) {
  const { api } = useSession();
  return usePagedQuery<ChangeRecord>(
    queryKeys.history.list(filters),
    async (nextToken) =>
      (await answer(api.GET("/v1/history", { params: { query: { ...historyQuery(filters), limit: 100, ...(nextToken && { nextToken }) } } })))
        .data as Schemas["ChangeRecordPage"],
    { enabled },
  );
}

/** Every record of the filters as CSV (one row per changed field), as the API exports them. */
export const exportHistoryCsv = async (api: ApiClient, filters: ChangeFilters) =>
  (await answer(api.GET("/v1/history", { params: { query: historyQuery(filters) }, ...csvAnswer }))).data as unknown as string;

/** Brings a deleted rule back, with its id and last values. */
export function useRestoreRule(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (ruleId: string) => (await answer(api.POST("/v1/buying-policies/quotas/rules/{ruleId}/restore", { params: { path: { ruleId } } }))).data,
    onSuccess: () => {
      onDone();
      for (const queryKey of [queryKeys.history.all, queryKeys.rules.all, queryKeys.rule.all, queryKeys.evaluation.all])
        void queryClient.invalidateQueries({ queryKey });
    },
  });
}

export type DisplaySettings = Schemas["DisplaySettings"];
export type ApprovalSettings = Schemas["ApprovalSettings"];

/** How the tenant's amounts are shown (read by both roles, rarely changed). */
export function useDisplaySettings() {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.displaySettings,
    staleTime: 5 * 60_000,
    queryFn: async () => (await answer(api.GET("/v1/settings/display"))).data,
  });
}

export function useSaveDisplaySettings(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (settings: DisplaySettings) => (await answer(api.PUT("/v1/settings/display", { body: settings }))).data,
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.displaySettings, saved);
      void queryClient.invalidateQueries({ queryKey: queryKeys.history.all });
      onDone();
    },
  });
}

export function useApprovalSettings() {
  const { api, session } = useSession();
  return useQuery({
    queryKey: queryKeys.approvalSettings,
    enabled: session.role === "OPERATOR",
    queryFn: async () => (await answer(api.GET("/v1/settings/approvals"))).data,
  });
}

export function useSaveApprovalSettings(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (settings: ApprovalSettings) => (await answer(api.PUT("/v1/settings/approvals", { body: settings }))).data,
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.approvalSettings, saved);
      void queryClient.invalidateQueries({ queryKey: queryKeys.history.all });
      onDone();
    },
  });
}

/** Sends a delivered or failed delivery again; the deliveries list shows it pending, then its outcome. */
export function useRedeliver(webhookId: string) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (delivery: Delivery) =>
      (await answer(api.POST("/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", { params: { path: { webhookId, deliveryId: delivery.id } } }))).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.deliveries.of(webhookId) }),
  });
}

/**
 * A subscription's failing deliveries (for its row in the list): the ones that failed after every
 * attempt, and the pending ones whose last attempt failed (retried for a day and more before they fail).
 */
export function useFailingDeliveries(webhookId: string) {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.deliveries.failing(webhookId),
    refetchInterval: 10_000,
    queryFn: async () =>
      (await answer(api.GET("/v1/webhooks/{webhookId}/deliveries", { params: { path: { webhookId }, query: { limit: 100, status: ["failed", "pending"] } } })))
        .data,
    select: (page) => ({
      failing: page.items.filter((delivery) => delivery.status === "failed" || delivery.lastError !== null),
      more: page.nextToken !== null,
    }),
  });
}
