import type { Schemas } from "@campaign-policy/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { API_LIMITS } from "../shared/limits";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer, type SortOf } from "../shared/session";

/** API keys: the list, issuing, revoking, and every key by id to name actors. */

export type Key = Schemas["Key"];

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
