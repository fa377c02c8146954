import type { Schemas } from "@campaign-policy/client";
import { useMutation } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { answer } from "../shared/session";

/** An order compared with an Operation's lines. */

export type Comparison = Schemas["Comparison"];

export function useCompare(operationId: string) {
  const { api } = useSession();
  return useMutation({
    // With an account, its own caps count too (allocation_exceeded); without, only the lines' pools.
    mutationFn: async ({ lines, accountId }: { lines: { variantExternalId: string; quantity: number }[]; accountId?: string }) =>
      (await answer(api.POST("/v1/operations/{operationId}/compare", { params: { path: { operationId } }, body: { lines, ...(accountId && { accountId }) } })))
        .data,
  });
}
