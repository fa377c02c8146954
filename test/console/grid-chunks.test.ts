import { ApiProblem } from "@campaign-policy/client";
import { describe, expect, it } from "vitest";
import { ChunkRefused, type ChunkSink, describePartialSave, putInChunks } from "../../console/src/shared/grid/models/chunkedSave";
import type { GridRow } from "../../console/src/shared/grid/models/draft";

const rows: GridRow<unknown>[] = Array.from({ length: 7 }, (_, i) => ({ id: `r${i}`, cells: { code: `SKU-${i}` } }));

/** A draft that records what the chunks told it. */
function sink() {
  const errors = new Map<string, string>();
  const settled: string[] = [];
  const draft: ChunkSink<GridRow<unknown>> = {
    setServerError: (row, message) => void errors.set(row.id, message),
    settle: (saved) => settled.push(...saved.map((row) => row.id)),
    refresh: () => {},
  };
  return { draft, errors, settled };
}

describe("saving a grid in chunks", () => {
  it("sends the API's limit a call, adds up the counts, and settles each saved chunk", async () => {
    const { draft, settled } = sink();
    const sent: number[] = [];
    const counts = await putInChunks(rows, false, {
      draft,
      size: 3,
      put: async (chunk) => {
        sent.push(chunk.length);
        return { created: chunk.length, updated: 1 };
      },
    });
    expect(sent).toEqual([3, 3, 1]);
    expect(counts).toEqual({ created: 7, updated: 3 });
    expect(settled).toEqual(rows.map((row) => row.id));
  });

  it("settles nothing on a dry run", async () => {
    const { draft, settled } = sink();
    await putInChunks(rows, true, { draft, size: 5, put: async () => ({ created: 0 }) });
    expect(settled).toEqual([]);
  });

  it("puts a refused chunk's errors on its rows and names the rows saved before it", async () => {
    const { draft, errors, settled } = sink();
    const refusal = new ApiProblem(422, {
      code: "validation_failed",
      title: "Invalid",
      errors: [
        { index: 1, field: "minQuantity", message: "min 5 > max 2" },
        { index: 9, message: "outside the chunk" },
      ],
    } as never);
    const put = async (chunk: GridRow<unknown>[]) => {
      if (chunk[0].id === "r3") throw refusal;
      return { created: chunk.length };
    };
    const failure = await putInChunks(rows, false, { draft, size: 3, put, messageOf: (item) => `Server: ${item.message}` }).catch((error) => error);
    expect(failure).toBeInstanceOf(ChunkRefused);
    expect((failure as ChunkRefused<GridRow<unknown>>).saved.map((row) => row.id)).toEqual(["r0", "r1", "r2"]);
    expect((failure as ChunkRefused<GridRow<unknown>>).refusal.status).toBe(422);
    expect([...errors]).toEqual([["r4", "Server: min 5 > max 2"]]);
    expect(settled).toEqual(["r0", "r1", "r2"]);
    expect(describePartialSave(failure as ChunkRefused<GridRow<unknown>>, rows.length, "lines", (row) => row.cells.code)).toBe(
      "Partly saved: the first 3 of the 7 changed lines were saved (SKU-0 to SKU-2, in the grid's order); the server then refused the next 4, which stay as unsaved edits, marked in the grid.",
    );
    expect(describePartialSave(new ChunkRefused(failure.refusal, []), 2, "rules", () => "")).toBe(
      "Nothing was saved: the server refused the first rules sent; all 2 stay as unsaved edits.",
    );
  });

  it("puts a refusal naming rows by their key on those rows (refusedRows), and says how far it is after each chunk", async () => {
    const { draft, errors } = sink();
    const progress: string[] = [];
    const refusal = new ApiProblem(409, { code: "allocation_below_ordered", title: "Below", lines: [{ variantExternalId: "SKU-5", value: 1 }] } as never);
    const failure = await putInChunks(rows, true, {
      draft,
      size: 3,
      put: async (chunk) => {
        if (chunk.some((row) => row.cells.code === "SKU-5")) throw refusal;
        return { updated: chunk.length };
      },
      refusedRows: (refused, chunk) => {
        const lines = (refused.problem as unknown as { lines: { variantExternalId: string }[] }).lines;
        return chunk.filter((row) => lines.some((line) => line.variantExternalId === row.cells.code)).map((row) => [row, "below what is ordered"]);
      },
      onProgress: (sent, total, dryRun) => progress.push(`${sent}/${total}${dryRun ? " dry" : ""}`),
    }).catch((error) => error);
    expect(failure).toBeInstanceOf(ChunkRefused);
    expect([...errors]).toEqual([["r5", "below what is ordered"]]);
    expect(progress).toEqual(["3/7 dry"]);
    await putInChunks(rows, false, { draft, size: 3, put: async () => ({ updated: 1 }), onProgress: (sent, total) => progress.push(`${sent}/${total}`) });
    expect(progress.slice(1)).toEqual(["3/7", "6/7", "7/7"]);
  });
});
