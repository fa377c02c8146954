import type { ApiClient } from "@campaign-policy/client";
import { fetchOperation, type Operation } from "../api/operations";
import { putAccountCaps, type CapCounts, type CapWrite } from "../api/allocations";
import { capsRefused } from "../labels/allocation";
import { putInChunks, type ChunkSink } from "../shared/grid/models/chunkedSave";
import { API_LIMITS } from "../shared/limits";
import type { Refusal } from "../shared/session";
import { versionChain } from "../shared/versionChain";

/**
 * Accounts' caps saved as the grid saves lines: in the API's chunks, every chunk a dry run first (a
 * refusal in the last leaves nothing half saved), then for real, each checked against the version the
 * page read (If-Match) moved on by the chunks this save made.
 */

export interface CapsSave {
  /** Where each refused cap's reason goes, and the caps saved. */
  sink: ChunkSink<CapWrite>;
  named: (accountId: string) => string;
  onProgress?: (sent: number, total: number, dryRun: boolean) => void;
}

/** Checks every chunk of `caps` (a dry run), then saves them: the counts, or a ChunkRefused naming the caps saved before the refusal. */
export async function saveCaps(api: ApiClient, operation: Operation, caps: CapWrite[], { sink, named, onProgress }: CapsSave): Promise<CapCounts> {
  const chain = versionChain(operation.version, async () => (await fetchOperation(api, operation.id)).version);
  const call = {
    draft: sink,
    size: API_LIMITS.capsPerPut,
    onProgress,
    refusedRows: (refusal: Refusal, chunk: CapWrite[]) => capsRefused(refusal, chunk, named),
    put: async (chunk: CapWrite[], dryRun: boolean) => {
      const counts = await putAccountCaps(api, operation.id, chunk, dryRun, await chain.ifMatch());
      if (!dryRun) chain.moved(counts.set + counts.removed > 0 ? 1 : 0);
      return counts;
    },
  };
  await putInChunks(caps, true, call);
  return putInChunks(caps, false, call);
}
