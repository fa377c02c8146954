import { useQueries } from "@tanstack/react-query";

/** Ids asked per request when naming many at once (a page of a list asks one request per hundred rows, not one per row). */
const IDS_PER_REQUEST = 100;

/**
 * What many ids name (an Operation's code, an account's name), read a hundred ids a request, each
 * chunk cached under `keyOf(chunk)`: id → its name, or null for an id that names nothing. Undefined
 * until every chunk is read.
 */
export function useNamesOf(
  ids: readonly string[],
  keyOf: (chunk: readonly string[]) => readonly unknown[],
  read: (chunk: string[], limit: number) => Promise<Iterable<readonly [string, string]>>,
): Map<string, string | null> | undefined {
  const wanted = [...new Set(ids)].sort();
  const chunks: string[][] = [];
  for (let i = 0; i < wanted.length; i += IDS_PER_REQUEST) chunks.push(wanted.slice(i, i + IDS_PER_REQUEST));
  const answers = useQueries({
    queries: chunks.map((chunk) => ({
      queryKey: keyOf(chunk),
      staleTime: 60_000,
      queryFn: async () => new Map<string, string | null>([...chunk.map((id) => [id, null] as const), ...(await read(chunk, IDS_PER_REQUEST))]),
    })),
  });
  if (answers.some((answer) => !answer.data)) return undefined;
  return new Map(answers.flatMap((answer) => [...(answer.data ?? [])]));
}
