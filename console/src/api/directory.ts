import type { ApiClient, Schemas } from "@campaign-policy/client";
import { useQueries, useQuery } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { useNamesOf } from "../shared/lookups";
import { usePagedQuery } from "../shared/PagedList";
import { queryKeys } from "../shared/queryKeys";
import { answer, type SortOf } from "../shared/session";

/** The tenant's directory (accounts and their users) as the console reads and writes it. */

export type Account = Schemas["Account"];
export type AccountsUpsert = Schemas["AccountsUpsert"];

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
